import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts"],
    env: { NODE_ENV: "test" },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    coverage: {
      provider: "v8",
      include: ["packages/act/src/**/*.ts", "packages/act-pg/src/**/*.ts"],
      reporter: ["text-summary", "text"],
      thresholds: { "packages/act/src/**": { lines: 90, branches: 90 } },
    },
  },
});
