/**
 * The browser bundle gets the one tslib helper Docusaurus' client code uses, not all of tslib.
 *
 * @docusaurus/utils-common is CommonJS compiled by TypeScript: it requires
 * `tslib` for a single helper (`__importDefault`), and since the bundler
 * cannot tree-shake a CommonJS require, the whole library (≈ 11 KB
 * minified) lands in the main bundle every page loads. This plugin points
 * that one require, from that package only, at a module holding just the
 * helper. ./index.test.ts fails when the package starts using
 * another tslib helper.
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Plugin } from "@docusaurus/types";

const here = dirname(fileURLToPath(import.meta.url));

/** The package whose tslib require is redirected. */
export const ISSUER = /[\\/]@docusaurus[\\/]utils-common[\\/]lib[\\/]/;
/** The helpers the stand-in provides. */
export const HELPERS = ["__importDefault"];
/** The stand-in. */
export const STAND_IN = resolve(here, "import-default.js");

export default function leanTslib(): Plugin {
  return {
    name: "act-lean-tslib",
    configureWebpack: (_config, isServer, { currentBundler }) =>
      isServer
        ? {}
        : {
            plugins: [
              new currentBundler.instance.NormalModuleReplacementPlugin(
                /^tslib$/,
                (request: { request: string; contextInfo?: { issuer?: string } }) => {
                  if (ISSUER.test(request.contextInfo?.issuer ?? "")) request.request = STAND_IN;
                }
              ),
            ],
          },
  };
}
