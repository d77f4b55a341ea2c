import { defineConfig } from "vitest/config";

// One project per workspace package (each has its own vitest.config.ts),
// plus the documentation site's: `site` (its plugins, client modules and
// scripts, beside the code they test; no build needed) and `site-build`
// (the built site, after `node scripts/site-build.mjs`; `npm run test:site`).
// Coverage is collected across the packages and printed by `npm test`.
// `npm run test:unit` (ACT_UNIT_ONLY) runs no PostgreSQL test and
// `npm run test:postgres` (ACT_POSTGRES_ONLY) only those: each run holds the
// coverage thresholds of the code it tests.
const CORE = { "packages/act/src/**": { lines: 90, branches: 90 } };
// The SQLite store and the OpenTelemetry package, run without PostgreSQL
// (94.4% lines, 94.4% branches and 95.7% functions for act-sqlite; 97.3%,
// 84.4% and 96.9% for act-otel on 28 November 2026), less a margin for the
// process tests, whose timing decides which retry branches a run takes.
const UNIT = {
  ...CORE,
  "packages/act-sqlite/src/**": { lines: 92, branches: 91, functions: 93 },
  "packages/act-otel/src/**": { lines: 95, branches: 80, functions: 94 },
  // The HTTP package (99.2% lines, 89.9% branches, 98.2% functions on 29
  // November 2026), less a margin for the event streams' and shutdown's
  // timing, which decides whether a poll or a wake-up ends a pause.
  "packages/act-http/src/**": { lines: 97, branches: 86, functions: 95 },
  // The inspector's server and CLI as the unit run reaches them (68.0% lines,
  // 81.8% branches, 85.4% functions on 28 November 2026): its PostgreSQL
  // catalog is reached by the PostgreSQL run only, and its page by the
  // browser tests, outside this coverage.
  "packages/inspector/src/**": { lines: 65, branches: 78, functions: 82 },
};
// What the act-pg tests reach (98.8% lines and statements, 98.4%
// functions, 91.1% branches), less a margin for the fault tests, whose
// timing decides which retry branches a run takes.
const POSTGRES = { "packages/act-pg/src/**": { lines: 97, statements: 97, functions: 96, branches: 89 } };
const thresholds = process.env.ACT_UNIT_ONLY
  ? UNIT
  : process.env.ACT_POSTGRES_ONLY
    ? POSTGRES
    : { ...CORE, ...POSTGRES };

export default defineConfig({
  test: {
    projects: [
      "packages/*/vitest.config.ts",
      {
        test: {
          name: "site",
          include: [
            "src/**/*.test.ts",
            "scripts/**/*.test.ts",
            "scripts/site-links.test.mjs",
            "scripts/pages-server.test.mjs",
            "scripts/check-workflows.test.mjs",
            "scripts/check-tarball.test.mjs",
            "scripts/references.test.mjs",
            "scripts/check-structure.test.mjs",
            "scripts/limitations.test.mjs",
            "scripts/run-tests.test.mjs",
            "scripts/docs-versions.test.mjs",
            "scripts/release-notes.test.mjs",
            "scripts/cut-docs-version.test.mjs",
            "scripts/cited-tests.test.mjs",
            "e2e/server.test.mjs",
          ],
          environment: "node",
          // The Pages-like server's tests make real requests; generous on a busy machine, no timing asserted.
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: "snippets",
          // The snippet checker's self-test runs the checker (tsc, tsx) on small pages: after `build:packages`.
          include: ["scripts/check-snippets.test.mjs"],
          environment: "node",
          testTimeout: 300_000,
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
      {
        test: {
          // Builds a copy of the site with a cut release (about three minutes)
          // and checks it; it needs no build of this site, so `npm test` runs it
          // beside the browser tests instead of before them.
          name: "site-versions",
          include: ["scripts/site-versions.test.mjs"],
          environment: "node",
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
        "packages/act-http/src/**/*.ts",
        "packages/inspector/src/**/*.ts",
      ],
      // The inspector's page runs in the browser, tested by Playwright.
      exclude: ["packages/inspector/src/web/**"],
      reporter: ["text-summary", "text"],
      // Its own folder per run, so the unit and PostgreSQL runs can go side by side.
      reportsDirectory: process.env.ACT_UNIT_ONLY
        ? "coverage/unit"
        : process.env.ACT_POSTGRES_ONLY
          ? "coverage/postgres"
          : "coverage",
      thresholds,
    },
  },
});
