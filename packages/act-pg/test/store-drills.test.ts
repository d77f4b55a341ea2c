/**
 * The backup and restore drills of docs/guides/moving-a-store.mdx, run as
 * the page shows them: every `bash` block titled "Drill: …", in page order,
 * in a temporary folder holding a SQLite file an app filled (events,
 * reactions, a blocked stream, an idempotency key, timers), with
 * `DATABASE_URL` an empty database and `RESTORE_URL` another one whose
 * tables `seed()` created. `npx -p @act-root/act act-copy` runs the built command
 * (`npm run build:packages` first). Each block must exit with 0: the page's
 * checks (`test … && echo …`) fail it when a digest or the id check differs.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { fill } from "../../act/test/copy.suite.js";
import { SqliteStore } from "../../act-sqlite/src/index.js";
import { PostgresStore } from "../src/index.js";
import { connectionString, sql } from "./support.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const page = join(root, "docs/guides/moving-a-store.mdx");
const cli = join(root, "packages/act/dist/cli/act-copy.js");

/** The `bash` blocks of the page: their title and their commands. */
function bashBlocks(mdx: string): { title: string; code: string; line: number }[] {
  const blocks: { title: string; code: string; line: number }[] = [];
  const lines = mdx.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```bash(?:\s+title="([^"]*)")?\s*$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    while (!/^```\s*$/.test(lines[++i])) body.push(lines[i]);
    blocks.push({ title: open[1] ?? "", code: body.join("\n"), line: start + 1 });
  }
  return blocks;
}

/** Blocks the drill test does not run, each with the reason. */
const NOT_RUN: Record<string, string> = {
  "npm install @act-root/act @act-root/act-sqlite @act-root/act-pg":
    "installs the packages; the test runs the workspace's build of act-copy",
};

/** A URL for database `name` on the test server. */
function databaseUrl(name: string): string {
  const base = connectionString();
  const url = new URL(
    base ??
      `postgres://${process.env.PGUSER ?? "postgres"}@${process.env.PGHOST ?? "localhost"}:${process.env.PGPORT ?? 5432}/postgres`
  );
  url.pathname = `/${name}`;
  return url.toString();
}

const dir = mkdtempSync(join(tmpdir(), "act-drills-"));
const databases = ["drill_store", "drill_restore"];
beforeAll(async () => {
  for (const name of databases) {
    await sql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await sql(`CREATE DATABASE ${name}`);
  }
  // The app was deployed on the database restored into: its tables exist, empty.
  const deployed = new PostgresStore({ connectionString: databaseUrl("drill_restore") });
  await deployed.seed();
  await deployed.dispose();
  // The app's SQLite file, as production left it.
  mkdirSync(join(dir, "data"));
  const file = new SqliteStore({ filename: join(dir, "data/app.db") });
  await file.seed();
  await fill(file);
  await file.dispose();
  // `npx -p @act-root/act act-copy` finds the command in the folder's node_modules/.bin, as after `npm install`.
  // `-p @act-root/act` finds the package installed in the folder, as after `npm install`, and never asks the registry.
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "drills", private: true, dependencies: { "@act-root/act": "*" } })
  );
  mkdirSync(join(dir, "node_modules/.bin"), { recursive: true });
  mkdirSync(join(dir, "node_modules/@act-root"), { recursive: true });
  symlinkSync(join(root, "packages/act"), join(dir, "node_modules/@act-root/act"), "dir");
  writeFileSync(join(dir, "node_modules/.bin/act-copy"), `#!/bin/sh\nexec node "${cli}" "$@"\n`);
  chmodSync(join(dir, "node_modules/.bin/act-copy"), 0o755);
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  for (const name of databases) await sql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
});

it("runs every backup and restore drill of the page, in order, and each one passes its own check", () => {
  const blocks = bashBlocks(readFileSync(page, "utf8"));
  const drills = blocks.filter((b) => b.title.startsWith("Drill: "));
  const others = blocks.filter((b) => !b.title.startsWith("Drill: ")).map((b) => b.code);
  expect(others).toEqual(Object.keys(NOT_RUN));
  expect(drills.map((d) => d.title)).toEqual([
    "Drill: copy the SQLite file into PostgreSQL",
    "Drill: run the copy again",
    "Drill: SQLite online backup",
    "Drill: SQLite file copy after a checkpoint",
    "Drill: SQLite restore",
    "Drill: PostgreSQL dump of the store's tables",
    "Drill: PostgreSQL restore into existing tables, and the checks",
  ]);
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl("drill_store"),
    RESTORE_URL: databaseUrl("drill_restore"),
    // Never ask the registry: the command is local.
    npm_config_offline: "true",
    npm_config_yes: "false",
    LOG_LEVEL: "fatal",
  };
  const outputs: string[] = [];
  for (const drill of drills) {
    const run = spawnSync("bash", ["-e", "-o", "pipefail", "-c", drill.code], { cwd: dir, env, encoding: "utf8" });
    const said = `${drill.title} (moving-a-store.mdx:${drill.line}) exited ${run.status}:\n${run.stdout}\n${run.stderr}`;
    expect(run.status, said).toBe(0);
    outputs.push(run.stdout);
  }
  expect(outputs[0]).toMatch(
    /done: \d+ events copied; \d+ reaction streams, \d+ idempotency keys, \d+ discovery positions, 2 timers/
  );
  expect(outputs[1]).toMatch(/done: 0 events copied \(continued after id \d+\)/);
  expect(outputs[2]).toContain("same log");
  expect(outputs[3]).toContain("same log");
  expect(outputs[4]).toContain("restored");
  expect(outputs[6]).toBe("t\nsame log\n");
}, 180_000);
