/**
 * What the browser tests run against: a disposable PostgreSQL with the shop
 * scenario (test/fixture.ts), and three inspector servers on it — store mode
 * read-only, store mode with operations, and app mode. Prints one JSON line
 * with their URLs, then runs until SIGTERM, when it stops everything.
 *
 *     npx tsx e2e/servers.ts
 */
import { store } from "@act-root/act";
import { PostgresStore } from "@act-root/act-pg";
import { startServer as startPg } from "../../act-pg/tools/pg-server.js";
import { inspect } from "../src/index.js";
import { startServer } from "../src/server/http.js";
import { PgCatalog } from "../src/server/pg-catalog.js";
import { scenario, shop } from "../test/fixture.js";

const pg = await startPg();
const schema = "inspector_e2e";
const pgStore = new PostgresStore({ connectionString: pg.url, schema });
store(pgStore);
await pgStore.seed();
const app = shop();
await scenario(app);
const catalog = new PgCatalog({ connectionString: pg.url, schema });
const readOnly = await startServer({ store: pgStore, catalog });
const operations = await startServer({ store: pgStore, catalog, operations: true });
const appMode = await inspect(app, { catalog, print: false });
console.log(JSON.stringify({ readOnly: readOnly.url, operations: operations.url, app: appMode.url }));

const stop = async () => {
  await Promise.all([readOnly.close(), operations.close(), appMode.close()]);
  await catalog.close();
  await pgStore.dispose();
  await pg.stop();
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
