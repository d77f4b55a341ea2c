/**
 * The bundles every page starts with are compiled while they download, not when they run.
 *
 * A browser compiles most functions of a script only when one is first
 * called, on the main thread. The runtime and main bundles run almost all of
 * theirs at start-up (React DOM, the router, the theme's layout), so that
 * compiling is part of the page's longest task. The comment
 * `//# allFunctionsCalledOnLoad` at the top of a file asks the browser to
 * compile all of its functions eagerly, on a background thread while the
 * file streams in (Chrome 136 and later; other browsers ignore the comment).
 * Measured on the state-management page at a 4× slowed CPU, the main
 * bundle's task fell from 374–423 ms to 267–336 ms.
 *
 * Only the entry bundles get it: the route chunks hold code that may never
 * run on a given visit (another page's components, the syntax highlighter).
 * The comment is added after the minifier, which would drop it, and before
 * the files' content hashes are computed, so their names cover it.
 * scripts/site.test.mjs checks the built bundles begin with it.
 */
import type { Plugin } from "@docusaurus/types";

/** The magic comment, as the first line of a file. */
export const COMPILE_HINT = "//# allFunctionsCalledOnLoad";

export default function compileHints(): Plugin {
  return {
    name: "act-compile-hints",
    configureWebpack: (_config, isServer, { currentBundler }) => {
      if (isServer) return {};
      const { BannerPlugin, Compilation } = currentBundler.instance;
      return {
        plugins: [
          new BannerPlugin({
            banner: COMPILE_HINT,
            raw: true,
            entryOnly: true,
            // The entry's stylesheet is one of its files too; a `//` line is not CSS.
            test: /\.js$/,
            stage: Compilation.PROCESS_ASSETS_STAGE_OPTIMIZE_SIZE + 1,
          }),
        ],
      };
    },
  };
}
