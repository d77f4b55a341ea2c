/**
 * The SQLite half of tools/measure.ts: one million events (100,000 streams
 * of 10) in a SqliteStore file, the inspector in store mode on it, the first
 * screen timed in Chromium five times, and the plan and time of each
 * catalog query. Figures, not a test.
 *
 *     npm run build:web -w @act-root/inspector
 *     npm run measure:sqlite -w @act-root/inspector
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "@act-root/act-sqlite";
import { firstScreen } from "./first-screen.js";
import Database from "libsql";
import { startServer } from "../src/server/http.js";
import { SqliteCatalog } from "../src/server/sqlite-catalog.js";

const STREAMS = 100_000;
const PER_STREAM = 10;
const dir = mkdtempSync(join(tmpdir(), "inspector-million-"));
const file = join(dir, "events.db");

try {
  const store = new SqliteStore({ filename: file, synchronous: "NORMAL" });
  await store.seed();
  await store.dispose();
  const seeding = Date.now();
  const db = new Database(file);
  // One statement, as on Postgres: the same rows (a causal chain per stream, ~150-byte payloads).
  db.exec(`
    WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < ${STREAMS * PER_STREAM})
    INSERT INTO act_events (id, stream, version, name, data, meta, created)
    SELECT x,
      'order-' || printf('%06d', (x - 1) / ${PER_STREAM}),
      (x - 1) % ${PER_STREAM},
      'Event' || ((x - 1) % ${PER_STREAM}),
      json_object('item', 'item-' || (x % 997), 'price', x % 100, 'note', printf('%.80c', 'x')),
      json_object('correlation', 'c-' || ((x - 1) / ${PER_STREAM}), 'causation',
        CASE WHEN (x - 1) % ${PER_STREAM} = 0
          THEN json_object('action', json_object('name', 'AddItem', 'stream', 'order-' || ((x - 1) / ${PER_STREAM})))
          ELSE json_object('event', json_object('id', x - 1, 'name', 'Previous', 'stream', 'order-' || ((x - 1) / ${PER_STREAM}))) END),
      1767225600000 + x * 1000
    FROM g;
    ANALYZE;`);
  db.close();
  console.log(
    `Seeded ${(STREAMS * PER_STREAM).toLocaleString("en")} events in ${STREAMS.toLocaleString("en")} streams in ${((Date.now() - seeding) / 1000).toFixed(1)} s`
  );

  const sqlite = new SqliteStore({ filename: file });
  const catalog = await SqliteCatalog.open(file);
  const inspector = await startServer({ store: sqlite, catalog });
  await firstScreen(inspector);

  const time = async (title: string, work: () => Promise<unknown>) => {
    const start = performance.now();
    await work();
    console.log(`${title}: ${(performance.now() - start).toFixed(2)} ms`);
  };
  await time("Streams, first page", () => catalog.streams("", undefined, 50));
  await time("Streams starting with order-0420", () => catalog.streams("order-0420", undefined, 50));
  await time("One stream's summary", () => catalog.stream("order-042042"));
  await time("Timeline page", () => sqlite.query(() => {}, { stream: "order-042042", limit: 201, with_snaps: true }));
  await time("Event by id", () =>
    sqlite.query(() => {}, { after: 420419, before: 420421, limit: 1, with_snaps: true })
  );
  await time("Correlation search (no index)", () =>
    sqlite.query(() => {}, { correlation: "c-42042", after: 420420, limit: 1000 })
  );
  const plans = catalog.explain("order-0420");
  console.log(`\nPlan of a page of streams:\n${plans.streams}\n\nPlan of one stream's summary:\n${plans.stream}`);
  await inspector.close();
  await catalog.close();
  await sqlite.dispose();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
