#!/usr/bin/env node
/**
 * The starter as a reader uses it, end to end (`npm run test:starter`): from
 * an empty temporary folder, with the packed packages and nothing from the
 * repository.
 *
 *     npm run test:starter         (node --import tsx scripts/check-starter.mjs)
 *     … --keep                     keep the temporary folder and print where it is
 *
 * Needs the built packages (`npm run build:packages`), the npm registry or a
 * warm npm cache for the third-party packages (installed with
 * `--prefer-offline`), and PostgreSQL: the server `DATABASE_URL` names, or a
 * disposable one started with the act-pg tests' helper.
 *
 * - packs every published package with `npm run pack:local` (create-act-app
 *   among them);
 * - runs the packed command with `npm exec --package <its tarball>`, as
 *   `npm create act-app` would, with `--packs` so the project depends on the
 *   tarballs (the packages are not on the registry yet);
 * - the default project (SQLite): `npm install`, `npm test`,
 *   `npm run typecheck` and `npm start` (whose output is checked) must pass;
 * - the PostgreSQL project with HTTP: `npm install`, `npm run typecheck`,
 *   and `npm test` against a fresh database; then `npm start`, an action
 *   over HTTP, the read model over HTTP, and SIGTERM;
 * - the command refuses the folder it just filled, with exit code 1.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const keep = process.argv.includes("--keep");
const work = mkdtempSync(join(tmpdir(), "act-starter-"));
const packs = join(work, "packs");
const env = {
  ...process.env,
  npm_config_prefer_offline: "true",
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false",
};
// The reader's shell, not this repository's test settings.
for (const name of ["NODE_ENV", "LOG_LEVEL", "SLEEP_MS", "NODE_OPTIONS", "DATABASE_URL", "VITEST", "ACT_UNIT_ONLY"])
  delete env[name];

/**
 * Runs a command in `cwd`; returns its output and exit code.
 *
 * @param {string} command
 * @param {string[]} args
 * @param {string} cwd
 * @param {Record<string, string>} [more] - extra environment variables
 */
function run(command, args, cwd, more = {}) {
  const started = Date.now();
  const result = spawnSync(command, args, { cwd, env: { ...env, ...more }, encoding: "utf8", timeout: 300_000 });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(
    `check-starter: ${command} ${args.join(" ")} (in ${cwd.replace(work, "<tmp>")}): exit ${result.status ?? result.signal}, ${seconds} s`
  );
  return { status: result.status, output: `${result.stdout ?? ""}${result.stderr ?? ""}` };
}

/** Runs a command that must succeed; throws with its output otherwise. */
function must(command, args, cwd, more) {
  const result = run(command, args, cwd, more);
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed in ${cwd}:\n${result.output}`);
  return result.output;
}

/** Runs the packed create-act-app in `work`. */
const create = (args) =>
  run("npm", ["exec", "--yes", "--package", join(packs, "create-act-app.tgz"), "--", "create-act-app", ...args], work);

/**
 * `npm start` of an HTTP project: waits for the server, adds a task over
 * HTTP, reads it back from the read model (the projection runs in the
 * server's consumer), then stops the server with SIGTERM, as an orchestrator
 * would. Returns what went wrong, or undefined.
 *
 * @param {string} cwd
 * @param {Record<string, string>} more - extra environment variables
 * @returns {Promise<string | undefined>}
 */
async function serveAndCall(cwd, more) {
  const { freePort } = await import("../packages/act-pg/tools/pg-server.ts");
  const port = await freePort();
  const child = spawn("npm", ["start"], { cwd, env: { ...env, ...more, PORT: String(port) }, detached: true });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const ended = new Promise((done) => child.on("close", done));
  const base = `http://127.0.0.1:${port}`;
  const headers = { Authorization: "Bearer dev-token-change-me", "Content-Type": "application/json" };
  // Generous bounds for a busy machine: a guard against hanging, not a timing check.
  const until = async (/** @type {() => Promise<boolean>} */ ready, what) => {
    for (let waited = 0; waited < 60_000; waited += 250) {
      if (await ready().catch(() => false)) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`npm start in ${cwd}: ${what}\n${output}`);
  };
  try {
    await until(async () => output.includes("API on"), "the server did not start");
    const added = await fetch(`${base}/streams/TodoList/7/add`, {
      method: "POST",
      headers,
      body: '{"title":"Try Act"}',
    });
    if (added.status !== 200) return `POST /streams/TodoList/7/add answered ${added.status}: ${await added.text()}`;
    await until(async () => {
      const read = await fetch(`${base}/reads/open-tasks?list=7`, { headers });
      return JSON.stringify(await read.json()) === '[{"id":"t1","title":"Try Act"}]';
    }, "GET /reads/open-tasks?list=7 never answered the task just added");
    console.log("check-starter: npm start in the HTTP project served an action and the read model");
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    process.kill(-(child.pid ?? 0), "SIGTERM");
    await ended;
  }
}

const problems = [];
let database;
try {
  must(process.execPath, [join(root, "scripts", "pack-local.mjs"), "--no-build", packs], root);

  // The default: SQLite, no HTTP.
  const created = create(["sqlite-app", "--packs", packs]);
  if (created.status !== 0) throw new Error(`create-act-app sqlite-app failed:\n${created.output}`);
  if (!created.output.includes("Next steps:"))
    problems.push(`create-act-app printed no next steps:\n${created.output}`);
  const sqliteApp = join(work, "sqlite-app");
  must("npm", ["install"], sqliteApp);
  // Colour codes stripped: under CI vitest colours its summary, and the pattern would not match through them.
  const tested = stripVTControlCharacters(must("npm", ["test"], sqliteApp));
  if (!/Test Files\s+2 passed/.test(tested))
    problems.push(`npm test in the SQLite project ran other than 2 test files:\n${tested}`);
  must("npm", ["run", "typecheck"], sqliteApp);
  const started = must("npm", ["start"], sqliteApp);
  for (const line of [
    "list-1: 2 tasks",
    "completed in all lists: 1",
    "open tasks: [ { list: 'list-1', id: 't2', title: 'Ship it' } ]",
  ])
    if (!started.includes(line)) problems.push(`npm start in the SQLite project did not print "${line}":\n${started}`);

  // A folder that is not empty is refused, and left as it was.
  const refused = create(["sqlite-app"]);
  if (refused.status !== 1 || !refused.output.includes("is not empty"))
    problems.push(`create-act-app on a folder that is not empty: exit ${refused.status}\n${refused.output}`);

  // PostgreSQL with HTTP, against a fresh database.
  const pgCreated = create(["pg-app", "--store", "postgres", "--http", "--packs", packs]);
  if (pgCreated.status !== 0) throw new Error(`create-act-app pg-app failed:\n${pgCreated.output}`);
  const pgApp = join(work, "pg-app");
  must("npm", ["install"], pgApp);
  must("npm", ["run", "typecheck"], pgApp);
  const { throwawayDatabase } = await import("../packages/act-pg/tools/throwaway-database.ts");
  database = await throwawayDatabase("starter");
  const appUrl = new URL(database.url);
  const pgTested = stripVTControlCharacters(must("npm", ["test"], pgApp, { DATABASE_URL: appUrl.href }));
  if (!/Test Files\s+3 passed/.test(pgTested))
    problems.push(`npm test in the PostgreSQL project ran other than 3 test files:\n${pgTested}`);
  const served = await serveAndCall(pgApp, { DATABASE_URL: appUrl.href });
  if (served) problems.push(served);
} catch (error) {
  problems.push(error instanceof Error ? error.message : String(error));
} finally {
  await database?.drop();
  if (keep) console.error(`check-starter: the folder is kept in ${work}`);
  else rmSync(work, { recursive: true, force: true });
}

if (problems.length) {
  console.error("check-starter: the starter does not do what it says\n");
  for (const problem of problems) console.error(`  ${problem.replaceAll("\n", "\n  ")}\n`);
  process.exit(1);
}
console.log(
  "check-starter: both projects generated from the packed command installed, type-checked and passed their tests"
);
