/**
 * Where the events are kept: PostgreSQL, at `DATABASE_URL` (default: a
 * server on this machine, as `docker run -e POSTGRES_PASSWORD=postgres -p
 * 5432:5432 postgres:15` starts one).
 */
import { PostgresStore } from "@act-root/act-pg";

/** The database's address, from the environment. */
export function databaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env.DATABASE_URL || "postgres://postgres:postgres@localhost:5432/postgres";
}

/** A store on `connectionString`; `seed()` it before use (it creates the tables). */
export function openStore(connectionString = databaseUrl()): PostgresStore {
  return new PostgresStore({ connectionString });
}
