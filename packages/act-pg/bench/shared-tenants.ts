/**
 * Tenants in shared tables with row-level security at 1, 100 and 1,000
 * tenants: one pool of 10 and one listening connection for all of them, the
 * app connecting as a role without BYPASSRLS, the tables created by an owner
 * role (`npm run bench`; see `packages/act/bench/tenants.ts`
 * for what each figure is). Uses `DATABASE_URL` (a superuser, to create the
 * two roles) when set; otherwise a disposable server with the durable
 * defaults.
 */
import { fileURLToPath } from "node:url";
import type pg from "pg";
import { postgresSharedTenants } from "../src/index.js";
import { benchDatabase, withClient } from "./database.js";
import { child, scale } from "../../act/bench/tenants.js";

const APPLICATION = "act-shared-tenants-bench";
const SCHEMA = "bench_shared";
const PASSWORD = "act-bench";
const url = process.env.TENANTS_DATABASE_URL ?? "";

/** The server's connection as `role`. */
function as(role: string): string {
  const at = new URL(url);
  at.username = role;
  at.password = PASSWORD;
  return at.toString();
}

/** Runs one statement on a short-lived client of its own (not counted: another application name). */
const sql = <R extends pg.QueryResultRow>(text: string): Promise<R[]> =>
  withClient(url, async (client) => (await client.query<R>(text)).rows);

const probe = {
  strategy: () =>
    postgresSharedTenants({
      connectionString: as("act_bench_app"),
      owner: { connectionString: as("act_bench_owner") },
      schema: SCHEMA,
      max: 10,
      applicationName: APPLICATION,
    }),
  opened: async () =>
    (
      await sql<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = '${APPLICATION}'`
      )
    )[0].n,
};

if (!(await child(probe))) {
  const server = await benchDatabase();
  const database = server.url;
  process.env.TENANTS_DATABASE_URL = database;
  const admin = (text: string) =>
    withClient(database, async (client) => {
      await client.query(text);
    });
  for (const role of ["act_bench_owner", "act_bench_app"])
    await admin(`CREATE ROLE ${role} LOGIN NOSUPERUSER NOBYPASSRLS PASSWORD '${PASSWORD}'`).catch((error) => {
      if (error.code !== "42710") throw error; // exists from an earlier run
    });
  await admin(
    `DO $$ BEGIN EXECUTE format('GRANT CREATE ON DATABASE %I TO act_bench_owner', current_database()); END $$`
  );
  const counts = (process.env.TENANTS ?? "1,100,1000").split(",").map(Number);
  /** Drops the shared tables of an earlier count. */
  const prepare = () => admin(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  try {
    await scale(
      "PostgreSQL, shared tables with row-level security (one pool of 10, one listener)",
      fileURLToPath(import.meta.url),
      { TENANTS_DATABASE_URL: database },
      counts,
      prepare,
      "connections",
      Number(process.env.TENANTS_BACKLOG ?? 100_000)
    );
    await prepare();
  } finally {
    await server.stop();
  }
}
