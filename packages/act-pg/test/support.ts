/** Shared helpers of the act-pg tests: the server connection and raw clients. */
import { disposeAndExit, store } from "@act-root/act";
import pg from "pg";
import { afterAll, inject } from "vitest";
import { PostgresStore, type PostgresStoreConfig } from "../src/index.js";

/** The connection the global setup provides (undefined: use the PG* variables). */
export const connectionString = (): string | undefined => inject("pg").connectionString;

/** A store on the test server with its own table (and schema, if given). */
export const makeStore = (config: PostgresStoreConfig = {}) =>
  new PostgresStore({ connectionString: connectionString(), ...config });

/**
 * The store lifecycle of a file that runs a shared suite: each call of the
 * returned function disposes of the previous store, then gives a store on
 * its own table (`table`, else `defaultTable`), emptied and seeded, as the
 * process's store. After the file, the last one's tables are dropped.
 */
export function freshStores(defaultTable: string): (table?: string) => Promise<PostgresStore> {
  let current: PostgresStore | undefined;
  afterAll(async () => {
    await current?.drop();
    await disposeAndExit();
  });
  return async (table = defaultTable) => {
    await disposeAndExit();
    current = makeStore({ table });
    store(current);
    await current.drop();
    await current.seed();
    return current;
  };
}

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
