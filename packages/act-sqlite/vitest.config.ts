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
    name: "act-sqlite",
    include: ["test/**/*.test.ts"],
    env: { NODE_ENV: "test", LOG_LEVEL: "fatal" },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
