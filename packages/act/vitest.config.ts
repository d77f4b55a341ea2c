import { fileURLToPath } from "node:url";
import { defineProject } from "vitest/config";

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineProject({
  resolve: {
    // Tests import the package's entry points by name where users would (the
    // conformance suite comes from "@act-root/act/testing"); they resolve to
    // the sources, so the suite and the stores under test share one copy of
    // the error classes and ports, and no build is needed first.
    alias: [
      { find: /^@act-root\/act\/testing$/, replacement: source("src/testing/index.ts") },
      { find: /^@act-root\/act\/internal$/, replacement: source("src/internal/index.ts") },
      { find: /^@act-root\/act$/, replacement: source("src/index.ts") },
    ],
  },
  test: {
    name: "act",
    include: ["test/**/*.test.ts"],
    env: { NODE_ENV: "test" },
    testTimeout: 30_000,
  },
});
