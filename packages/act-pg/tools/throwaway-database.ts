/**
 * A database of its own for a script that runs what a reader would (the
 * starter check, the getting-started walk-through): created on the server
 * `DATABASE_URL` names, or on a disposable server started for it when that
 * is unset, so each run starts from nothing and leaves nothing behind.
 */
import pg from "pg";
import { type PgServer, startServer } from "./pg-server.js";

/** A database created for one run, and the way to remove it. */
export type ThrowawayDatabase = {
  /** Connection string of the new database. */
  url: string;
  /** Drops the database (closing its connections) and stops the server if one was started for it; never throws. */
  drop(): Promise<void>;
};

/** Runs one statement on the server's `postgres` database. */
async function admin(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  // A server stopping under the client must not crash the script that cleans up.
  client.on("error", () => {});
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Creates a database named `<prefix>_<pid>` and returns its URL. */
export async function throwawayDatabase(prefix: string): Promise<ThrowawayDatabase> {
  if (!/^[a-z_][a-z0-9_]*$/.test(prefix)) throw new Error(`throwawayDatabase: "${prefix}" is not a plain SQL name`);
  let server: PgServer | undefined;
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    server = await startServer();
    serverUrl = server.url;
  }
  const name = `${prefix}_${process.pid}`;
  try {
    await admin(serverUrl, `CREATE DATABASE ${name}`);
  } catch (error) {
    await server?.stop();
    throw error;
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    async drop() {
      await admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await server?.stop();
    },
  };
}
