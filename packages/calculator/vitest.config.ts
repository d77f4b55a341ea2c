import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "calculator",
    include: ["test/**/*.test.ts"],
    env: { NODE_ENV: "test" },
  },
});
