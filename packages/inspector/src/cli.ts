#!/usr/bin/env node
/**
 * `act-inspector`: the inspector in store mode, on a PostgreSQL store or a SQLite file.
 *
 *     act-inspector --pg postgres://reader@localhost:5432/app [--schema s] [--table t] [--port n] [--operations]
 *     act-inspector --sqlite ./events.db [--port n] [--operations]
 *
 * The connection string can also come from the environment
 * (`ACT_INSPECTOR_PG`), so it stays out of the shell history.
 */
import type { Store } from "@act-root/act";
import type { Catalog } from "./server/catalog.js";
import { parseArgs, USAGE } from "./server/args.js";
import { startServer } from "./server/http.js";
import { PgCatalog } from "./server/pg-catalog.js";
import { SqliteCatalog } from "./server/sqlite-catalog.js";

async function main() {
  let args: ReturnType<typeof parseArgs>;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`act-inspector: ${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (args.help) {
    console.log(USAGE);
    return;
  }
  let store: Store;
  let catalog: Catalog;
  try {
    // Each store package is loaded only when asked for: a SQLite user need not install the Postgres one.
    if (args.sqlite) {
      catalog = await SqliteCatalog.open(args.sqlite);
      const { SqliteStore } = await import("@act-root/act-sqlite");
      store = new SqliteStore({ filename: args.sqlite });
    } else {
      const config = { connectionString: args.pg, schema: args.schema, table: args.table };
      const { PostgresStore } = await import("@act-root/act-pg");
      store = new PostgresStore({ ...config, applicationName: "act-inspector" });
      catalog = new PgCatalog(config);
    }
  } catch (error) {
    console.error(`act-inspector: ${(error as Error).message}`);
    process.exit(2);
  }
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({ store, catalog, operations: args.operations, port: args.port });
  } catch (error) {
    // One line a person can act on, not a stack trace of the server's start.
    const code = (error as { code?: string }).code;
    const why =
      code === "EADDRINUSE"
        ? `port ${args.port} is already in use on 127.0.0.1: choose another with --port, or leave --port out for a free one`
        : code === "EACCES"
          ? `port ${args.port} may not be opened by this user: choose one above 1023 with --port`
          : (error as Error).message;
    console.error(`act-inspector: ${why}`);
    await catalog.close().catch(() => {});
    await store.dispose().catch(() => {});
    process.exit(2);
  }
  console.log(`Act Inspector (${args.operations ? "operations allowed" : "read-only"}): ${server.url}`);
  console.log("The URL works once: keep the tab it opens (a reload stays signed in); restart for a new URL.");
  const stop = async () => {
    await server.close();
    await catalog.close();
    await store.dispose();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

void main();
