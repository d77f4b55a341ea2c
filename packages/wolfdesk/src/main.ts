/**
 * Runs the WolfDesk story from the command line:
 *
 *     npm start -w @act-root/wolfdesk                       # on SQLite (wolfdesk.db)
 *     DATABASE_URL=postgres://… npm start -w @act-root/wolfdesk   # on Postgres
 */
import { disposeAndExit } from "@act-root/act";
import { app } from "./app.js";
import { run } from "./scenario.js";
import { connect } from "./store.js";

const kind = await connect();
console.log(`WolfDesk on the ${kind === "postgres" ? "Postgres" : "SQLite"} store\n`);
// The reactions run by themselves from here on: after each commit in this
// process and when another process commits.
app.start();
await run((line) => console.log(line));
// Stops the consumer (letting running reactions finish), closes the store
// (the file, or the Postgres pool) and exits.
await disposeAndExit("EXIT");
