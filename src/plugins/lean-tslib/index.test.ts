// Docusaurus' client code takes only the tslib helpers the stand-in has.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, test } from "vitest";
import { HELPERS, ISSUER, STAND_IN } from "./index";

const require = createRequire(import.meta.url);

describe("lean-tslib: Docusaurus' client code takes only the helpers the stand-in has from tslib", () => {
  test("@docusaurus/utils-common uses no other tslib helper, and is where the swap expects it", () => {
    const lib = join(dirname(require.resolve("@docusaurus/utils-common")), ".");
    assert.match(join(lib, "index.js"), ISSUER);
    const used = new Set<string>();
    for (const file of readdirSync(lib).filter((f) => f.endsWith(".js")))
      for (const m of readFileSync(join(lib, file), "utf8").matchAll(/tslib_\d+\.(\w+)/g)) used.add(m[1]);
    assert.ok(used.size > 0, "the package no longer uses tslib: the plugin can go");
    assert.deepEqual(
      [...used].filter((helper) => !HELPERS.includes(helper)),
      [],
      "helpers the stand-in lacks"
    );
  });

  test("the stand-in's helper does what tslib's does", async () => {
    const standIn = await import(STAND_IN);
    const tslib = require("tslib");
    for (const mod of [{ __esModule: true, default: 1 }, { a: 1 }, () => 2]) {
      assert.deepEqual(standIn.__importDefault(mod), tslib.__importDefault(mod));
    }
  });
});
