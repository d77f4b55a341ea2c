import { fileURLToPath } from "node:url";
import { defineProject } from "vitest/config";

export default defineProject({
  resolve: {
    // Run against the core's sources, which the shared conformance suite
    // (`@act-root/act/testing`) imports too, so `instanceof ConcurrencyError`
    // and the store port agree.
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
    ],
  },
  test: {
    name: "act-pg",
    include: ["test/**/*.test.ts"],
    env: { NODE_ENV: "test" },
    // Starts a disposable PostgreSQL unless DATABASE_URL or PGHOST is set.
    globalSetup: ["./test/global-setup.ts"],
    // One file at a time: the files share one server, and the visibility
    // tests hold transactions open on purpose (that holds back every reader
    // on the server, by design).
    poolOptions: { forks: { singleFork: true } },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
