/**
 * The API reference's part of the site's data is loaded by the API pages only, not by every page.
 *
 * Docusaurus puts everything about every page into the browser's main
 * bundle or into data every docs page loads: the route table, each route's
 * chunk names, the chunk registry, the docs list of the global data, and the
 * docs "version" object (every sidebar, every doc's title and description).
 * The API reference is most of the pages, so most of that data, which a
 * reader of a guide never needs. In the browser bundle only (the server
 * renders every page from the whole data, so the HTML does not change),
 * this plugin edits the generated files (./loader.cjs, ./transform.cjs):
 *
 * - routes.js: the API pages' routes are replaced by one route, exact on
 *   exactly their paths and with their sidebar, whose component
 *   (./pages.tsx) loads "the API part" when one of them is visited and
 *   then renders the page at the address;
 * - registry.js and routesChunkNames.json: the API pages' entries, and the
 *   chunks only they use, are left out;
 * - globalData.json: the API docs are left out of the docs list;
 * - the docs version object: the API sidebar and the API docs are left out;
 * - the API part (routes.js with `?api-part`) is a module of its own that
 *   puts all of that back where Docusaurus and the theme read it
 *   (./extras.ts, src/theme/DocVersionRoot), then exports the API routes.
 *
 * src/client/preload-once.js passes the path being loaded to the stand-in,
 * so it loads the API page asked for before the page hydrates or a
 * client-side navigation renders it. scripts/plugins.test.mjs runs the
 * edits on what Docusaurus' own code generator writes, and fails when its
 * files change shape.
 */
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { LoadContext, Plugin } from "@docusaurus/types";

const here = dirname(fileURLToPath(import.meta.url));
const transform = createRequire(import.meta.url)("./transform.cjs");

/** Which pages are the API reference: their path prefix, doc id prefix and sidebar. */
export type Options = { sidebar: string; docPrefix: string; routePrefix: string };

export default function apiApart(context: LoadContext, raw: unknown): Plugin {
  const options = raw as Options;
  for (const key of ["sidebar", "docPrefix", "routePrefix"] as const)
    if (typeof options?.[key] !== "string") throw new Error(`api-apart: the option ${key} must be a string`);
  const use = [
    { loader: resolve(here, "loader.cjs"), options: { ...options, generatedFilesDir: context.generatedFilesDir } },
  ];
  return {
    name: "act-api-apart",
    configureWebpack: (_config, isServer) =>
      isServer
        ? {}
        : {
            module: {
              rules: [
                { test: transform.ROUTES_RE, use },
                { test: transform.REGISTRY_RE, use },
                { test: transform.ROUTES_CHUNK_NAMES_RE, type: "json", use },
                { test: transform.GLOBAL_DATA_RE, type: "json", use },
                { test: transform.VERSION_PROPS_RE, type: "json", use },
              ],
            },
          },
  };
}
