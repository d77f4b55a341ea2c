/**
 * What the browser tests run against: a disposable PostgreSQL with the shop
 * scenario (test/fixture.ts), two pending timers and a stream of 5,000 events, three inspector
 * servers on it — store mode read-only, store mode with operations, and app
 * mode — a fourth on a database that is down, and two (read-only, and with
 * operations) on the same scenario in a SqliteStore file, and one on a store
 * at real sizes (e2e/sizes.ts). Prints one JSON line
 * with their URLs, then runs until SIGTERM, when it stops everything.
 *
 * Each printed URL works once, and every browser test needs a sign-in of its
 * own: a small server on 127.0.0.1 (`links` in the JSON line) answers
 * `GET /<name>` with a new one-use link to the server of that name
 * (`RunningServer.link()`). Only the tests' own process calls it.
 *
 *     npx tsx e2e/servers.ts
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { store } from "@act-root/act";
import { PostgresStore } from "@act-root/act-pg";
import { SqliteStore } from "@act-root/act-sqlite";
import { freePort, startServer as startPg } from "../../act-pg/tools/pg-server.js";
import { inspect } from "../src/index.js";
import { startServer } from "../src/server/http.js";
import { StoreCatalog } from "../src/server/catalog.js";
import { PgCatalog } from "../src/server/pg-catalog.js";
import { SqliteCatalog } from "../src/server/sqlite-catalog.js";
import { scenario, shop } from "../test/fixture.js";
import { sizes as sizesStore } from "./sizes.js";

const pg = await startPg();
const schema = "inspector_e2e";
const pgStore = new PostgresStore({ connectionString: pg.url, schema });
store(pgStore);
await pgStore.seed();
const app = shop();
await scenario(app);
// A long stream, for the timeline's virtual scrolling and paging: 5,000 events in five commits.
for (let batch = 0; batch < 5; batch++)
  await pgStore.commit({
    stream: "big-1",
    messages: Array.from({ length: 1_000 }, (_, i) => ({
      name: "ItemAdded",
      data: { item: `item-${batch * 1_000 + i}`, price: 1 },
    })),
    meta: { correlation: `big-${batch}`, causation: {} },
    expectedVersion: batch * 1_000 - 1,
  });
// Two pending timers for the timers views: one overdue by an hour, one due in an hour.
const bot = { id: "bot", name: "Shipping bot" };
for (const [order, hours] of [
  ["order-1", -1],
  ["order-2", 1],
] as const)
  await app.schedule({
    id: `ship-${order}`,
    action: "ShipOrder",
    target: { stream: order, actor: bot },
    payload: { carrier: "Parcel Co" },
    at: new Date(Date.now() + hours * 3_600_000),
  });
const catalog = new PgCatalog({ connectionString: pg.url, schema });
const readOnly = await startServer({ store: pgStore, catalog });
const operations = await startServer({ store: pgStore, catalog, operations: true });
const appMode = await inspect(app, { catalog, print: false });
// A store that is down: nothing listens on the port it names.
const nowhere = `postgres://inspector@127.0.0.1:${await freePort()}/postgres`;
const downStore = new PostgresStore({ connectionString: nowhere, connectionTimeoutMillis: 1_000 });
const downCatalog = new PgCatalog({ connectionString: nowhere });
const down = await startServer({ store: downStore, catalog: downCatalog });
// The same scenario in a SQLite file, behind two more servers.
const dir = mkdtempSync(join(tmpdir(), "inspector-e2e-"));
const file = join(dir, "events.db");
execFileSync(process.execPath, ["--import", "tsx", "e2e/seed-sqlite.ts", file], { stdio: "inherit" });
const sqlite = new SqliteStore({ filename: file });
const sqliteCatalog = await SqliteCatalog.open(file);
const sqliteReadOnly = await startServer({ store: sqlite, catalog: sqliteCatalog });
const sqliteOperations = await startServer({ store: sqlite, catalog: sqliteCatalog, operations: true });
// A store at real sizes (e2e/sizes.ts), in memory, read-only.
const big = await sizesStore();
const sizes = await startServer({ store: big, catalog: new StoreCatalog(big, "in memory (sizes)") });
const servers = {
  sizes,
  readOnly,
  operations,
  app: appMode,
  down,
  sqliteReadOnly,
  sqliteOperations,
};
const links = createServer((req, res) => {
  const name = (req.url ?? "").slice(1);
  const server = Object.hasOwn(servers, name) ? servers[name as keyof typeof servers] : undefined;
  res.writeHead(server ? 200 : 404, { "Content-Type": "text/plain" });
  res.end(server ? server.link() : "no such server");
});
await new Promise<void>((resolve) => links.listen(0, "127.0.0.1", resolve));
const linksPort = (links.address() as { port: number }).port;
console.log(
  JSON.stringify({
    ...Object.fromEntries(Object.entries(servers).map(([name, server]) => [name, server.url])),
    links: `http://127.0.0.1:${linksPort}`,
  })
);

const stop = async () => {
  links.close();
  await Promise.all([readOnly.close(), operations.close(), appMode.close(), down.close()]);
  await Promise.all([sqliteReadOnly.close(), sqliteOperations.close(), sizes.close()]);
  await Promise.all([
    catalog.close(),
    downCatalog.close(),
    downStore.dispose(),
    sqliteCatalog.close(),
    sqlite.dispose(),
  ]);
  rmSync(dir, { recursive: true, force: true });
  await pgStore.dispose();
  await pg.stop();
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
