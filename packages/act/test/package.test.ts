import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
/** Temporary folders this file made, removed after its tests. */
const temporary: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temporary.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});
const run = (cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) =>
  execFileSync(cmd, args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });

/** Newest modification time of a file under `dir`, or 0 when it does not exist. */
const newest = (dir: string): number => {
  try {
    return Math.max(
      0,
      ...readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => statSync(join(entry.parentPath, entry.name)).mtimeMs)
    );
  } catch {
    return 0;
  }
};

/**
 * Whether `dist` was built from the sources as they are now. `npm test` builds
 * the packages first, and other suites read this `dist` while this one runs,
 * so it is rebuilt only when a source or the package file changed after it.
 */
const built = () =>
  newest(join(root, "dist")) > Math.max(newest(join(root, "src")), statSync(join(root, "package.json")).mtimeMs);

/** A consumer that exercises the published entry point: build, act, commit, load. */
const program = (load: string) => `
${load}
const { z } = zod;
const Counter = act.state("Counter", z.object({ n: z.number() }))
  .init(() => ({ n: 0 }))
  .emits({ Added: z.object({ by: z.number() }) })
  .patch({ Added: (e, s) => ({ n: s.n + e.data.by }) })
  .on("add", z.object({ by: z.number() }))
  .emit(({ by }) => ["Added", { by }])
  .build();
let reacted = 0;
const app = act.act().with(Counter).on("Added").do(async () => { reacted++; }).to("audit").build();
(async () => {
  await app.do("add", { stream: "s", actor: { id: "1", name: "a" } }, { by: 2 });
  const { state } = await app.load(Counter, "s");
  const bad = await app.do("add", { stream: "s", actor: { id: "1", name: "a" } }, { by: "x" }).catch((e) => e.name);
  // The test kit drives the app's own store port: its reaction runs once.
  const settled = await testing.settle(app);
  console.log(JSON.stringify({
    n: state.n, bad, reacted, drains: settled.drains,
    exports: Object.keys(act).filter((k) => k !== 'default').sort(),
    testing: Object.keys(testing).filter((k) => k !== 'default').sort(),
    internal: Object.keys(internal).filter((k) => k !== 'default').sort(),
  }));
  await act.disposeAndExit("EXIT");
})();
`;

/** Every runtime export of the contract (types vanish at run time). */
const values = [
  "Act",
  "ConcurrencyError",
  "InvariantError",
  "ValidationError",
  "StoreError",
  "BuilderError",
  "NotSettledError",
  "IdempotencyKeyReusedError",
  "StreamClosedError",
  "StreamArchivedError",
  "CLOSE_EVENT",
  "Closing",
  "ClosedSchema",
  "InMemoryStore",
  "act",
  "build_tracer",
  "NameSchema",
  "config",
  "dispose",
  "disposeAndExit",
  "extend",
  "patch",
  "port",
  "projection",
  "sleep",
  "state",
  "validate",
  "ActorSchema",
  "CausationEventSchema",
  "CommittedMetaSchema",
  "Environments",
  "Errors",
  "EventMetaSchema",
  "ExitCodes",
  "logger",
  "LogLevels",
  "QuerySchema",
  "SNAP_EVENT",
  "store",
  "TargetSchema",
  "ZodEmpty",
  "StreamSchema",
  "MAX_STREAM_LENGTH",
  "upcaster",
  "observe",
  "TraceContextSchema",
  "copyStore",
  "logDigest",
  "CopyError",
  "FORGOTTEN",
  "PersonalDataError",
  "forgettable",
  "Tenants",
  "TenantError",
];

describe("the published package", () => {
  let consumer: string;

  beforeAll(() => {
    if (!built()) run("npm", ["run", "build"], root);
    const packDir = tempDir("act-pack-");
    const tarball = run("npm", ["pack", "--silent", "--pack-destination", packDir], root).trim().split("\n").pop()!;
    consumer = tempDir("act-consumer-");
    writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true }));
    run(
      "npm",
      ["install", "--no-audit", "--no-fund", "--prefer-offline", "--omit=dev", join(packDir, tarball), "zod@^4"],
      consumer
    );
    // vitest is not installed here: the test kit must load without it.
    writeFileSync(
      join(consumer, "esm.mjs"),
      program(
        `import * as act from "@act-root/act"; import * as testing from "@act-root/act/testing"; import * as internal from "@act-root/act/internal"; import * as zod from "zod";`
      )
    );
    writeFileSync(
      join(consumer, "cjs.cjs"),
      program(
        `const act = require("@act-root/act"); const testing = require("@act-root/act/testing"); const internal = require("@act-root/act/internal"); const zod = require("zod");`
      )
    );
  }, 180_000);

  // Run from an empty folder (no package.json) with NODE_ENV=production and no pino-pretty installed.
  it.each(["esm.mjs", "cjs.cjs"])("imports and runs from %s", (file) => {
    const elsewhere = tempDir("act-cwd-");
    const out = run("node", [join(consumer, file)], elsewhere, { NODE_ENV: "production", LOG_LEVEL: "fatal" });
    const result = JSON.parse(out.trim().split("\n").pop()!);
    expect(result.n).toBe(2);
    expect(result.bad).toBe("ERR_VALIDATION");
    expect(result.exports).toEqual([...values].sort());
    expect(result.testing).toEqual([
      "SettleError",
      "personalDataProof",
      "projectEvents",
      "settle",
      "storeConformance",
      "tenantConformance",
      "testClock",
    ]);
    // What the stores share with the core, out of the main entry point.
    expect(result.internal).toEqual([
      "OptionSchemas",
      "checkArchiveMove",
      "checkCommit",
      "checkDiscovery",
      "checkName",
      "checkNow",
      "checkOptions",
      "checkPurge",
      "checkScheduled",
      "checkTenantId",
      "checkTimerChanges",
      "checkTimerClaim",
      "checkTimerIds",
      "checkTimerOutcomes",
      "stringifyJson",
    ]);
    expect(result).toMatchObject({ reacted: 1, drains: 1 });
  });

  it("installs the act-copy command, which says which store package an address needs when it is missing", () => {
    const help = run(join(consumer, "node_modules/.bin/act-copy"), ["--help"], consumer);
    expect(help).toContain("act-copy --from <store> --to <store>");
    // Neither store package is installed here: the command names the one to install.
    const missing = spawnSync(join(consumer, "node_modules/.bin/act-copy"), ["--digest", "sqlite:./app.db"], {
      cwd: consumer,
      encoding: "utf8",
    });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("needs the package @act-root/act-sqlite");
  });
});
