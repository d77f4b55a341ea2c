/**
 * Where the events are kept: a SQLite file — durable, and no server to run.
 * `DATABASE_FILE` names it (default `app.db` in the working directory;
 * `:memory:` for a database that ends with the process).
 */
import { SqliteStore } from "@act-root/act-sqlite";

/** The SQLite file, from the environment. */
export function databaseFile(env: NodeJS.ProcessEnv = process.env): string {
  return env.DATABASE_FILE || "app.db";
}

/** A store on `filename`; `seed()` it before use (it creates the file and its tables). */
export function openStore(filename = databaseFile()): SqliteStore {
  return new SqliteStore({ filename });
}
