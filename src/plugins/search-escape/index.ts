/**
 * Search results render page titles and headings as text: swaps the local
 * search plugin's path joiner, in its navbar suggestions only, for one that
 * escapes each part (the suggestions are HTML strings; the plugin joins
 * breadcrumbs, title and heading into them unescaped).
 *
 * The swap names a file inside the plugin's dist/ folder;
 * ./index.test.ts fails when a new version of the plugin moves it.
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Plugin } from "@docusaurus/types";

const here = dirname(fileURLToPath(import.meta.url));

/** The module request the plugin's SuggestionTemplate makes for the joiner. */
export const JOINER_REQUEST = /^\.\.\/\.\.\/utils\/concatDocumentPath(\.js)?$/;
/** The folder of the navbar search bar, whose suggestions are innerHTML. */
export const SEARCH_BAR_FOLDER =
  /@easyops-cn[\\/]docusaurus-search-local[\\/]dist[\\/]client[\\/]client[\\/]theme[\\/]SearchBar$/;
/** What replaces the joiner there. */
export const ESCAPING_JOINER = resolve(here, "concat-document-path.js");

/** True when `request`, made from a module in `context`, is the joiner to replace. */
export function isSearchBarJoiner(request: string, context: string): boolean {
  return JOINER_REQUEST.test(request) && SEARCH_BAR_FOLDER.test(context);
}

export default function searchEscape(): Plugin {
  return {
    name: "act-search-escape",
    configureWebpack: (_config, _isServer, { currentBundler }) => ({
      plugins: [
        new currentBundler.instance.NormalModuleReplacementPlugin(
          JOINER_REQUEST,
          (request: { context: string; request: string }) => {
            // The search page renders the same path as React text: leave it.
            if (isSearchBarJoiner(request.request, request.context)) request.request = ESCAPING_JOINER;
          }
        ),
      ],
    }),
  };
}
