import { defineConfig } from "vitest/config";

// One project per workspace package (each has its own vitest.config.ts);
// coverage is collected across all of them and printed by `npm test`.
export default defineConfig({
  test: {
    projects: ["packages/*/vitest.config.ts"],
    coverage: {
      provider: "v8",
      include: [
        "packages/act/src/**/*.ts",
        "packages/act-pg/src/**/*.ts",
        "packages/act-sqlite/src/**/*.ts",
        "packages/act-otel/src/**/*.ts",
      ],
      reporter: ["text-summary", "text"],
      thresholds: {
        "packages/act/src/**": { lines: 90, branches: 90 },
        // What the act-pg tests reach (98.8% lines and statements, 98.4%
        // functions, 91.1% branches), less a margin for the fault tests,
        // whose timing decides which retry branches a run takes.
        "packages/act-pg/src/**": { lines: 97, statements: 97, functions: 96, branches: 89 },
      },
    },
  },
});
