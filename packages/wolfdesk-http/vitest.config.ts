import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "wolfdesk-http",
    include: ["test/**/*.test.ts"],
    env: { NODE_ENV: "test" },
    testTimeout: 30_000,
  },
});
