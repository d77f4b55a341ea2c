/**
 * `npm run test:mutation` of act-pg: starts one disposable PostgreSQL server
 * for the whole Stryker run (the tests' own way, as the `postgres` OS user
 * when this process is root), runs `stryker run` with the server's
 * connection in `DATABASE_URL` — so no mutant's test run starts a server —
 * and stops the server when Stryker ends, however it ends. Arguments go to
 * Stryker: `npm run test:mutation -- --mutate src/leases.ts --concurrency 1`.
 * With `DATABASE_URL` already set, that server is used and none is started.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { startServer } from "./pg-server.js";

const core = createRequire(import.meta.url).resolve("@stryker-mutator/core/package.json");
const stryker = join(dirname(core), "bin", "stryker.js");
const given = process.env.DATABASE_URL;
const server = given ? undefined : await startServer();
try {
  process.exitCode = await new Promise<number>((resolve, reject) => {
    const child = spawn(process.execPath, [stryker, "run", ...process.argv.slice(2)], {
      stdio: "inherit",
      env: { ...process.env, DATABASE_URL: given ?? server?.url },
    });
    // On Ctrl-C or a kill, let Stryker restore the files it mutated in place and exit, then stop the server.
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
    child.on("error", reject);
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
} finally {
  await server?.stop();
}
