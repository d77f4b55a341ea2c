/**
 * Prism loads with the code blocks, not with every page.
 *
 * The classic theme registers the highlighter's extra languages (bash, json,
 * sql) in a client module, which puts Prism — about a sixth of the main
 * bundle — into the code every page evaluates before it can hydrate, code
 * blocks or not. This plugin swaps that client module for an empty one;
 * src/theme/CodeBlock registers the languages instead, so Prism arrives in
 * the code-block chunk of the pages that show code, and is evaluated there,
 * before those blocks render (on the server and in the browser alike).
 * scripts/plugins.test.mjs fails when a theme upgrade moves the module.
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Plugin } from "@docusaurus/types";

const here = dirname(fileURLToPath(import.meta.url));

/** The classic theme's client module that registers Prism's languages. */
export const PRISM_CLIENT_MODULE = /@docusaurus[\\/]theme-classic[\\/]lib[\\/]prism-include-languages(\.js)?$/;
/** What replaces it. */
export const EMPTY_MODULE = resolve(here, "empty.js");

export default function prismWithCodeBlocks(): Plugin {
  return {
    name: "act-prism-with-code-blocks",
    configureWebpack: (_config, _isServer, { currentBundler }) => ({
      plugins: [
        new currentBundler.instance.NormalModuleReplacementPlugin(
          PRISM_CLIENT_MODULE,
          (request: { request: string }) => {
            request.request = EMPTY_MODULE;
          }
        ),
      ],
    }),
  };
}
