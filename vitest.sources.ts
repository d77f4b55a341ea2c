import { fileURLToPath } from "node:url";

/**
 * Aliases from the published packages' names to their TypeScript sources,
 * for the vitest projects of the example apps (calculator, wolfdesk,
 * wolfdesk-http), which import the core and the stores by package name.
 *
 * Without them the name goes through the package's `exports` to its `dist/`
 * build, which is whatever was built last: a run after editing a package's
 * `src` would test the old build and pass. Each example has a test that fails
 * when `@act-root/act` resolves anywhere but here (`test/sources.test.ts`).
 * The store packages' own configs keep their aliases beside their tests.
 */
const source = (path: string) => fileURLToPath(new URL(`./packages/${path}`, import.meta.url));

export const workspaceSources = [
  // Before `@act-root/act`: the anchored patterns never overlap, but the subpath reads first.
  { find: /^@act-root\/act\/testing$/, replacement: source("act/src/testing/index.ts") },
  { find: /^@act-root\/act\/internal$/, replacement: source("act/src/internal/index.ts") },
  { find: /^@act-root\/act$/, replacement: source("act/src/index.ts") },
  { find: /^@act-root\/act-pg$/, replacement: source("act-pg/src/index.ts") },
  { find: /^@act-root\/act-sqlite$/, replacement: source("act-sqlite/src/index.ts") },
  { find: /^@act-root\/act-http$/, replacement: source("act-http/src/index.ts") },
];
