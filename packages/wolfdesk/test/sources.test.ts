import * as act from "@act-root/act";
import * as pg from "@act-root/act-pg";
import * as sqlite from "@act-root/act-sqlite";
import * as testing from "@act-root/act/testing";
import { expect, test } from "vitest";
import * as actSource from "../../act/src/index.js";
import * as testingSource from "../../act/src/testing/index.js";
import * as pgSource from "../../act-pg/src/index.js";
import * as sqliteSource from "../../act-sqlite/src/index.js";

// The tests must run the core and the stores as they are in the repository,
// not their last build in dist/ (which a run after editing their sources
// would test instead).
test.each([
  ["@act-root/act", act, actSource, "packages/act/src/index.ts"],
  ["@act-root/act/testing", testing, testingSource, "packages/act/src/testing/index.ts"],
  ["@act-root/act-pg", pg, pgSource, "packages/act-pg/src/index.ts"],
  ["@act-root/act-sqlite", sqlite, sqliteSource, "packages/act-sqlite/src/index.ts"],
])("%s is its package's sources (vitest.sources.ts), not its dist build", (name, byName, bySource, path) => {
  expect(Object.is(byName, bySource), `${name} resolved to another module than ${path}`).toBe(true);
});
