/**
 * The browser's copy of the site config carries only the fields the browser reads.
 *
 * Docusaurus writes the whole validated config into
 * .docusaurus/docusaurus.config.mjs, and the main bundle every page loads
 * carries it: the server's HTML template, every plugin's, theme's and
 * preset's options (TypeDoc's alone weigh 1.8 KB), the Markdown options,
 * the build flags. In the browser bundle only, this plugin's loader
 * (./loader.cjs) rewrites that module without the fields listed in
 * ./transform.cjs (DROPPED, each with what reads it instead); `future`
 * keeps only `experimental_router`, and `themeConfig` stays whole.
 *
 * Why this is safe:
 * - the fields kept (BROWSER_READS) are every field read by the client code
 *   of Docusaurus (core, the classic theme, theme-common, the docs plugin…),
 *   of the search plugin and of src/: scripts/plugins.test.mjs reads that
 *   code (scripts/site-config-reads.mjs) and fails when it reads a dropped
 *   field, or uses the whole object in a way the reading cannot follow, or
 *   when Docusaurus' config gains a field that neither list names;
 * - the whole object is used in three places only, each checked by hand:
 *   Docusaurus' context holds it; the blog (off here) hands it to a helper
 *   that reads `url`; the debug plugin's config page (development server
 *   only) shows it, and so shows the browser's copy;
 * - the server bundle keeps the whole config, so every page's HTML is the
 *   same as without this plugin, and the browser hydrates it with the same
 *   values for every field it reads.
 *
 * The landing page also gets the module as its `config` prop (the pages
 * plugin does that for every React page); it does not read it, and the
 * same test file fails if a page under src/pages starts to.
 */
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Plugin } from "@docusaurus/types";

const here = dirname(fileURLToPath(import.meta.url));
const transform = createRequire(import.meta.url)("./transform.cjs");

/** The generated config module, the fields kept and the fields dropped. */
export const CONFIG_MODULE: RegExp = transform.CONFIG_MODULE_RE;
export const BROWSER_READS: string[] = transform.BROWSER_READS;
export const DROPPED: string[] = transform.DROPPED;

export default function leanSiteConfig(): Plugin {
  return {
    name: "act-lean-site-config",
    configureWebpack: (_config, isServer) =>
      isServer ? {} : { module: { rules: [{ test: CONFIG_MODULE, use: [{ loader: resolve(here, "loader.cjs") }] }] } },
  };
}
