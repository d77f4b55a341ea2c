import type { afterAll, beforeEach, describe, expect, it } from "vitest";

/**
 * The test functions {@link storeConformance} registers its tests with:
 * vitest's `describe`, `it` (with `it.each`), `expect`, `beforeEach` and
 * `afterAll`. Pass vitest's module as it is.
 *
 * @experimental
 * @example
 * ```ts
 * import * as vitest from "vitest";
 *
 * const test: TestApi = vitest;
 * ```
 */
export type TestApi = {
  /** Groups tests. */
  describe: typeof describe;
  /** Declares a test; `it.each` declares one per row of a table. */
  it: typeof it;
  /** Asserts. */
  expect: typeof expect;
  /** Runs before each test of the enclosing group. */
  beforeEach: typeof beforeEach;
  /** Runs once after the last test of the enclosing group. */
  afterAll: typeof afterAll;
};
