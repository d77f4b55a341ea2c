/**
 * The inspector at real sizes, on a SqliteStore file: 1,000,000 events
 * (99,996 streams of 10, and one of 40,000), 6,000 reaction streams with one
 * blocked. Times the reactions endpoint, the newest page of the long stream,
 * and a correlation search without an index — with how long other requests
 * waited meanwhile. Figures, not a test.
 *
 *     npm run measure:sizes -w @act-root/inspector
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "@act-root/act-sqlite";
import Database from "libsql";
import { startServer } from "../src/server/http.js";
import { SqliteCatalog } from "../src/server/sqlite-catalog.js";
import { signIn } from "../test/session.js";

const EVENTS = 1_000_000;
const LONG = 40_000;
const REACTIONS = 6_000;
const dir = mkdtempSync(join(tmpdir(), "inspector-sizes-"));
const file = join(dir, "events.db");

try {
  const seeding = new SqliteStore({ filename: file, synchronous: "NORMAL" });
  await seeding.seed();
  const started = Date.now();
  const db = new Database(file);
  // The first 960,000 events in streams of 10 (a correlation each), the last 40,000 in one stream.
  db.exec(`
    WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < ${EVENTS})
    INSERT INTO act_events (id, stream, version, name, data, meta, created)
    SELECT x,
      CASE WHEN x > ${EVENTS - LONG} THEN 'long-1' ELSE 'order-' || printf('%06d', (x - 1) / 10) END,
      CASE WHEN x > ${EVENTS - LONG} THEN x - ${EVENTS - LONG} - 1 ELSE (x - 1) % 10 END,
      'Event', json_object('item', 'item-' || (x % 997), 'note', printf('%.80c', 'x')),
      json_object('correlation', 'c-' || ((x - 1) / 10), 'causation', json_object()),
      1767225600000 + x * 1000
    FROM g;
    ANALYZE;`);
  db.close();
  const name = (i: number) => `reaction-${String(i).padStart(5, "0")}`;
  await seeding.lease(
    Array.from({ length: REACTIONS }, (_, i) => ({
      stream: name(i),
      by: "seed",
      at: i % 2 ? EVENTS : -1,
      head: EVENTS,
      retry: 0,
    })),
    0
  );
  const [lease] = await seeding.lease([{ stream: name(4_321), by: "seed", at: -1, retry: 0 }], 60_000);
  await seeding.block([{ ...lease, error: "refused" }]);
  await seeding.dispose();
  console.log(
    `Seeded ${EVENTS.toLocaleString("en")} events and ${REACTIONS.toLocaleString("en")} reaction streams in ${((Date.now() - started) / 1000).toFixed(1)} s`
  );

  const sqlite = new SqliteStore({ filename: file });
  const catalog = await SqliteCatalog.open(file);
  const server = await startServer({ store: sqlite, catalog });
  const session = await signIn(server.url);
  const get = async (path: string) => {
    const start = performance.now();
    const res = await fetch(`http://127.0.0.1:${server.port}${path}`, {
      headers: { authorization: `Bearer ${session}` },
    });
    const body = (await res.json()) as any;
    return { ms: performance.now() - start, body };
  };
  const median = async (path: string) => {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) times.push((await get(path)).ms);
    return times.sort((a, b) => a - b)[2].toFixed(1);
  };
  console.log(`GET /api/reactions (page of 50 of 6,000, blocked first): ${await median("/api/reactions")} ms`);
  console.log(`GET /api/reactions?q=0432&state=blocked: ${await median("/api/reactions?q=0432&state=blocked")} ms`);
  console.log(
    `GET /api/events?stream=long-1&order=newest (the newest 200 of 40,000): ${await median("/api/events?stream=long-1&order=newest")} ms`
  );

  for (const correlation of ["c-48000", "c-95999"]) {
    let full = performance.now();
    await sqlite.query(() => {}, { correlation });
    full = performance.now() - full;
    const waits: number[] = [];
    let done = false;
    const others = (async () => {
      while (!done) waits.push((await get("/api/info")).ms);
    })();
    const rounds: number[] = [];
    let after: number | undefined;
    let found = 0;
    for (;;) {
      const { ms, body } = await get(
        `/api/correlation?id=${correlation}${after === undefined ? "" : `&after=${after}`}`
      );
      rounds.push(ms);
      found += body.events.length;
      if (body.next === undefined) break;
      after = body.next;
    }
    done = true;
    await others;
    console.log(
      `Correlation ${correlation}: one query over the log ${full.toFixed(0)} ms; the inspector: ${rounds.length} requests (${rounds.map((r) => r.toFixed(0)).join(", ")} ms), ${found} events; ${waits.length} other requests meanwhile, the slowest ${Math.max(...waits).toFixed(0)} ms`
    );
  }
  await server.close();
  await catalog.close();
  await sqlite.dispose();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
