// The compile hint heads the browser's entry bundles, survives the minifier and is covered by the file names' hashes.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// The bundler the site builds with (@docusaurus/faster brings it).
import { rspack, type RspackPluginInstance } from "@rspack/core";
import type { Plugin } from "@docusaurus/types";
import { afterAll, describe, test } from "vitest";
import compileHints, { COMPILE_HINT } from "./index";

type Configure = NonNullable<Plugin["configureWebpack"]>;
const configure = (isServer: boolean) =>
  (compileHints().configureWebpack as Configure)(
    {} as never,
    isServer,
    { currentBundler: { name: "rspack", instance: rspack } } as never,
    undefined as never
  ) as { plugins?: RspackPluginInstance[] };

const dir = mkdtempSync(join(tmpdir(), "compile-hints-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(
  join(dir, "entry.js"),
  'export function start(n) { return n + 1; }\nimport("./later.js").then((m) => m.later(start(1)));\n'
);
writeFileSync(join(dir, "later.js"), "// a comment the minifier drops\nexport function later(n) { return n * 2; }\n");

/** Builds the two files for the browser, minified, with the given plugins; returns the output files by name. */
function build(name: string, plugins: RspackPluginInstance[]): Promise<Record<string, string>> {
  const out = join(dir, name);
  return new Promise((resolve, reject) =>
    rspack(
      {
        mode: "production",
        context: dir,
        entry: { main: "./entry.js" },
        output: { path: out, filename: "[name].[contenthash].js", chunkFilename: "[id].[contenthash].js" },
        plugins,
      },
      (error, stats) => {
        if (error || stats?.hasErrors()) return reject(error ?? new Error(stats?.toString()));
        resolve(Object.fromEntries(readdirSync(out).map((file) => [file, readFileSync(join(out, file), "utf8")])));
      }
    )
  );
}

describe("compile-hints: the entry bundles ask to be compiled while they download", () => {
  test("the server bundle gets nothing", () => {
    assert.deepEqual(configure(true), {});
  });

  test("a minified browser build: the entry bundle starts with the comment, a chunk loaded later does not", async () => {
    const files = await build("hinted", configure(false).plugins ?? []);
    const names = Object.keys(files);
    const entry = names.filter((file) => file.startsWith("main."));
    const later = names.filter((file) => !file.startsWith("main."));
    assert.equal(entry.length, 1);
    assert.equal(later.length, 1, `one chunk besides the entry: ${names.join(", ")}`);
    assert.ok(files[entry[0]].startsWith(`${COMPILE_HINT}\n`), files[entry[0]].slice(0, 80));
    assert.ok(!files[later[0]].includes(COMPILE_HINT));
    assert.ok(!files[later[0]].includes("a comment the minifier drops"), "the build was minified");
  }, 30_000);

  test("the entry bundle's name changes with the comment: its hash covers it", async () => {
    const plain = Object.keys(await build("plain", [])).find((file) => file.startsWith("main."));
    const hinted = Object.keys(await build("hinted-again", configure(false).plugins ?? [])).find((file) =>
      file.startsWith("main.")
    );
    assert.ok(plain && hinted);
    assert.notEqual(hinted, plain);
  }, 30_000);
});
