import { defineProject } from "vitest/config";
import { workspaceSources } from "../../vitest.sources.js";

export default defineProject({
  // The core's and the stores' sources, not their last build.
  resolve: { alias: workspaceSources },
  test: {
    name: "calculator",
    include: ["test/**/*.test.ts"],
    env: { NODE_ENV: "test" },
  },
});
