/**
 * Lets a page whose code fails on its first load show the error text with
 * Retry (src/theme/Loading) instead of staying blank.
 *
 * Docusaurus renders a page only once its route chunks have preloaded, and
 * offers no option for this: its client imports "./preload" from
 * @docusaurus/core/lib/client. This plugin swaps that one module, in the
 * browser bundle, for src/client/preload-once.js, which tolerates the first
 * failure. scripts/plugins.test.mjs fails when a Docusaurus upgrade moves,
 * renames or changes the module, so the swap cannot silently stop applying.
 */
import { resolve } from "node:path";
import type { LoadContext, Plugin } from "@docusaurus/types";

/** The request Docusaurus' client makes for its preloader. */
export const PRELOAD_REQUEST = /^\.\/preload(\.js)?$/;
/** The folder of the modules that make it. */
export const CORE_CLIENT_FOLDER = /@docusaurus[\\/]core[\\/]lib[\\/]client$/;

/** Docusaurus' own preloader, which the replacement repeats. */
export const originalPreload = (siteDir: string) =>
  resolve(siteDir, "node_modules/@docusaurus/core/lib/client/preload.js");

export default function chunkFailureScreen(context: LoadContext): Plugin {
  return {
    name: "act-chunk-failure-screen",
    configureWebpack: (_config, isServer, { currentBundler }) =>
      isServer
        ? {}
        : {
            plugins: [
              new currentBundler.instance.NormalModuleReplacementPlugin(
                PRELOAD_REQUEST,
                (request: { context: string; request: string }) => {
                  if (CORE_CLIENT_FOLDER.test(request.context))
                    request.request = resolve(context.siteDir, "src/client/preload-once.js");
                }
              ),
            ],
          },
  };
}
