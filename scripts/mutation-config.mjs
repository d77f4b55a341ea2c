// @ts-check
// The settings every package's mutation run shares (StrykerJS with the vitest
// runner): each package's `stryker.config.mjs` says only what differs — the
// files it mutates, how its tests are found, whether it must run in place —
// so a change to how mutation runs (reporters, thresholds, the incremental
// file) is made once.

/**
 * A package's Stryker configuration.
 * @param {object} options
 * @param {string[]} options.mutate - the source files mutated (whole files)
 * @param {boolean} [options.related] - let vitest pick each mutant's tests by import (false when tests reach the code through the package's index or shared suites)
 * @param {boolean} [options.inPlace] - mutate the files where they are (for tests that resolve other packages through paths beside this one, which a sandbox copy lacks)
 * @param {number} [options.timeoutMS] - extra time a mutant's tests get before it counts as timed out
 * @returns {import("@stryker-mutator/api/core").PartialStrykerOptions}
 */
export function mutationConfig({ mutate, related = true, inPlace = false, timeoutMS = 15000 }) {
  return {
    testRunner: "vitest",
    vitest: { configFile: "vitest.mutation.config.ts", ...(related ? {} : { related: false }) },
    plugins: ["@stryker-mutator/vitest-runner"],
    mutate,
    coverageAnalysis: "perTest",
    concurrency: 2,
    ignoreStatic: true,
    reporters: ["clear-text", "progress", "json"],
    jsonReporter: { fileName: "reports/mutation/mutation.json" },
    // `--incremental` keeps the results here (gitignored) and re-runs only the mutants whose code or tests changed.
    incrementalFile: "reports/mutation/stryker-incremental.json",
    // At least 80 % per file is the target; a lower score is reported, not a failure.
    thresholds: { high: 90, low: 80, break: null },
    ...(inPlace ? { inPlace: true } : {}),
    tempDirName: ".stryker-tmp",
    cleanTempDir: "always",
    timeoutMS,
  };
}
