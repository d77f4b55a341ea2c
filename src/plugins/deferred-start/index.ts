/**
 * The page template without <script defer> tags: the site's code starts
 * after the first paint (see ./loader.js for when, and how a click made
 * before the page is live still does what it says).
 *
 * It is Docusaurus' own server-side template with one change: its loop that
 * writes a `<script src defer>` per bundle writes one small inline script
 * instead, which loads the same bundles later. The build fails if a
 * Docusaurus upgrade changes that loop, so the change cannot silently stop
 * applying.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { transformSync } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** The loop of Docusaurus' template that writes the script tags. */
export const SCRIPT_LOOP =
  /<% it\.scripts\.forEach\(\(script\) => \{ %>\s*<script src="<%= it\.baseUrl %><%= script %>" defer><\/script>\s*<% \}\); %>/;

/** The loader, minified and called with `scripts` (a JavaScript expression). */
export function loaderSource(scripts: string): string {
  // loader.js is one function expression; call it with the bundle list.
  const source = readFileSync(join(here, "loader.js"), "utf8").trim().replace(/;$/, "");
  const code = transformSync(`(${source})(__ACT_SCRIPTS__);`, { minify: true, loader: "js" }).code.trim();
  if (!code.includes("__ACT_SCRIPTS__"))
    throw new Error("src/plugins/deferred-start: the loader lost its argument when minified");
  return code.replace("__ACT_SCRIPTS__", () => scripts);
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
  return template.replace(SCRIPT_LOOP, () => `<script>${loaderSource(urls)}</script>`);
}
