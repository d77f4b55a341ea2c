import { defineConfig } from "vitest/config";

// One project per workspace package (each has its own vitest.config.ts),
// plus the documentation site's: `site` (its plugins, client modules and
// scripts, beside the code they test; no build needed) and `site-build`
// (the built site, after `node scripts/site-build.mjs`; `npm run test:site`).
// Coverage is collected across the packages and printed by `npm test`.
export default defineConfig({
  test: {
    projects: [
      "packages/*/vitest.config.ts",
      {
        test: {
          name: "site",
          include: ["src/**/*.test.ts", "scripts/**/*.test.ts", "scripts/site-links.test.mjs"],
          environment: "node",
        },
      },
      {
        test: {
          name: "site-build",
          include: ["scripts/site.test.mjs"],
          environment: "node",
          // Reads the whole build; slow on a busy machine, but no timing is asserted.
          testTimeout: 120_000,
        },
      },
    ],
    coverage: {
      provider: "v8",
      include: [
        "packages/act/src/**/*.ts",
        "packages/act-pg/src/**/*.ts",
        "packages/act-sqlite/src/**/*.ts",
        "packages/act-otel/src/**/*.ts",
      ],
      reporter: ["text-summary", "text"],
      thresholds: { "packages/act/src/**": { lines: 90, branches: 90 } },
    },
  },
});
