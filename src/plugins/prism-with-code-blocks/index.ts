/**
 * Prism runs in the browser only where a code block must be rendered there, never to hydrate one.
 *
 * The server renders every code block highlighted; src/theme/CodeBlock
 * keeps that HTML when the page hydrates and loads Prism with the theme's
 * code block only when a block renders anew (after a client-side
 * navigation). For that this plugin:
 *
 * - swaps the classic theme's client module that registers the extra
 *   languages (bash, json, sql) for an empty one, since registering them
 *   would bring Prism into the code every page evaluates; the highlighted
 *   block registers them itself (src/theme/CodeBlock/prism-languages.ts);
 * - tells the bundles apart (`process.env.ACT_SERVER_BUNDLE`), so the
 *   server bundle renders the highlighted block directly and the browser
 *   bundle only holds a dynamic import of it;
 * - writes the code colours (CSS variables, see src/prism-themes.ts) into
 *   every page's head, so a block rendered once is right in both colour
 *   modes and a mode switch never re-renders it.
 *
 * ./index.test.ts fails when a theme upgrade moves the client
 * module or changes the parts of the code block the kept HTML relies on.
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Plugin } from "@docusaurus/types";
import { codeColourCss } from "../../prism-themes";

const here = dirname(fileURLToPath(import.meta.url));

/** The classic theme's client module that registers Prism's languages. */
export const PRISM_CLIENT_MODULE = /@docusaurus[\\/]theme-classic[\\/]lib[\\/]prism-include-languages(\.js)?$/;
/** What replaces it. */
export const EMPTY_MODULE = resolve(here, "empty.js");

export default function prismWithCodeBlocks(): Plugin {
  return {
    name: "act-prism-with-code-blocks",
    configureWebpack: (_config, isServer, { currentBundler }) => ({
      plugins: [
        new currentBundler.instance.NormalModuleReplacementPlugin(
          PRISM_CLIENT_MODULE,
          (request: { request: string }) => {
            request.request = EMPTY_MODULE;
          }
        ),
        new currentBundler.instance.DefinePlugin({ "process.env.ACT_SERVER_BUNDLE": JSON.stringify(String(isServer)) }),
      ],
    }),
    injectHtmlTags: () => ({
      headTags: [{ tagName: "style", attributes: { "data-code-colours": "" }, innerHTML: codeColourCss }],
    }),
  };
}
