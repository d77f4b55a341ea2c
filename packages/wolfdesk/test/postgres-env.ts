/**
 * Which PostgreSQL the WolfDesk Postgres tests use: the one the environment
 * names (`DATABASE_URL` / `PG*`), else a disposable server started with
 * act-pg's test tool. Only a machine without the server binaries skips the
 * tests; a server that is there but fails to start fails them.
 */
import { wantsPostgres } from "../src/index.js";

/** A started disposable server. */
export type Server = { url: string; stop(): Promise<void> };

/** The two act-pg test tools this needs (loaded on demand). */
export type PgTools = { findBinDir(): string; startServer(): Promise<Server> };

/** The environment for `connect()` (and the server to stop), or why the tests skip. */
export type PostgresForTests = { env: Record<string, string | undefined>; server?: Server } | { skipped: string };

/**
 * Picks or starts the PostgreSQL for the tests, on `schema`.
 *
 * @param processEnv - the process environment
 * @param schema - the schema the tests' tables go into
 * @param tools - loads act-pg's `findBinDir` and `startServer`
 */
export async function postgresForTests(
  processEnv: Record<string, string | undefined>,
  schema: string,
  tools: () => Promise<PgTools>
): Promise<PostgresForTests> {
  if (wantsPostgres(processEnv)) return { env: { ...processEnv, WOLFDESK_SCHEMA: schema } };
  const { findBinDir, startServer } = await tools();
  try {
    findBinDir();
  } catch (error) {
    return { skipped: `no PostgreSQL server binaries: ${(error as Error).message}` };
  }
  const server = await startServer();
  return { env: { DATABASE_URL: server.url, WOLFDESK_SCHEMA: schema }, server };
}
