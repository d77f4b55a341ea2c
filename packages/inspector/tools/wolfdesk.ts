/**
 * Opens the inspector on WolfDesk's data, in app mode: runs the WolfDesk
 * story (tickets opened, assigned, escalated, resolved) on the store it picks
 * — Postgres when DATABASE_URL or PGHOST/PGDATABASE is set, otherwise the
 * SQLite file WOLFDESK_DB (default wolfdesk.db) — then serves the inspector
 * until Ctrl-C.
 *
 *     npm run wolfdesk -w @act-root/inspector                          # on SQLite
 *     DATABASE_URL=postgres://… npm run wolfdesk -w @act-root/inspector  # on Postgres
 *     … -- --operations                                                # allow unblock / reset
 */
import { disposeAndExit } from "@act-root/act";
import { app, connect, postgresOptions, run, sqliteFile } from "@act-root/wolfdesk";
import { inspect } from "../src/index.js";
import type { Catalog } from "../src/server/catalog.js";
import { PgCatalog } from "../src/server/pg-catalog.js";
import { SqliteCatalog } from "../src/server/sqlite-catalog.js";

const kind = await connect();
// The story waits for reactions, so the consumer runs them as in production.
app.start();
await run(() => {});
const options = postgresOptions(process.env);
// Streams are listed from the events table's index, on either store.
const catalog: Catalog =
  kind === "postgres"
    ? new PgCatalog({ connectionString: options.connectionString, schema: options.schema })
    : await SqliteCatalog.open(sqliteFile(process.env));
const inspector = await inspect(app, { operations: process.argv.includes("--operations"), catalog });
console.log("Ctrl-C to stop.");
const stop = async () => {
  await inspector.close();
  await catalog.close();
  await disposeAndExit("EXIT");
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
