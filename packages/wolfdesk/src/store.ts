/**
 * Picks the store WolfDesk runs on: Postgres when the environment names a
 * database (`DATABASE_URL`, or libpq's `PGHOST` / `PGDATABASE`), otherwise a
 * SQLite file (`WOLFDESK_DB`, default `wolfdesk.db` in the working directory;
 * `:memory:` for a private in-memory database). Each store package (and its
 * driver) is imported only on its own path.
 */
import { store } from "@act-root/act";
import type { PostgresStoreConfig } from "@act-root/act-pg";

/** Kept in variables so bundlers and test runners don't resolve them up front. */
const ACT_PG = "@act-root/act-pg";
const ACT_SQLITE = "@act-root/act-sqlite";

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

/** The SQLite file WolfDesk keeps its events in without Postgres. */
export function sqliteFile(env: Env): string {
  return env.WOLFDESK_DB || "wolfdesk.db";
}

let schema = "wolfdesk";
/** The Postgres schema `connect` put the store in: the ticket list's table goes there too. */
export function postgresSchema(): string {
  return schema;
}

/**
 * Plugs the store in — before anything else touches `store()`, since the
 * first call fixes the adapter for the process — and seeds it.
 *
 * @returns which store is in use
 */
export async function connect(env: Env = globalThis.process?.env ?? {}): Promise<"postgres" | "sqlite"> {
  if (!wantsPostgres(env)) {
    const { SqliteStore } = (await import(/* @vite-ignore */ ACT_SQLITE)) as typeof import("@act-root/act-sqlite");
    store(new SqliteStore({ filename: sqliteFile(env) }));
    await store().seed();
    return "sqlite";
  }
  const { PostgresStore } = (await import(/* @vite-ignore */ ACT_PG)) as typeof import("@act-root/act-pg");
  const options = postgresOptions(env);
  schema = options.schema ?? schema;
  store(new PostgresStore(options));
  await store().seed();
  return "postgres";
}
