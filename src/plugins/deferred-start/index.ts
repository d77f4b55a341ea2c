/**
 * The page template without <script defer> tags: the site's code starts
 * after the first paint (see ./loader.js for when, and how a click made
 * before the page is live still does what it says).
 *
 * It is Docusaurus' own server-side template with one change: its loop that
 * writes a `<script src defer>` per bundle writes one small inline call
 * instead, `actStart([...bundles])`, which loads the same bundles later. The
 * build fails if a Docusaurus upgrade changes that loop, so the change
 * cannot silently stop applying.
 *
 * The loader itself (`actStart`) is a head tag this plugin adds to every
 * page, ahead of the call, not part of the template: Docusaurus copies the
 * site config, the template included, into the code every page loads, where
 * the loader's 3 KB would be read by no one.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Plugin } from "@docusaurus/types";
import { transformSync } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** The loop of Docusaurus' template that writes the script tags. */
export const SCRIPT_LOOP =
  /<% it\.scripts\.forEach\(\(script\) => \{ %>\s*<script src="<%= it\.baseUrl %><%= script %>" defer><\/script>\s*<% \}\); %>/;

/** The name the loader is defined under, on `window`. */
export const LOADER = "actStart";

/** The loader, minified, as a script that defines `actStart(scripts)`. */
export function loaderDefinition(): string {
  // loader.js is one function expression of the bundle list.
  const source = readFileSync(join(here, "loader.js"), "utf8").trim().replace(/;$/, "");
  return transformSync(`window.${LOADER}=${source};`, { minify: true, loader: "js" }).code.trim();
}

/** Docusaurus' default server-side template. */
export function docusaurusTemplate(): string {
  const path = join(dirname(require.resolve("@docusaurus/core/package.json")), "lib/ssg/ssgTemplate.html.js");
  return (require(path) as { default: string }).default;
}

/** The template with the deferred start in place of the script tags. */
export function deferredStartTemplate(template = docusaurusTemplate()): string {
  if (!SCRIPT_LOOP.test(template))
    throw new Error(
      "src/plugins/deferred-start: Docusaurus' page template no longer writes its scripts the way this plugin replaces; update SCRIPT_LOOP."
    );
  const urls = "<%~ JSON.stringify(it.scripts.map((script) => it.baseUrl + script)) %>";
  return template.replace(SCRIPT_LOOP, () => `<script>${LOADER}(${urls})</script>`);
}

/** Puts the loader in every page's head, before the template's call to it. */
export default function deferredStart(): Plugin {
  const innerHTML = loaderDefinition();
  return {
    name: "act-deferred-start",
    injectHtmlTags: () => ({ headTags: [{ tagName: "script", innerHTML }] }),
  };
}
