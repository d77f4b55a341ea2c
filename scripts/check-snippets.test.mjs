// Self-test of scripts/check-snippets.mjs: a page whose snippets compile
// passes, a deliberately broken snippet fails with its MDX file and line,
// the hidden `check:` prelude and titled modules work, docs/api is skipped,
// and a page can import only what a reader can install.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll as after, beforeAll as before, test } from "vitest";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const script = join(dirname(fileURLToPath(import.meta.url)), "check-snippets.mjs");
const dirs = [];
/**
 * Runs a script without blocking this worker (a long synchronous wait makes
 * the test runner's own messages time out): exit status and all it printed.
 */
const run = (args) =>
  new Promise((done) => {
    execFile(process.execPath, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      done({ status: error ? (error.code ?? 1) : 0, out: `${stdout}${stderr}` })
    );
  });

/** The published packages, packed once for every case (the checker would pack them on each run). */
const packs = mkdtempSync(join(tmpdir(), "snippets-packs-"));
dirs.push(packs);
before(async () => {
  const packed = await run([join(dirname(script), "pack-local.mjs"), "--no-build", packs]);
  assert.equal(packed.status, 0, packed.out);
}, 300_000);
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Writes `files` (path → text) into a fresh docs folder and runs the checker on it. */
function check(files) {
  const dir = mkdtempSync(join(tmpdir(), "snippets-"));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return run([script, "--docs", dir, "--packs", packs]);
}

const counter = [
  "# Page",
  "",
  '```ts title="counter.ts"',
  'import { state } from "@act-root/act";',
  'import { z } from "zod";',
  'export const Counter = state("Counter", z.object({ n: z.number() }))',
  "  .init(() => ({ n: 0 }))",
  "  .emits({ Added: z.object({ by: z.number() }) })",
  "  .patch({ Added: (e, s) => ({ n: s.n + e.data.by }) })",
  '  .on("add", z.object({ by: z.number() }))',
  '  .emit(({ by }) => ["Added", { by }])',
  "  .build();",
  "```",
  "",
].join("\n");

test("snippets that compile pass, titled modules import each other, the prelude is hidden context", async () => {
  const page = [
    counter,
    '{/* check: import { Counter } from "./counter.js"; */}',
    "```ts",
    'import { act } from "@act-root/act";',
    "const app = act().with(Counter).build();",
    'await app.do("add", { stream: "c", actor: { id: "a", name: "A" } }, { by: 1 });',
    "```",
    "",
  ].join("\n");
  const { status, out } = await check({
    "guide.mdx": page,
    "api/ignored.mdx": "```ts\nconst x: number = 'no';\n```\n",
  });
  assert.equal(status, 0, out);
  assert.match(out, /2 TypeScript blocks/);
});

test("a broken snippet fails, naming the MDX file and line", async () => {
  const page = [
    counter,
    '{/* check: import { Counter } from "./counter.js"; */}',
    "```ts",
    'import { act } from "@act-root/act";',
    "const app = act().with(Counter).build();",
    'await app.do("add", { stream: "c", actor: { id: "a", name: "A" } }, { by: "one" });',
    "```",
    "",
    "```ts",
    'import { nothing } from "@act-root/act";',
    "```",
    "",
  ].join("\n");
  const { status, out } = await check({ "concepts/broken.mdx": page });
  assert.equal(status, 1, out);
  // Line 19 of the page is the `await app.do(...)` line (after the prelude comment).
  assert.match(out, /concepts\/broken\.mdx:19:\d+ error TS2322/);
  assert.match(out, /concepts\/broken\.mdx:23:\d+ error TS2305/);
});

test("a text block must be checked output or say it is illustrative", async () => {
  const page = [
    "Text.",
    "",
    "```text",
    "42",
    "```",
    "",
    '```text title="A log line (illustrative)"',
    "x",
    "```",
    "",
  ].join("\n");
  const { status, out } = await check({ "t.mdx": page });
  assert.equal(status, 1, out);
  assert.match(out, /t\.mdx:3 a `text` block claims output nothing checks/);
  assert.doesNotMatch(out, /t\.mdx:7/);
});

test("a syntax error fails too", async () => {
  const { status, out } = await check({ "a.mdx": "Text.\n\n```tsx\nconst = 1;\n```\n" });
  assert.equal(status, 1, out);
  assert.match(out, /a\.mdx:4:\d+ error TS1134/);
});

test("another library's block is skipped when marked with its package, and the marker cannot hide ours", async () => {
  const theirs = [
    counter,
    '```ts title="Before" other="@someone/events"',
    'import { decide } from "@someone/events";',
    "const state: number = decide('not a number', { not: 'checked' });",
    "```",
    "",
  ].join("\n");
  const passing = await check({ "migrating.mdx": theirs });
  assert.equal(passing.status, 0, passing.out);
  assert.match(passing.out, /1 blocks of other libraries not checked/);

  const hiding = [
    counter,
    '```ts other="@someone/events"',
    'import { act } from "@act-root/act";',
    "const x: number = 'ours, and broken';",
    "```",
    "",
    '```ts other="@someone/events"',
    'import { z } from "zod";',
    "```",
    "",
  ].join("\n");
  const failing = await check({ "migrating.mdx": hiding });
  assert.equal(failing.status, 1, failing.out);
  assert.match(failing.out, /migrating\.mdx:15 a block marked other="@someone\/events" imports @act-root/);
  assert.match(
    failing.out,
    /migrating\.mdx:20 a block marked other="@someone\/events" does not import "@someone\/events"/
  );
});

// Snippets that show their output are run against the built packages, and
// what they print must be what the page shows.

const shop = [
  counter,
  '```ts title="app.ts"',
  'import { act } from "@act-root/act";',
  'import { Counter } from "./counter.js";',
  "export const app = act().with(Counter).build();",
  'export const target = { stream: "c", actor: { id: "a", name: "A" } };',
  "```",
  "",
].join("\n");

test("output that the snippet really prints passes, in both forms, and the packages resolve to the packed dist", async () => {
  const page = [
    shop,
    '{/* check: import { app, target } from "./app.js"; */}',
    "```ts",
    'const [snap] = await app.do("add", target, { by: 2 });',
    "console.log(snap.state); // { n: 2 }",
    "console.log(snap.event?.name, snap.event?.version); // Added 0",
    "// An explanation on its own line is not a claim:",
    'console.log("ok");',
    // Resolved through the workspace link, this would be the repository's packages/act/dist/index.js.
    'console.log(import.meta.resolve("@act-root/act").replace(/.*\\/node_modules\\//, "")); // @act-root/act/dist/index.js',
    "```",
    "",
    '{/* check: import { app, target } from "./app.js"; */}',
    "```ts",
    "for (const by of [1, 2]) {",
    '  const [snap] = await app.do("add", target, { by });',
    "  console.log(snap.event?.version, snap.state);",
    "}",
    "```",
    "",
    '```text title="Output"',
    "0 { n: 1 }   ",
    "1 { n: 3 }",
    "",
    "```",
    "",
  ].join("\n");
  const { status, out } = await check({ "guide.mdx": page });
  assert.equal(status, 0, out);
  assert.match(out, /4 ran \(2 of them compared with the output the page shows\)/);
});

test("every block runs, not only those that show output; vitest blocks run as tests; allow-listed blocks do not run", async () => {
  const page = [
    shop,
    '{/* check: import { app, target } from "./app.js"; */}',
    "```ts",
    'await app.do("add", target, { by: 1 });',
    'if (process.env.NODE_ENV === "test") throw new Error("a block without output that throws");',
    "```",
    "",
    '{/* check: import { expect, it } from "vitest"; import { app, target } from "./app.js"; */}',
    "```ts",
    'it("adds", async () => {',
    '  const [snap] = await app.do("add", target, { by: 2 });',
    "  expect(snap.state.n).toBe(3);",
    "});",
    "```",
    "",
  ].join("\n");
  const { status, out } = await check({ "guide.mdx": page });
  assert.equal(status, 1, out);
  assert.match(out, /guide\.mdx:24 failed when run[\s\S]*a block without output that throws/);
  assert.match(out, /guide\.mdx:30 failed as a vitest test[\s\S]*expected 2 to be 3/);
  assert.match(out, /3 ran \(0 of them compared[\s\S]*1 ran as vitest tests, 0 allow-listed/);
});

test("output the snippet does not print fails, naming the page line, the expected and the actual text", async () => {
  const page = [
    shop,
    '{/* check: import { app, target } from "./app.js"; */}',
    "```ts",
    'const [snap] = await app.do("add", target, { by: 2 });',
    "console.log(snap.state); // { n: 3 }", // line 25: wrong value
    'console.log("Cart must not be empty"); // "Cart must not be empty"', // 26: quoted, but printed without quotes
    "console.log(snap.state.n); // the new count", // 27: prose is a claim too
    "if (snap.state.n > 5) console.log(snap.state.n); // 6", // 28: never runs
    "```",
    "",
    '{/* check: import { app, target } from "./app.js"; */}',
    "```ts",
    'const [first] = await app.do("add", target, { by: 1 });',
    'const [second] = await app.do("add", target, { by: 2 });',
    "console.log(first.event?.version, first.state);",
    "console.log(second.event?.version, second.state);",
    "```",
    "",
    '```text title="Output"',
    "0 { n: 1 }", // line 40: right (each block runs in a process of its own, from version 0)
    "1 { n: 5 }", // 41: wrong, it prints `1 { n: 3 }`
    "```",
    "",
    '```ts title="broken.ts"',
    'console.log("before");',
    'throw new Error("boom");',
    "```",
    "",
    '```text title="Output"',
    "before",
    "```",
    "",
    "```ts",
    "const sum = 1 + 1;",
    "// → 2", // line 55: an unchecked claim
    "```",
    "",
    "Prose between.",
    "",
    '```text title="Output"', // line 60: belongs to no block
    "2",
    "```",
    "",
  ].join("\n");
  const { status, out } = await check({ "concepts/claims.mdx": page });
  assert.equal(status, 1, out);
  assert.doesNotMatch(out, /error TS/, "the fixture itself type-checks");
  assert.match(
    out,
    /claims\.mdx:25 the comment is not what this console\.log prints\n\s+expected: "\{ n: 3 \}"\n\s+actual: {3}"\{ n: 2 \}"/
  );
  assert.match(
    out,
    /claims\.mdx:26 the comment .*\n\s+expected: "\\"Cart must not be empty\\""\n\s+actual: {3}"Cart must not be empty"/
  );
  assert.match(out, /claims\.mdx:27 the comment .*\n\s+expected: "the new count"\n\s+actual: {3}"2"/);
  assert.match(out, /claims\.mdx:28 this console\.log never ran/);
  assert.match(
    out,
    /claims\.mdx:41 the Output block differs .*line 33.*\n\s+expected: "1 \{ n: 5 \}"\n\s+actual: {3}"1 \{ n: 3 \}"/
  );
  assert.doesNotMatch(out, /claims\.mdx:40 /);
  assert.match(out, /claims\.mdx:45 failed when run \(exit 1\)[\s\S]*Error: boom/);
  assert.match(out, /claims\.mdx:55 a `\/\/ → value` comment is not checked/);
  assert.match(out, /claims\.mdx:60 an Output block must follow a `ts` block directly/);
});

test("a block that imports a package a reader cannot install fails, naming the page, the line and the package", async () => {
  const page = [
    "# Page",
    "",
    '{/* check: import { app } from "@act-root/calculator"; */}',
    "```ts",
    'import { Ticket } from "@act-root/wolfdesk";', // line 5: a private example app
    'import { z } from "zod";',
    'import { nothing } from "@act-root/nope/sub";', // 7: no such package
    'import leftPad from "left-pad-the-lockfile-lacks";', // 8: a third-party package the check cannot install
    "console.log(app, Ticket, z, nothing, leftPad);",
    "```",
    "",
    "```ts",
    'import { inspect } from "@act-root/inspector";', // 13: published, so it resolves and runs
    "console.log(typeof inspect); // function",
    "```",
    "",
  ].join("\n");
  const { status, out } = await check({ "guides/private.mdx": page });
  assert.equal(status, 1, out);
  assert.match(
    out,
    /private\.mdx:5 \(in its check: comment\) imports @act-root\/calculator, which is not published; a reader cannot install it/
  );
  assert.match(out, /private\.mdx:5 imports @act-root\/wolfdesk, which is not published; a reader cannot install it/);
  assert.match(out, /private\.mdx:7 imports @act-root\/nope\/sub, which is not published/);
  assert.match(
    out,
    /private\.mdx:8 imports left-pad-the-lockfile-lacks, which the repository's lockfile does not hold/
  );
  assert.doesNotMatch(out, /zod/, "a third-party package in the lockfile installs");
  assert.doesNotMatch(out, /failed when run/, "a block a reader cannot install is not run as well");
  assert.doesNotMatch(out, /private\.mdx:1[3-5]/, "the published inspector resolves, type-checks and prints");
  // Its claimed output was printed: a claim that fails, or never runs, would be listed under this heading.
  assert.doesNotMatch(out, /output shown in docs\/ is not what the snippet prints/);
});
