import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "act",
    include: ["test/**/*.test.ts"],
    env: { NODE_ENV: "test" },
    testTimeout: 30_000,
  },
});
