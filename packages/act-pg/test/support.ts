/** Shared helpers of the act-pg tests: the server connection and raw clients. */
import pg from "pg";
import { inject } from "vitest";
import { PostgresStore, type PostgresStoreConfig } from "../src/index.js";

/** The connection the global setup provides (undefined: use the PG* variables). */
export const connectionString = (): string | undefined => inject("pg").connectionString;

/** A store on the test server with its own table (and schema, if given). */
export const makeStore = (config: PostgresStoreConfig = {}) =>
  new PostgresStore({ connectionString: connectionString(), ...config });

/** A raw client for assertions and for holding transactions open; errors are expected in fault tests. */
export async function client(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: connectionString() });
  c.on("error", () => {});
  await c.connect();
  return c;
}

/** Runs one statement on a short-lived client. */
export async function sql<R extends pg.QueryResultRow = any>(text: string, values: unknown[] = []): Promise<R[]> {
  const c = await client();
  try {
    return (await c.query<R>(text, values)).rows;
  } finally {
    await c.end();
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
