/**
 * A PostgreSQL schema per tenant at 1, 100 and 1,000 tenants, one pool of 10
 * and one listening connection for all of them (`npm run bench`; see
 * `packages/act/bench/tenants.ts` for what each figure is). Uses
 * `DATABASE_URL` when set; otherwise a disposable server with the durable
 * defaults.
 */
import { fileURLToPath } from "node:url";
import type pg from "pg";
import { postgresSchemaTenants } from "../src/index.js";
import { benchDatabase, withClient } from "./database.js";
import { child, scale } from "../../act/bench/tenants.js";

const APPLICATION = "act-tenants-bench";
const url = process.env.TENANTS_DATABASE_URL ?? "";

/** Runs one statement on a short-lived client of its own (not counted: another application name). */
const sql = <R extends pg.QueryResultRow>(text: string): Promise<R[]> =>
  withClient(url || process.env.TENANTS_DATABASE_URL || "", async (client) => (await client.query<R>(text)).rows);

const probe = {
  strategy: () =>
    postgresSchemaTenants({ connectionString: url, max: 10, applicationName: APPLICATION, prefix: "bench_" }),
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
  const counts = (process.env.TENANTS ?? "1,100,1000").split(",").map(Number);
  /** Drops every schema of an earlier count. */
  const prepare = async () => {
    const schemas = await sql<{ nspname: string }>("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'bench\\_%'");
    for (const { nspname } of schemas) await sql(`DROP SCHEMA "${nspname}" CASCADE`);
  };
  try {
    await scale(
      "PostgreSQL, a schema per tenant (one pool of 10, one listener)",
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
