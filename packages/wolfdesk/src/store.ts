/**
 * Picks the store WolfDesk runs on: Postgres when the environment names a
 * database (`DATABASE_URL`, or libpq's `PGHOST` / `PGDATABASE`), otherwise
 * the in-memory store. `@act-root/act-pg` (and with it the `pg` driver) is
 * imported only on the Postgres path.
 */
import { store } from "@act-root/act";
import type { PostgresStoreConfig } from "@act-root/act-pg";

/** Kept in a variable so bundlers and test runners don't resolve it up front. */
const ACT_PG = "@act-root/act-pg";

type Env = Record<string, string | undefined>;

/** True when the environment names a Postgres database. */
export function wantsPostgres(env: Env): boolean {
  return Boolean(env.DATABASE_URL || env.PGHOST || env.PGDATABASE);
}

/**
 * The `PostgresStore` options read from `env` (unset ones are left to the
 * store, which falls back to the process's `PG*` variables, then to
 * `localhost:5432`).
 */
export function postgresOptions(env: Env): PostgresStoreConfig {
  const options = {
    connectionString: env.DATABASE_URL,
    host: env.PGHOST,
    port: env.PGPORT ? Number(env.PGPORT) : undefined,
    database: env.PGDATABASE,
    user: env.PGUSER,
    password: env.PGPASSWORD,
    // The example keeps its tables apart from anything else in the database.
    schema: env.WOLFDESK_SCHEMA || "wolfdesk",
  };
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

/**
 * Plugs the store in — before anything else touches `store()`, since the
 * first call fixes the adapter for the process — and seeds it.
 *
 * @returns which store is in use
 */
export async function connect(env: Env = globalThis.process?.env ?? {}): Promise<"postgres" | "memory"> {
  if (!wantsPostgres(env)) {
    await store().seed();
    return "memory";
  }
  const { PostgresStore } = (await import(/* @vite-ignore */ ACT_PG)) as typeof import("@act-root/act-pg");
  store(new PostgresStore(postgresOptions(env)));
  await store().seed();
  return "postgres";
}
