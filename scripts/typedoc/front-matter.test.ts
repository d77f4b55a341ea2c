import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { describe, test } from "vitest";
import { inEntryPointOrder, stabilityOf, withoutSymbolFlag } from "./front-matter.mjs";

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

describe("front-matter: a symbol's stability tag becomes the page's stability", () => {
  const comment = (...tags: string[]) => ({ modifierTags: new Set(tags) });

  test("a declaration's @experimental or @stable", () => {
    assert.equal(stabilityOf({ comment: comment("@experimental") }), "experimental");
    assert.equal(stabilityOf({ comment: comment("@stable", "@readonly") }), "stable");
  });

  test("a function's tag, which TypeDoc keeps on its signature", () => {
    assert.equal(stabilityOf({ signatures: [{ comment: comment("@experimental") }] }), "experimental");
  });

  test("no tag, no comment or no page model: no stability", () => {
    assert.equal(stabilityOf({ comment: comment("@readonly") }), undefined);
    assert.equal(stabilityOf({ signatures: [{}] }), undefined);
    assert.equal(stabilityOf(undefined), undefined);
  });
});

describe("front-matter: the badge replaces TypeDoc's line for the symbol's stability", () => {
  const page = [
    "# Interface: Store",
    "",
    "Defined in: [ports.ts:62](x)",
    "",
    "**`Experimental`**",
    "",
    "The store port.",
    "",
    "### commit()",
    "",
    "**`Experimental`**",
    "",
    "| `code` | `string` | **`Experimental`** the code |",
  ].join("\n");

  test("the symbol's own line goes; its members' tags stay", () => {
    const out = withoutSymbolFlag(page, "experimental");
    assert.equal(out.split("**`Experimental`**").length - 1, 2);
    assert.match(out, /Defined in: \[ports\.ts:62\]\(x\)\n\nThe store port\./);
  });

  test("a page whose tag is another level is left as it is", () => {
    assert.equal(withoutSymbolFlag(page, "stable"), page);
  });
});
