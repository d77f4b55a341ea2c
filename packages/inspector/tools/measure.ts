/**
 * Measures the inspector on a store with one million events: seeds a
 * disposable PostgreSQL (100,000 streams of 10 events), starts the
 * inspector in store mode, and times the first screen in Chromium — from
 * opening the printed URL to the streams table being on screen with the
 * search box usable — five times. Prints the timings and the `EXPLAIN
 * ANALYZE` of every query a view runs. Figures, not a test: nothing is
 * asserted.
 *
 *     npm run build:web -w @act-root/inspector
 *     npm run measure -w @act-root/inspector       (or DATABASE_URL=… to use a server of your own)
 */
import { PostgresStore } from "@act-root/act-pg";
import { firstScreen } from "./first-screen.js";
import pg from "pg";
import { startServer as startPg } from "../../act-pg/tools/pg-server.js";
import { startServer } from "../src/server/http.js";
import { PgCatalog, streamsSql } from "../src/server/pg-catalog.js";

const STREAMS = 100_000;
const PER_STREAM = 10;
const schema = "million";

const server = process.env.DATABASE_URL ? undefined : await startPg();
const url = process.env.DATABASE_URL ?? server!.url;
const store = new PostgresStore({ connectionString: url, schema });
const client = new pg.Client({ connectionString: url });
client.on("error", () => {});
await client.connect();

try {
  await store.drop();
  await store.seed();
  const seeding = Date.now();
  // One statement: realistic rows (a causal chain per stream, ~150-byte payloads) without a million round trips.
  await client.query(`
    INSERT INTO "${schema}".events (id, stream, version, name, data, meta, created)
    SELECT g,
      'order-' || lpad(((g - 1) / ${PER_STREAM})::text, 6, '0'),
      (g - 1) % ${PER_STREAM},
      (ARRAY['ItemAdded','ItemAdded','ItemAdded','OrderPlaced','StockReserved','PaymentCharged','OrderShipped','Invoiced','Delivered','Reviewed'])[(g - 1) % ${PER_STREAM} + 1],
      json_build_object('item', 'item-' || (g % 997), 'price', g % 100, 'note', repeat('x', 80)),
      json_build_object('correlation', 'c-' || ((g - 1) / ${PER_STREAM}),
        'causation', CASE WHEN (g - 1) % ${PER_STREAM} = 0
          THEN json_build_object('action', json_build_object('name', 'AddItem', 'stream', 'order-' || ((g - 1) / ${PER_STREAM}), 'actor', json_build_object('id', 'ann', 'name', 'Ann')))
          ELSE json_build_object('event', json_build_object('id', g - 1, 'name', 'Previous', 'stream', 'order-' || ((g - 1) / ${PER_STREAM}))) END),
      timestamptz '2026-01-01' + g * interval '1 second'
    FROM generate_series(1, ${STREAMS * PER_STREAM}) g`);
  await client.query(`ANALYZE "${schema}".events`);
  console.log(
    `Seeded ${(STREAMS * PER_STREAM).toLocaleString("en")} events in ${STREAMS.toLocaleString("en")} streams in ${((Date.now() - seeding) / 1000).toFixed(1)} s`
  );

  const catalog = new PgCatalog({ connectionString: url, schema });
  const inspector = await startServer({ store, catalog });
  await firstScreen(inspector);

  const explain = async (title: string, text: string) => {
    const { rows } = await client.query(`EXPLAIN (ANALYZE, COSTS OFF, TIMING ON) ${text}`);
    console.log(`\n### ${title}\n\n${rows.map((r: Record<string, string>) => r["QUERY PLAN"]).join("\n")}`);
  };
  const events = `"${schema}".events`;
  const sql = (text: string, ...values: string[]) => values.reduce((t, v, i) => t.replaceAll(`$${i + 1}`, v), text);
  await explain("Streams, first page (no prefix)", sql(streamsSql(events), "''", "''", "51"));
  await explain("Streams starting with order-0420", sql(streamsSql(events), "'order-0420'", "''", "51"));
  await explain(
    "One stream's summary",
    `SELECT version, created FROM ${events} WHERE stream = 'order-042042' ORDER BY version DESC LIMIT 1`
  );
  await explain(
    "Timeline page (PostgresStore.query by stream)",
    `SELECT id, stream, version, created, name, data, meta FROM ${events} WHERE stream = 'order-042042' AND id > 0 ORDER BY id LIMIT 201`
  );
  await explain(
    "Event by id",
    `SELECT id, stream, version, created, name, data, meta FROM ${events} WHERE id > 420419 AND id < 420421 ORDER BY id LIMIT 1`
  );
  await explain(
    "Correlation search, no index on it",
    `SELECT id FROM ${events} WHERE meta->>'correlation' = 'c-42042' AND id > 420420 ORDER BY id LIMIT 1000`
  );
  await client.query(`CREATE INDEX events_correlation ON ${events} ((meta->>'correlation'), id)`);
  await client.query(`ANALYZE ${events}`);
  await explain(
    "Correlation search, with the recommended index",
    `SELECT id FROM ${events} WHERE meta->>'correlation' = 'c-42042' AND id > 420420 ORDER BY id LIMIT 1000`
  );
  await inspector.close();
  await catalog.close();
} finally {
  await client.end();
  await store.drop().catch(() => {});
  await store.dispose();
  await server?.stop();
}
