// Mutation testing of the core's committing, draining and leasing code:
// StrykerJS changes one thing at a time (a condition, an operator, a
// boundary) and runs the tests that cover it; a change no test notices is a
// survivor, a gap in the tests. `npm run test:mutation` at the repository
// root runs it (minutes, so not part of `npm test`; CI runs it on a
// schedule). Reports: reports/mutation/.
/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.config.ts" },
  plugins: ["@stryker-mutator/vitest-runner"],
  mutate: ["src/drain.ts"],
  coverageAnalysis: "perTest",
  concurrency: 2,
  ignoreStatic: true,
  reporters: ["clear-text", "progress", "json"],
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  timeoutMS: 20000,
};
