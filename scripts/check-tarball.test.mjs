// @ts-check
// npx vitest run --project site scripts/check-tarball.test.mjs — the tarball checks
// (check-tarball.mjs) catch a source map or a file that gives away the build
// machine, and the rewrite after the core's build (relative-source-maps.mjs)
// leaves none.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "vitest";
import { machineFolders, mapProblems, readTarball, tarballProblems } from "./check-tarball.mjs";
import { relativeMap } from "./relative-source-maps.mjs";

const map = (/** @type {Record<string, unknown>} */ fields) =>
  JSON.stringify({ version: 3, sources: ["../src/index.ts"], mappings: "AAAA", ...fields });

test("a map with relative paths passes", () => {
  assert.deepEqual(mapProblems("dist/index.js.map", map({ file: "index.js" })), []);
  assert.deepEqual(
    mapProblems("dist/index.js.map", map({ sourceRoot: "", sources: ["index.cjs", "../src/a.ts"] })),
    []
  );
});

test("an absolute file, sourceRoot or source fails, on any platform's spelling, naming the field", () => {
  assert.match(
    mapProblems("dist/index.cjs.map", map({ file: "/home/runner/work/act/act/packages/act/dist/index.cjs" })).join(),
    /dist\/index\.cjs\.map: file is the absolute path "\/home\/runner/
  );
  assert.match(mapProblems("m.map", map({ sourceRoot: "/build/" })).join(), /m\.map: sourceRoot is the absolute path/);
  for (const source of ["/build/x/src/a.ts", "C:\\build\\src\\a.ts", "C:/build/src/a.ts", "file:///build/src/a.ts"])
    assert.match(
      mapProblems("m.map", map({ sources: ["../src/b.ts", source] })).join(),
      /m\.map: sources\[1\] is the absolute path/,
      source
    );
  assert.match(mapProblems("m.map", "{ not json").join(), /m\.map: not JSON/);
});

test("any file naming the repository's or the home folder fails, with its line; a look-alike name does not", () => {
  const folders = ["/srv/ci/", "/root/"];
  const files = new Map([
    ["README.md", Buffer.from("# @act-root/act\n\nnpm install @act-root/act\n")],
    ["dist/index.js", Buffer.from('"use strict";\nconst at = "/srv/ci/packages/act/src/a.ts";\n')],
    ["dist/index.js.map", Buffer.from(map({ sourcesContent: ["// built in /root/projects\n"] }))],
  ]);
  assert.deepEqual(tarballProblems("t.tgz", files, folders), [
    "t.tgz: dist/index.js:2: names the build machine's folder /srv/ci/",
    "t.tgz: dist/index.js.map:1: names the build machine's folder /root/",
  ]);
});

test("the machine's folders end in a separator and never include the file-system root", () => {
  const folders = machineFolders("/srv/checkout");
  assert.ok(folders.includes("/srv/checkout/"));
  assert.ok(folders.includes(homedir().endsWith("/") ? homedir() : `${homedir()}/`) || homedir().length <= 1);
  assert.ok(!folders.includes("/"));
  assert.deepEqual(
    machineFolders("/"),
    machineFolders("/").filter((f) => f !== "/")
  );
});

test("a tarball from npm pack is read whole, long paths included, and a leaking map in it is found", () => {
  const dir = mkdtempSync(join(tmpdir(), "act-tarball-test-"));
  try {
    const pkg = join(dir, "pkg");
    // Over 100 characters inside the package: npm writes it with a ustar prefix or a pax header.
    const deep = `dist/${"nested-folder-name/".repeat(6)}chunk.cjs.map`;
    mkdirSync(join(pkg, deep, ".."), { recursive: true });
    writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "fixture", version: "1.0.0", files: ["dist"] }));
    writeFileSync(join(pkg, "dist/index.cjs.map"), map({ file: join(pkg, "dist/index.cjs") }));
    writeFileSync(join(pkg, deep), map({ file: "chunk.cjs" }));
    const [packed] = JSON.parse(
      execFileSync("npm", ["pack", "--json", "--pack-destination", dir], { cwd: pkg, encoding: "utf8" })
    );
    const files = readTarball(join(dir, packed.filename));
    assert.deepEqual([...files.keys()].sort(), [deep, "dist/index.cjs.map", "package.json"].sort());
    assert.equal(JSON.parse(String(files.get(deep))).file, "chunk.cjs");
    const problems = tarballProblems(packed.filename, files, [`${dir}/`]);
    assert.deepEqual(problems, [
      `fixture-1.0.0.tgz: dist/index.cjs.map: file is the absolute path ${JSON.stringify(join(pkg, "dist/index.cjs"))}; make it relative to the map`,
      `fixture-1.0.0.tgz: dist/index.cjs.map:1: names the build machine's folder ${dir}/`,
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the rewrite after the build makes every path relative to the map and keeps the mappings", () => {
  const before = {
    version: 3,
    file: "/b/packages/act/dist/index.cjs",
    sources: ["/b/packages/act/dist/index.cjs", "../src/act.ts", "file:///b/packages/act/src/x.ts"],
    sourcesContent: [null, "export {}", "export {}"],
    mappings: "AAAA;AACA",
  };
  const after = relativeMap(before, "/b/packages/act/dist/index.cjs.map");
  assert.deepEqual(after, {
    ...before,
    file: "index.cjs",
    sources: ["index.cjs", "../src/act.ts", "../src/x.ts"],
  });
  assert.deepEqual(mapProblems("index.cjs.map", JSON.stringify(after)), []);
  // An absolute sourceRoot is folded into the sources and dropped.
  assert.deepEqual(
    relativeMap({ version: 3, sourceRoot: "/b/packages/act/", sources: ["src/a.ts"] }, "/b/packages/act/dist/a.js.map"),
    { version: 3, sources: ["../src/a.ts"] }
  );
  // A map that is relative already comes back as it was.
  const relative = { version: 3, file: "a.js", sourceRoot: "", sources: ["../src/a.ts"], mappings: "AAAA" };
  assert.deepEqual(relativeMap(relative, "/anywhere/dist/a.js.map"), relative);
});
