import { defineProject } from "vitest/config";
import { workspaceSources } from "../../vitest.sources.js";

export default defineProject({
  // The core's sources, not its last build.
  resolve: { alias: workspaceSources },
  test: {
    name: "act-http",
    include: ["test/**/*.test.ts"],
    env: { NODE_ENV: "test" },
    testTimeout: 30_000,
  },
});
