import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { describe, test } from "vitest";
import { inEntryPointOrder } from "./front-matter.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("front-matter: the API index lists the packages in entry-point order", () => {
  const index = [
    "## Modules",
    "",
    "| Module | Description |",
    "| ------ | ------ |",
    "| [@act-root/act-pg](act-pg/src/index.md) | the PostgreSQL store |",
    "| [@act-root/act](act/src/index.md) | the library |",
    "",
    "| [not a module row](elsewhere.md) | stays |",
  ].join("\n");

  test("the core package comes first, whatever the folders' alphabetical order", () => {
    const sorted = inEntryPointOrder(index, [
      `${root}packages/act/src/index.ts`,
      `${root}packages/act-pg/src/index.ts`,
    ]);
    const rows = sorted.split("\n").filter((line) => line.startsWith("| ["));
    assert.deepEqual(rows, [
      "| [@act-root/act](act/src/index.md) | the library |",
      "| [@act-root/act-pg](act-pg/src/index.md) | the PostgreSQL store |",
      "| [not a module row](elsewhere.md) | stays |",
    ]);
  });

  test("another entry-point order is followed too", () => {
    const sorted = inEntryPointOrder(index, ["packages/act-pg/src/index.ts", "packages/act/src/index.ts"]);
    assert.equal(sorted, index);
  });
});
