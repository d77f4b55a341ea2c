/**
 * Keeps Docusaurus' CommonJS bundles working although the root package.json
 * says "type": "module" (which the packages need).
 *
 * - The generated .docusaurus/*.js would be parsed as strict ES modules, and
 *   their `require.resolveWeak` calls (route code splitting) would reach
 *   Node's require: parse them as "auto" modules, as without the flag.
 * - The static renderer require()s the server chunks from build/__server,
 *   where a ".js" file now means an ES module: name them ".cjs".
 */
import { resolve } from "node:path";
import type { LoadContext, Plugin } from "@docusaurus/types";

export default function commonjsBundles(context: LoadContext): Plugin {
  return {
    name: "act-commonjs-bundles-under-type-module",
    configureWebpack: (_config, isServer) => ({
      module: {
        rules: [{ test: /\.js$/, include: [resolve(context.siteDir, ".docusaurus")], type: "javascript/auto" }],
      },
      ...(isServer && { output: { chunkFilename: "assets/js/[name].[contenthash:8].cjs" } }),
    }),
  };
}
