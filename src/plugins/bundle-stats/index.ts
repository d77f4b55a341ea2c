/**
 * Bundle analysis on demand: with ACT_BUNDLE_STATS=<file> set, a production
 * build writes, for every browser chunk, its files and its modules with
 * their sizes, to that JSON file (see scripts/bundle-report.mjs, which
 * prints what is in the JavaScript of the first load and why). Without the
 * variable the plugin does nothing.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Plugin } from "@docusaurus/types";

type Stats = { toJson(options: object): unknown };
type Compiler = { hooks: { done: { tap(name: string, fn: (stats: Stats) => void): void } } };

export default function bundleStats(): Plugin {
  const file = process.env.ACT_BUNDLE_STATS;
  return {
    name: "act-bundle-stats",
    configureWebpack: (_config, isServer) =>
      isServer || !file
        ? {}
        : {
            plugins: [
              {
                apply(compiler: Compiler) {
                  compiler.hooks.done.tap("act-bundle-stats", (stats) => {
                    const json = stats.toJson({
                      all: false,
                      chunks: true,
                      chunkModules: false,
                      modules: true,
                      ids: true,
                      nestedModules: true,
                      modulesSpace: Infinity,
                      nestedModulesSpace: Infinity,
                    });
                    mkdirSync(dirname(resolve(file)), { recursive: true });
                    writeFileSync(resolve(file), JSON.stringify(json));
                  });
                },
              },
            ],
          },
  };
}
