import { defineProject } from "vitest/config";
import base from "./vitest.config.js";

// The tests mutation testing runs for each change it makes to the commit,
// lease and acknowledgement code: the store's own tests and the shared
// suites (conformance, deploys, operator commands, evolution) on a few
// programs each, so every mutant is checked in seconds. Left out: the tests
// that start other processes (they load the built packages, not the
// mutated sources), start or restart servers of their own, rebuild a
// projection over 100,000 events, or run the long model-based programs.
// Fresh random seeds stay off (`CI` unset): a test's name carries its seed,
// and each mutant run must find the tests the first run covered by name.
export default defineProject({
  ...base,
  test: {
    ...base.test,
    include: [
      "test/postgres.conformance.test.ts",
      "test/postgres-store.test.ts",
      "test/append.test.ts",
      "test/leases.test.ts",
      "test/projections.test.ts",
      "test/concurrency.test.ts",
      "test/operations.test.ts",
      "test/inline-projection.test.ts",
      "test/settle.test.ts",
      "test/store-per-app.test.ts",
      "test/reactions.test.ts",
      "test/sqlstate.test.ts",
      "test/deploy.model.test.ts",
      "test/operations.model.test.ts",
      "test/evolution.test.ts",
    ],
    env: { ...base.test?.env, CI: "", DEPLOY_RUNS: "3", OPS_RUNS: "2", PG_INLINE_RUNS: "5" },
  },
});
