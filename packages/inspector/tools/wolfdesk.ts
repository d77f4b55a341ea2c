/**
 * Opens the inspector on WolfDesk's data, in app mode: runs the WolfDesk
 * story (tickets opened, assigned, escalated, resolved) on the store it picks
 * — Postgres when DATABASE_URL or PGHOST/PGDATABASE is set, otherwise in
 * memory — then serves the inspector until Ctrl-C.
 *
 *     npm run wolfdesk -w @act-root/inspector                          # in memory
 *     DATABASE_URL=postgres://… npm run wolfdesk -w @act-root/inspector  # on Postgres
 *     … -- --operations                                                # allow unblock / reset
 */
import { disposeAndExit } from "@act-root/act";
import { app, connect, postgresOptions, run } from "@act-root/wolfdesk";
import { inspect } from "../src/index.js";
import { PgCatalog } from "../src/server/pg-catalog.js";

const kind = await connect();
// The story waits for reactions, so the consumer runs them as in production.
app.start();
await run(() => {});
const options = postgresOptions(process.env);
// On Postgres the streams are listed from the table's index; in memory, by reading the log.
const catalog =
  kind === "postgres"
    ? new PgCatalog({ connectionString: options.connectionString, schema: options.schema })
    : undefined;
const inspector = await inspect(app, {
  operations: process.argv.includes("--operations"),
  ...(catalog && { catalog }),
});
console.log("Ctrl-C to stop.");
const stop = async () => {
  await inspector.close();
  await catalog?.close();
  await disposeAndExit("EXIT");
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
