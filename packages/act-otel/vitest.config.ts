import { fileURLToPath } from "node:url";
import { defineProject } from "vitest/config";

export default defineProject({
  resolve: {
    // Run against the core's sources, as the other packages' tests do, so the
    // instrumentation and the apps under test share one copy of the core.
    alias: [
      {
        find: /^@act-root\/act\/internal$/,
        replacement: fileURLToPath(new URL("../act/src/internal/index.ts", import.meta.url)),
      },
      {
        find: /^@act-root\/act\/testing$/,
        replacement: fileURLToPath(new URL("../act/src/testing/index.ts", import.meta.url)),
      },
      { find: /^@act-root\/act$/, replacement: fileURLToPath(new URL("../act/src/index.ts", import.meta.url)) },
      {
        find: /^@act-root\/act-sqlite$/,
        replacement: fileURLToPath(new URL("../act-sqlite/src/index.ts", import.meta.url)),
      },
      {
        find: /^@act-root\/act-pg$/,
        replacement: fileURLToPath(new URL("../act-pg/src/index.ts", import.meta.url)),
      },
    ],
  },
  test: {
    name: "act-otel",
    include: ["test/**/*.test.ts"],
    env: { NODE_ENV: "test" },
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
