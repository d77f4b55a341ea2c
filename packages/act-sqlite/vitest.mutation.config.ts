import { defineConfig, mergeConfig } from "vitest/config";
import base from "./vitest.config.js";

// The tests mutation testing runs for each change it makes: the package's
// tests but those that start other processes (they resolve tools from the
// repository root, which a mutant's sandbox lacks), with the model-based
// tests at a few programs each so every mutant is checked in seconds.
export default mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: ["test/processes.test.ts", "test/discovery.test.ts", "**/node_modules/**"],
      // Fresh random seeds stay off (`CI` unset): a test's name carries its
      // seed, and each mutant run must find the tests the first run covered by name.
      env: { CI: "", DEPLOY_RUNS: "3", OPS_RUNS: "2", DISCOVERY_RUNS: "3" },
    },
  })
);
