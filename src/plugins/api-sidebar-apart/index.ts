/**
 * The API reference's sidebar (and its pages' descriptions) is loaded by the API pages only, not by every docs page.
 *
 * The docs plugin hands every docs page one "version" object: every
 * sidebar, and every doc's title and description. Two thirds of it are the
 * API sidebar and the API pages' descriptions, which a guide never shows.
 * In the browser bundle only (the server renders every page from the whole
 * object, so the HTML does not change), this plugin:
 *
 * - trims that object (./loader.cjs): the API sidebar is left out, and the
 *   API docs keep their id, title and sidebar name but lose their
 *   description;
 * - makes what it took out a module of its own (the same file with
 *   `?api-extras`), which registers it (./extras.ts) when it runs;
 * - adds that module to the chunks of every route under the API path, by
 *   editing the generated route chunk table and chunk registry, so
 *   Docusaurus loads it with the page's own code, before the page hydrates
 *   or a client-side navigation renders it;
 * - src/theme/DocVersionRoot puts it back into the version object.
 *
 * scripts/plugins.test.mjs fails when Docusaurus changes the shape of the
 * generated files this relies on.
 */
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Plugin } from "@docusaurus/types";

const here = dirname(fileURLToPath(import.meta.url));
const transform = createRequire(import.meta.url)("./transform.cjs");

/** The docs plugin's version objects (route props), the chunk registry and route chunk table, as generated. */
export const VERSION_PROPS: RegExp = transform.VERSION_PROPS_RE;
export const REGISTRY: RegExp = transform.REGISTRY_RE;
export const ROUTES_CHUNK_NAMES: RegExp = transform.ROUTES_CHUNK_NAMES_RE;
/** The options every part shares. */
export type Options = { sidebar: string; docPrefix: string; routePrefix: string };

export default function apiSidebarApart(_context: unknown, raw: unknown): Plugin {
  const options = raw as Options;
  for (const key of ["sidebar", "docPrefix", "routePrefix"] as const)
    if (typeof options?.[key] !== "string") throw new Error(`api-sidebar-apart: the option ${key} must be a string`);
  const loader = (name: string) => ({ loader: resolve(here, name), options });
  return {
    name: "act-api-sidebar-apart",
    configureWebpack: (_config, isServer) =>
      isServer
        ? {}
        : {
            module: {
              rules: [
                {
                  test: VERSION_PROPS,
                  resourceQuery: /api-extras/,
                  type: "javascript/auto",
                  use: [loader("loader.cjs")],
                },
                {
                  test: VERSION_PROPS,
                  resourceQuery: { not: [/api-extras/] },
                  type: "json",
                  use: [loader("loader.cjs")],
                },
                { test: REGISTRY, use: [loader("loader.cjs")] },
                { test: ROUTES_CHUNK_NAMES, type: "json", use: [loader("loader.cjs")] },
              ],
            },
          },
  };
}
