import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "create-act-app",
    include: ["test/**/*.test.ts"],
    env: { NODE_ENV: "test" },
  },
});
