// @ts-check
// npx vitest run --project site scripts/check-structure.test.mjs — the
// packages' sources have no import cycle and no file over the line limit
// (scripts/check-structure.mjs), and the check finds both when they are there.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, test } from "vitest";
import { check, MAX_LINES } from "./check-structure.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const made = [];

/**
 * A repository of one package whose `src/` holds `files`.
 * @param {Record<string, string>} files
 */
function repository(files) {
  const dir = mkdtempSync(join(tmpdir(), "structure-"));
  made.push(dir);
  for (const [path, text] of Object.entries(files)) {
    const file = join(dir, "packages/demo/src", path);
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, text);
  }
  return dir;
}

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

test("the packages' sources have no import cycle and no unlisted file over the limit", () => {
  assert.deepEqual(check(root), []);
});

test("finds an import cycle, type-only imports included, and names the files around it", () => {
  const dir = repository({
    "store.ts": 'import { append } from "./append.js";\nexport const store = append;\n',
    "append.ts": 'import type { Database } from "./io/database.js";\nexport const append = 1;\n',
    "io/database.ts": 'import { store } from "../store.js";\nexport type Database = typeof store;\n',
    "read.ts": 'import { store } from "./store.js";\nexport const read = store;\n',
  });
  assert.deepEqual(check(dir, {}), [
    "import cycle: packages/demo/src/append.ts → packages/demo/src/io/database.ts → packages/demo/src/store.ts → packages/demo/src/append.ts",
  ]);
});

test("refuses a file over the limit unless listed with a reason, and a listed file that is short", () => {
  const long = "export const x = 1;\n".repeat(MAX_LINES + 1);
  const dir = repository({ "long.ts": long, "short.ts": "export const y = 2;\n" });
  const [problem] = check(dir, {});
  assert.match(problem, /^packages\/demo\/src\/long\.ts has 501 lines, over 500/);
  assert.deepEqual(check(dir, { "packages/demo/src/long.ts": "one table of cases" }), []);
  assert.deepEqual(check(dir, { "packages/demo/src/long.ts": "one table", "packages/demo/src/short.ts": "was long" }), [
    "packages/demo/src/short.ts has 1 lines, no longer over 500: remove it from LONG_FILES",
  ]);
});
