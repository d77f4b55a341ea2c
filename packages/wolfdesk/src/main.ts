/**
 * Runs the WolfDesk story from the command line:
 *
 *     npm start -w @act-root/wolfdesk                       # in memory
 *     DATABASE_URL=postgres://… npm start -w @act-root/wolfdesk   # on Postgres
 */
import { disposeAndExit } from "@act-root/act";
import { run } from "./scenario.js";
import { connect } from "./store.js";

const kind = await connect();
console.log(`WolfDesk on the ${kind === "postgres" ? "Postgres" : "in-memory"} store\n`);
await run((line) => console.log(line));
// Closes the store (the Postgres pool) and exits.
await disposeAndExit("EXIT");
