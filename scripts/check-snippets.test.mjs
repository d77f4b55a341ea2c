// Self-test of scripts/check-snippets.mjs: a page whose snippets compile
// passes, a deliberately broken snippet fails with its MDX file and line,
// the hidden `check:` prelude and titled modules work, docs/api is skipped.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const script = join(dirname(fileURLToPath(import.meta.url)), "check-snippets.mjs");
const dirs = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Writes `files` (path → text) into a fresh docs folder and runs the checker on it. */
function check(files) {
  const dir = mkdtempSync(join(tmpdir(), "snippets-"));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const run = spawnSync(process.execPath, [script, "--docs", dir], { encoding: "utf8" });
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
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

test("snippets that compile pass, titled modules import each other, the prelude is hidden context", () => {
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
  const { status, out } = check({ "guide.mdx": page, "api/ignored.mdx": "```ts\nconst x: number = 'no';\n```\n" });
  assert.equal(status, 0, out);
  assert.match(out, /2 TypeScript blocks/);
});

test("a broken snippet fails, naming the MDX file and line", () => {
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
  const { status, out } = check({ "concepts/broken.mdx": page });
  assert.equal(status, 1, out);
  // Line 19 of the page is the `await app.do(...)` line (after the prelude comment).
  assert.match(out, /concepts\/broken\.mdx:19:\d+ error TS2322/);
  assert.match(out, /concepts\/broken\.mdx:23:\d+ error TS2305/);
});

test("a syntax error fails too", () => {
  const { status, out } = check({ "a.mdx": "Text.\n\n```tsx\nconst = 1;\n```\n" });
  assert.equal(status, 1, out);
  assert.match(out, /a\.mdx:4:\d+ error TS1134/);
});
