#!/usr/bin/env node
/**
 * `act-inspector`: the inspector in store mode, on a PostgreSQL store.
 *
 *     act-inspector --pg postgres://reader@localhost:5432/app [--schema s] [--table t] [--port n] [--operations]
 *
 * The connection string can also come from the environment
 * (`ACT_INSPECTOR_PG`), so it stays out of the shell history.
 */
import { PostgresStore } from "@act-root/act-pg";
import { parseArgs, USAGE } from "./server/args.js";
import { startServer } from "./server/http.js";
import { PgCatalog } from "./server/pg-catalog.js";

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
  const config = { connectionString: args.pg, schema: args.schema, table: args.table };
  const store = new PostgresStore({ ...config, applicationName: "act-inspector" });
  const catalog = new PgCatalog(config);
  const server = await startServer({ store, catalog, operations: args.operations, port: args.port });
  console.log(`Act Inspector (${args.operations ? "operations allowed" : "read-only"}): ${server.url}`);
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
