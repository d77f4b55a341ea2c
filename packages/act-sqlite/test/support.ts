/** Temporary database files for the tests, removed when the test file ends. */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const root = mkdtempSync(join(tmpdir(), "act-sqlite-test-"));
// After the file's tests rather than on process exit: the test runner ends
// its worker processes without running exit handlers.
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
/** A path for a new database file in a fresh temporary directory. */
export function tempFile(name = "test.db"): string {
  const dir = join(root, String(n++));
  mkdirSync(dir);
  return join(dir, name);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const meta = { correlation: "c-1", causation: {} };
