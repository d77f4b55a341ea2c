#!/usr/bin/env node
/**
 * `act-inspector`: the inspector in store mode, on a PostgreSQL store or a SQLite file.
 *
 *     act-inspector --pg postgres://reader@localhost:5432/app [--schema s] [--table t] [--port n] [--operations]
 *     act-inspector --sqlite ./events.db [--port n] [--operations]
 *     act-inspector --sqlite-tenants ./data --tenant acme      (one tenant of sqliteTenants)
 *     act-inspector --pg postgres://… --pg-shared-tenant acme  (or --pg-schema-tenant acme)
 *
 * The connection string can also come from the environment
 * (`ACT_INSPECTOR_PG`), so it stays out of the shell history.
 */
import { parseArgs, USAGE } from "./server/args.js";
import { startServer } from "./server/http.js";
import { type Opened, openStore } from "./server/open-store.js";

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
  let opened: Opened;
  try {
    opened = await openStore(args);
  } catch (error) {
    console.error(`act-inspector: ${(error as Error).message}`);
    process.exit(2);
  }
  const { store, catalog, tenant } = opened;
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({ store, catalog, tenant, operations: args.operations, port: args.port });
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
    await opened.close().catch(() => {});
    process.exit(2);
  }
  const of = tenant === undefined ? "" : `, tenant ${tenant}`;
  console.log(`Act Inspector (${args.operations ? "operations allowed" : "read-only"}${of}): ${server.url}`);
  console.log("The URL works once: keep the tab it opens (a reload stays signed in); restart for a new URL.");
  const stop = async () => {
    await server.close();
    await opened.close();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

void main();
