// @ts-check
// npx vitest run --project site scripts/cited-tests.test.mjs — every test the
// docs name as the proof of a promise exists under that name.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, test } from "vitest";
import { citations, names, uncitedProblems } from "./cited-tests.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

describe("cited tests", () => {
  test("every test the docs cite exists in the file they name, under the name they quote", () => {
    const { problems, checked } = uncitedProblems(root, join(root, "docs"));
    assert.deepEqual(problems, []);
    // The guarantees page alone cites over a hundred; far fewer means the citations stopped being found.
    assert.ok(checked > 100, `only ${checked} citations found`);
  });

  test("reads a file's citations up to the next citation, the end of a table cell or a blank line", () => {
    const page = [
      '| a | b | `packages/act/test/x.test.ts` "first one here" and "second one\n here"; store conformance "a conformance test name" | "not a citation at all" |',
      "",
      '`packages/act/test/y.test.ts` "only this one counts"',
      "",
      'Later "words in quotes here" cite nothing.',
    ].join("\n");
    assert.deepEqual(
      citations(page).map(({ file, name, line }) => [file, name, line]),
      [
        ["packages/act/test/x.test.ts", "first one here", 1],
        ["packages/act/test/x.test.ts", "second one here", 1],
        ["conformance", "a conformance test name", 2],
        ["packages/act/test/y.test.ts", "only this one counts", 4],
      ]
    );
  });

  test("finds a test by its title, its describe and title together, or the parts of a shortened name", () => {
    const source = [
      'describe("open transactions elsewhere", () => {',
      '  it("do not hold drains back", async () => {});',
      '  it.each([1, 2])("applies every event once (batched: %s)", async () => {});',
      "});",
    ].join("\n");
    assert.ok(names(source, "do not hold drains back"));
    assert.ok(names(source, "open transactions elsewhere do not hold drains back"));
    assert.ok(names(source, "applies every event once (batched: …)"));
    assert.ok(!names(source, "do not hold drains forward"));
    assert.ok(!names(source, "open transactions elsewhere hold drains back"));
  });

  test("reports a cited file that is gone, and a name no test in the file has", () => {
    const dir = mkdtempSync(join(tmpdir(), "cited-"));
    try {
      mkdirSync(join(dir, "docs"));
      mkdirSync(join(dir, "packages", "act", "src", "testing"), { recursive: true });
      mkdirSync(join(dir, "packages", "act", "test"), { recursive: true });
      writeFileSync(
        join(dir, "packages", "act", "src", "testing", "store-conformance.ts"),
        'it("holds one lease at a time", () => {});'
      );
      writeFileSync(join(dir, "packages", "act", "test", "a.test.ts"), 'it("commits once per key", () => {});');
      writeFileSync(
        join(dir, "docs", "page.mdx"),
        [
          '`packages/act/test/a.test.ts` "commits once per key" and "commits twice per key";',
          '`packages/act/test/gone.test.ts` "was here once";',
          'store conformance "holds one lease at a time" and "holds two leases at a time"',
        ].join("\n")
      );
      const { problems, checked } = uncitedProblems(dir, join(dir, "docs"));
      assert.equal(checked, 5);
      assert.deepEqual(problems, [
        'docs/page.mdx:1: cites "commits twice per key" in packages/act/test/a.test.ts, which has no test of that name',
        "docs/page.mdx:2: cites packages/act/test/gone.test.ts, which does not exist",
        'docs/page.mdx:3: cites "holds two leases at a time" in the store conformance suites, which has no test of that name',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
