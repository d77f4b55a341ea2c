import { defineConfig, mergeConfig } from "vitest/config";
import base from "./vitest.config.js";

// The tests mutation testing runs for each change it makes: the package's
// tests, without those that start other processes or pack the package (they
// resolve tools from the repository root, and a mutant's sandbox has none;
// nor do they cover the mutated files' logic) and without the discovery
// scenarios on a 12,000-event log, and without the test of two copies of the
// library (it loads the built package beside the sources, whose path in a
// mutant's sandbox is not the repository's); the model-based tests at a few
// programs each, so every mutant is checked in seconds.
export default mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: [
        "test/logging.test.ts",
        "test/package.test.ts",
        "test/reactions/discovery.test.ts",
        "test/core/copies.test.ts",
        "**/node_modules/**",
      ],
      // Fresh random seeds stay off (`CI` unset): a test's name carries its
      // seed, and each mutant run must find the tests the first run covered by name.
      env: { CI: "", DEPLOY_RUNS: "3", OPS_RUNS: "2", DRAIN_RUNS: "4", MODEL_RUNS: "60" },
    },
  })
);
