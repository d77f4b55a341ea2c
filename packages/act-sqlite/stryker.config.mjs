// Mutation testing of the SQLite store's commit, lease, acknowledgement and
// block code: StrykerJS changes one thing at a time and runs the tests that
// cover it; a change no test notices is a survivor, a gap in the tests.
// `npm run test:mutation` at the repository root runs it (too slow for
// `npm test`; a scheduled workflow runs it). Reports: reports/mutation/.
/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  // Tests reach the store through the package and the shared suites, not by importing the file: run them all (each mutant then only those that cover it).
  vitest: { configFile: "vitest.mutation.config.ts", related: false },
  plugins: ["@stryker-mutator/vitest-runner"],
  // Whole files: commit and inline commit with idempotency keys; poll, lease, ack, block and the operator's calls on reaction streams; project.
  mutate: ["src/append.ts", "src/leases.ts", "src/projections.ts"],
  coverageAnalysis: "perTest",
  concurrency: 2,
  ignoreStatic: true,
  reporters: ["clear-text", "progress", "json"],
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  // `--incremental` keeps the results here (gitignored) and re-runs only the mutants whose code or tests changed.
  incrementalFile: "reports/mutation/stryker-incremental.json",
  thresholds: { high: 90, low: 80, break: null },
  // In place: the tests resolve the core through paths beside this package, which a sandbox copy lacks.
  inPlace: true,
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  timeoutMS: 15000,
};
