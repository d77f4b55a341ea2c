/**
 * The API at real sizes: thousands of reaction streams paged with the blocked
 * ones first, a 40,000-event stream read from its newest event, and searches
 * without an index that keep the server answering other requests.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { InMemoryStore } from "@act-root/act";
import { SqliteStore } from "@act-root/act-sqlite";
import Database from "libsql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BLOCKED, LONG, LONG_EVENTS, REACTION_STREAMS, sizes } from "../e2e/sizes.js";
import { StoreCatalog } from "../src/server/catalog.js";
import { type RunningServer, startServer } from "../src/server/http.js";
import { SqliteCatalog } from "../src/server/sqlite-catalog.js";
import { bearer, signIn } from "./session.js";

let big: InMemoryStore;
let server: RunningServer;
const sessions = new Map<RunningServer, string>();

async function get(s: RunningServer, path: string) {
  if (!sessions.has(s)) sessions.set(s, await signIn(s.link()));
  const res = await fetch(`http://127.0.0.1:${s.port}${path}`, { headers: bearer(sessions.get(s)!) });
  return { status: res.status, body: (await res.json()) as any };
}

beforeAll(async () => {
  big = await sizes();
  server = await startServer({ store: big, catalog: new StoreCatalog(big) });
});

afterAll(async () => {
  await server?.close();
});

type Row = { stream: string; blocked: boolean; at: number; head: number; leasedBy?: string };

describe("GET /api/reactions, 6,001 reaction streams", () => {
  it("answers a page of 50, the blocked stream first, with totals over every stream", async () => {
    const { status, body } = await get(server, "/api/reactions");
    expect(status).toBe(200);
    expect(body.streams).toHaveLength(50);
    expect(body.streams[0]).toMatchObject({
      stream: BLOCKED,
      blocked: true,
      error: expect.stringContaining("refused"),
    });
    expect(body.streams.slice(1).every((r: Row) => !r.blocked)).toBe(true);
    expect(body.totals).toEqual({ streams: REACTION_STREAMS + 1, blocked: 1, leased: 2, lagging: 3_001 });
    expect(body.matched).toBe(REACTION_STREAMS + 1);
    expect(typeof body.next).toBe("string");
  });

  it("pages through every stream with the cursor, each once, never more than the limit", async () => {
    const seen: string[] = [];
    let after = "";
    let pages = 0;
    for (;;) {
      const { status, body } = await get(server, `/api/reactions?limit=500&after=${encodeURIComponent(after)}`);
      expect(status).toBe(200);
      expect(body.streams.length).toBeLessThanOrEqual(500);
      seen.push(...body.streams.map((r: Row) => r.stream));
      pages++;
      if (!body.next) break;
      after = body.next;
    }
    expect(pages).toBe(13);
    expect(seen).toHaveLength(REACTION_STREAMS + 1);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen[0]).toBe(BLOCKED);
    // After the blocked one, by name.
    expect(seen.slice(1)).toEqual([...seen.slice(1)].sort());
  });

  it("refuses a page larger than 500, an unknown state and a long filter", async () => {
    expect((await get(server, "/api/reactions?limit=501")).status).toBe(400);
    expect((await get(server, "/api/reactions?limit=0")).status).toBe(400);
    expect((await get(server, "/api/reactions?state=stuck")).status).toBe(400);
    expect((await get(server, `/api/reactions?q=${"x".repeat(201)}`)).status).toBe(400);
  });

  it("filters by a part of the name, and by state", async () => {
    const byName = (await get(server, "/api/reactions?q=0500")).body;
    expect(byName.matched).toBe(11);
    expect(byName.streams.map((r: Row) => r.stream)).toEqual([
      BLOCKED,
      "reaction-00500",
      ...Array.from({ length: 9 }, (_, i) => `reaction-0500${i + 1}`),
    ]);
    expect(byName.totals.streams).toBe(REACTION_STREAMS + 1);
    const blocked = (await get(server, "/api/reactions?state=blocked")).body;
    expect(blocked.streams.map((r: Row) => r.stream)).toEqual([BLOCKED]);
    expect((await get(server, "/api/reactions?blocked=true")).body.streams.map((r: Row) => r.stream)).toEqual([
      BLOCKED,
    ]);
    const leased = (await get(server, "/api/reactions?state=leased")).body;
    expect(leased.streams.map((r: Row) => r.stream)).toEqual(["reaction-00002", "reaction-00004"]);
    const lagging = (await get(server, "/api/reactions?state=lagging&limit=500")).body;
    expect(lagging.matched).toBe(3_001);
    expect(lagging.streams.every((r: Row) => r.head > r.at)).toBe(true);
    const running = (await get(server, "/api/reactions?state=running&q=reaction-0500")).body;
    expect(running.matched).toBe(9);
  });
});

describe("GET /api/events of a 40,000-event stream", () => {
  it("starts at the newest event with order=newest, and pages back with the cursor", async () => {
    const first = (await get(server, `/api/events?stream=${LONG}&order=newest&limit=100`)).body;
    expect(first.events).toHaveLength(100);
    expect(first.events[0].version).toBe(LONG_EVENTS - 1);
    expect(first.events[99].version).toBe(LONG_EVENTS - 100);
    const second = (await get(server, `/api/events?stream=${LONG}&order=newest&limit=100&before=${first.next}`)).body;
    expect(second.events[0].version).toBe(LONG_EVENTS - 101);
    expect((await get(server, `/api/events?stream=${LONG}&order=latest`)).status).toBe(400);
  });
});

describe("a correlation search without an index, on a SQLite file of 600,000 events", () => {
  const dir = mkdtempSync(join(tmpdir(), "inspector-sizes-"));
  const file = join(dir, "events.db");
  const EVENTS = 600_000;
  let sqlite: SqliteStore;
  let catalog: SqliteCatalog;
  let searching: RunningServer;

  beforeAll(async () => {
    const seeding = new SqliteStore({ filename: file });
    await seeding.seed();
    await seeding.dispose();
    const db = new Database(file);
    // One correlation, "c", every 10,000 events, and every other event in a correlation of its own.
    db.exec(`
      WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < ${EVENTS})
      INSERT INTO act_events (id, stream, version, name, data, meta, created)
      SELECT x, 's-' || x, 0, 'Counted', json_object('n', x),
        json_object('correlation', CASE WHEN x % 10000 = 0 THEN 'c' ELSE 'other-' || x END, 'causation', json_object()),
        1767225600000 + x
      FROM g;`);
    db.close();
    sqlite = new SqliteStore({ filename: file });
    catalog = await SqliteCatalog.open(file);
    searching = await startServer({ store: sqlite, catalog, search: { window: 20_000, millis: 100 } });
  }, 60_000);

  afterAll(async () => {
    await searching?.close();
    await catalog?.close();
    await sqlite?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers other requests while it reads, and goes on from its cursor to find every event", async () => {
    await get(searching, "/api/info");
    // What one query over the whole log takes: the time an answer waited when the search was one query.
    let full = performance.now();
    await sqlite.query(() => {}, { correlation: "c" });
    full = performance.now() - full;
    const slowest: number[] = [];
    let done = false;
    const others = (async () => {
      while (!done) {
        const start = performance.now();
        await get(searching, "/api/info");
        slowest.push(performance.now() - start);
      }
    })();
    const pages: any[] = [];
    let after: number | undefined;
    const started = performance.now();
    for (;;) {
      const { status, body } = await get(
        searching,
        `/api/correlation?id=c${after === undefined ? "" : `&after=${after}`}`
      );
      expect(status).toBe(200);
      pages.push(body);
      if (body.next === undefined) break;
      after = body.next;
    }
    const took = performance.now() - started;
    const rounds = pages.length;
    done = true;
    await others;
    const found = pages.flatMap((page) => page.events.map((e: { id: number }) => e.id));
    expect(found).toEqual(Array.from({ length: EVENTS / 10_000 }, (_, i) => (i + 1) * 10_000));
    // No request waited for the whole scan: about one range of it at most.
    console.log(
      `whole scan ${full.toFixed(0)} ms; search ${took.toFixed(0)} ms in ${rounds} requests; ${slowest.length} other requests, the slowest ${Math.max(...slowest).toFixed(0)} ms`
    );
    expect(Math.max(...slowest)).toBeLessThan(full / 2);
    expect(slowest.length).toBeGreaterThan(rounds);
    // Each answer says how far it read, that no index helped, and where to go on from.
    expect(rounds).toBeGreaterThan(1);
    for (const page of pages) expect(page).toMatchObject({ indexed: false, last: EVENTS });
    for (const page of pages.slice(0, -1)) expect(page.searched).toBe(page.next);
    expect(pages[rounds - 1].searched).toBe(EVENTS);
  }, 60_000);
});
