import { fileURLToPath } from "node:url";
import { defineProject } from "vitest/config";

export default defineProject({
  resolve: {
    // The core and the Postgres store from their sources, one copy of each,
    // as the act-pg project does.
    alias: [
      {
        find: /^@act-root\/act\/internal$/,
        replacement: fileURLToPath(new URL("../act/src/internal/index.ts", import.meta.url)),
      },
      { find: /^@act-root\/act$/, replacement: fileURLToPath(new URL("../act/src/index.ts", import.meta.url)) },
      { find: /^@act-root\/act-pg$/, replacement: fileURLToPath(new URL("../act-pg/src/index.ts", import.meta.url)) },
      {
        find: /^@act-root\/act-sqlite$/,
        replacement: fileURLToPath(new URL("../act-sqlite/src/index.ts", import.meta.url)),
      },
    ],
  },
  test: {
    name: "inspector",
    include: ["test/**/*.test.ts"],
    env: { NODE_ENV: "test", LOG_LEVEL: "fatal" },
    // Starts a disposable PostgreSQL unless DATABASE_URL is set.
    globalSetup: ["./test/global-setup.ts"],
    poolOptions: { forks: { singleFork: true } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
