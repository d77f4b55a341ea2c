import { act, ConcurrencyError, type EventMeta, SNAP_EVENT, StoreError, state, store } from "@act-root/act";
import driver from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { PostgresStore } from "../src/index.js";
import * as q from "../src/sql.js";
import * as w from "../src/watermark-sql.js";
import { makeStore, sleep, sql } from "./support.js";

const meta = (correlation = "c"): EventMeta => ({ correlation, causation: {} });
const msg = (name: string, data: Record<string, unknown> = {}) => ({ name, data });

let pg: PostgresStore;
const all = async (query?: Parameters<PostgresStore["query"]>[1]) => {
  const events: any[] = [];
  await pg.query((e) => events.push(e), query);
  return events;
};

/** Tables, indexes and the schema present in `schema`. */
const catalog = (schema: string) =>
  sql<{ kind: string; name: string }>(
    `SELECT 'schema' AS kind, nspname AS name FROM pg_namespace WHERE nspname = $1
     UNION ALL SELECT CASE relkind WHEN 'r' THEN 'table' ELSE 'index' END, relname FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND relkind IN ('r', 'i')
     ORDER BY 1, 2`,
    [schema]
  );

const Counter = state("Counter", z.object({ count: z.number(), at: z.date().optional() }))
  .init(() => ({ count: 0 }))
  .emits({ Incremented: z.object({ by: z.number(), at: z.date() }) })
  .patch({ Incremented: (e, s) => ({ count: s.count + e.data.by, at: e.data.at }) })
  .on("increment", z.object({ by: z.number() }))
  .emit(({ by }) => ["Incremented", { by, at: new Date() }])
  .snap((s) => s.patches >= 3)
  .build();

beforeAll(async () => {
  pg = makeStore({ schema: "store_tests", table: "events" });
  store(pg);
});

afterAll(async () => {
  await pg.drop();
  await pg.dispose();
});

beforeEach(async () => {
  await pg.drop();
  await pg.seed();
});

describe("seed and drop", () => {
  it("creates the schema, its tables and the indexes, idempotently, and drop removes them", async () => {
    await pg.seed();
    await Promise.all([pg.seed(), pg.seed(), makeStore({ schema: "store_tests" }).seed()]);
    expect(await catalog("store_tests")).toEqual([
      { kind: "index", name: "events_archive_archived" },
      { kind: "index", name: "events_archive_pkey" },
      { kind: "index", name: "events_archive_snapshots" },
      { kind: "index", name: "events_archive_stream_version" },
      { kind: "index", name: "events_closed" },
      { kind: "index", name: "events_discovery_pkey" },
      { kind: "index", name: "events_keys_expires" },
      { kind: "index", name: "events_keys_pkey" },
      { kind: "index", name: "events_pkey" },
      { kind: "index", name: "events_snapshots" },
      { kind: "index", name: "events_stream_id" },
      { kind: "index", name: "events_stream_version" },
      { kind: "index", name: "events_subject_keys_pkey" },
      { kind: "index", name: "events_subject_streams_pkey" },
      { kind: "index", name: "events_subject_streams_stream" },
      { kind: "index", name: "events_timers_claimed" },
      { kind: "index", name: "events_timers_pending" },
      { kind: "index", name: "events_timers_pkey" },
      { kind: "index", name: "events_watermarks_blocked" },
      { kind: "index", name: "events_watermarks_by_name" },
      { kind: "index", name: "events_watermarks_pkey" },
      { kind: "index", name: "events_watermarks_ready" },
      { kind: "schema", name: "store_tests" },
      { kind: "table", name: "events" },
      { kind: "table", name: "events_archive" },
      { kind: "table", name: "events_discovery" },
      { kind: "table", name: "events_keys" },
      { kind: "table", name: "events_subject_keys" },
      { kind: "table", name: "events_subject_streams" },
      { kind: "table", name: "events_timers" },
      { kind: "table", name: "events_watermarks" },
    ]);
    // The keys table of a store seeded before requests were kept gains the column.
    await sql(`ALTER TABLE store_tests.events_keys DROP COLUMN request`);
    await pg.seed();
    expect(
      await sql(
        `SELECT column_name FROM information_schema.columns WHERE table_schema = 'store_tests' AND table_name = 'events_keys' AND column_name = 'request'`
      )
    ).toHaveLength(1);
    // So does a timers table created before timers carried their scheduling action's correlation, its timers kept.
    await sql(`ALTER TABLE store_tests.events_timers DROP COLUMN correlation`);
    await sql(
      `INSERT INTO store_tests.events_timers (id, action, stream, actor, payload, due) VALUES ('old', 'a', 's', '{"id":"u","name":"U"}', '{}', 0)`
    );
    await pg.seed();
    await pg.seed(); // and opens again without another change
    const actor = { id: "u", name: "U" };
    await pg.timers.schedule([
      { id: "new", action: "a", stream: "s", actor, payload: {}, due: new Date(1), correlation: "c-1" },
    ]);
    const claimed = await pg.timers.claim({ now: new Date(5), by: "p", millis: 1_000, limit: 10, actions: ["a"] });
    expect(claimed.map(({ id, correlation }) => ({ id, correlation }))).toEqual([
      { id: "old", correlation: undefined },
      { id: "new", correlation: "c-1" },
    ]);
    await pg.drop();
    expect(await catalog("store_tests")).toEqual([]);
    await pg.drop(); // idempotent too
  });

  it("keeps a schema that holds other objects, and never drops public", async () => {
    await sql(`CREATE TABLE store_tests.keep_me (x int)`);
    await pg.drop();
    expect(await catalog("store_tests")).toEqual([
      { kind: "schema", name: "store_tests" },
      { kind: "table", name: "keep_me" },
    ]);
    await sql(`DROP TABLE store_tests.keep_me`);
    const pub = makeStore({ table: "public_probe" });
    await pub.seed();
    await pub.drop();
    await pub.dispose();
    expect(await sql(`SELECT 1 FROM pg_namespace WHERE nspname = 'public'`)).toHaveLength(1);
  });

  it("loads a stream through indexes, not a sequential scan", async () => {
    for (let s = 0; s < 200; s++)
      await pg.commit({
        stream: `s-${s}`,
        messages: Array.from({ length: 21 }, (_, i) =>
          i % 10 === 9 ? msg(SNAP_EVENT, { of: "E", state: { i } }) : msg("E", { i })
        ),
        meta: meta(),
      });
    await sql(`ANALYZE store_tests.events`);
    const names = q.names("store_tests", "events");
    for (const query of [
      { stream: "s-7", from_snapshot: "E" },
      { stream: "s-7" },
      { stream: "s-7", after: 5, limit: 10 },
    ]) {
      const { text, values } = q.query(names, query);
      const plan = (await sql(`EXPLAIN ${text}`.replace(/\$(\d+)/g, (_, i) => literal(values[Number(i) - 1]))))
        .map((r) => r["QUERY PLAN"])
        .join("\n");
      expect(plan).not.toMatch(/Seq Scan/);
      expect(plan).toMatch(/(Index (Only )?Scan( Backward)? using|Bitmap Index Scan on) events_stream_id/);
      if (query.from_snapshot) expect(plan).toMatch(/events_snapshots/);
    }
    const loaded = await all({ stream: "s-7", from_snapshot: "E" });
    expect(loaded.map((e) => e.name)).toEqual([SNAP_EVENT, "E"]);
    expect(loaded[0].data).toEqual({ of: "E", state: { i: 19 } });
  });
});

describe("reaction table plans", () => {
  it("polls through the index of streams with work, and lists streams in index order without sorting", async () => {
    const [e] = await pg.commit({ stream: "s", messages: [msg("E", {})], meta: meta() });
    // 5,000 caught-up streams, 5 with work, 3 blocked.
    const idle = Array.from({ length: 5_000 }, (_, i) => ({
      stream: `idle-${i}`,
      by: "d",
      at: e.id,
      head: e.id,
      retry: 0,
    }));
    const busy = Array.from({ length: 5 }, (_, i) => ({ stream: `busy-${i}`, by: "d", at: -1, head: e.id, retry: 0 }));
    await pg.lease([...idle, ...busy], 0);
    for (let i = 0; i < 3; i++) {
      const [granted] = await pg.lease([{ ...busy[i], stream: `idle-${i}`, at: e.id }], 10_000);
      await pg.block([{ ...granted, error: "boom" }]);
    }
    await sql("ANALYZE store_tests.events_watermarks");
    const names = q.names("store_tests", "events");
    const plan = async (text: string, values: unknown[]) =>
      (
        await sql(
          `EXPLAIN ${text}`.replace(/\$(\d+)/g, (_, i) =>
            values[Number(i) - 1] === null ? "NULL" : literal(values[Number(i) - 1])
          )
        )
      )
        .map((r) => r["QUERY PLAN"])
        .join("\n");
    const poll = await plan(w.poll(names), [5, 5, null]);
    expect(poll).toMatch(/events_watermarks_ready/);
    expect(poll).not.toMatch(/Seq Scan/);
    // A page of the listing (the whole table is the planner's choice: an index scan or a scan and a sort).
    const listed = await plan(w.reactions(names), [100]);
    expect(listed).toMatch(/Index Scan using events_watermarks_by_name/);
    expect(listed).not.toMatch(/Sort/);
    const blocked = await plan(w.reactions(names, true), [null]);
    expect(blocked).toMatch(/events_watermarks_blocked/);
    expect(blocked).not.toMatch(/Seq Scan/); // reads the blocked rows only (a sort of those few may follow)
    // Named streams are looked up by key, not found by reading the table.
    const named = await plan(w.reactionsIn(names), [null, ["busy-1", "idle-4000"], null]);
    expect(named).toMatch(/events_watermarks_pkey|events_watermarks_by_name/);
    expect(named).not.toMatch(/Seq Scan/);
    expect((await pg.reactions({ streams: ["idle-4000", "busy-1"] })).map((r) => r.stream)).toEqual([
      "busy-1",
      "idle-4000",
    ]);
    expect((await pg.poll({ lagging: 10, leading: 10 })).map((p) => p.stream).sort()).toEqual(
      busy.map((b) => b.stream)
    );
    expect((await pg.reactions({ blocked: true })).map((r) => r.stream)).toEqual(["idle-0", "idle-1", "idle-2"]);
    expect((await pg.reactions({ blocked: false, limit: 2 })).map((r) => r.stream)).toEqual(["busy-0", "busy-1"]);
  });
});

/** A value as an SQL literal, only for EXPLAIN in tests. */
const literal = (value: unknown): string =>
  typeof value === "number"
    ? String(value)
    : Array.isArray(value)
      ? `ARRAY[${value.map(literal).join(",")}]`
      : `'${String(value).replace(/'/g, "''")}'`;

describe("commit", () => {
  it("writes any number of events in one statement and one transaction", async () => {
    const events = await pg.commit({
      stream: "big",
      messages: Array.from({ length: 2000 }, (_, i) => msg("E", { i })),
      meta: meta(),
      expectedVersion: -1,
    });
    expect(events.map((e) => e.version)).toEqual(Array.from({ length: 2000 }, (_, i) => i));
    const xids = await sql(`SELECT DISTINCT id >> 16 AS xid FROM store_tests.events`);
    expect(xids).toHaveLength(1); // every row written by the same transaction
    expect(await all({ stream: "big" })).toHaveLength(2000);
  });

  it("reports the stream's actual version in a ConcurrencyError, and an empty commit still checks", async () => {
    await pg.commit({ stream: "a", messages: [msg("A"), msg("B")], meta: meta() });
    const error = await pg
      .commit({ stream: "a", messages: [msg("C")], meta: meta(), expectedVersion: 5 })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ConcurrencyError);
    expect(error).toMatchObject({ stream: "a", lastVersion: 1, expectedVersion: 5 });
    await expect(pg.commit({ stream: "a", messages: [], meta: meta(), expectedVersion: 0 })).rejects.toBeInstanceOf(
      ConcurrencyError
    );
    expect(await pg.commit({ stream: "a", messages: [], meta: meta(), expectedVersion: 1 })).toEqual([]);
  });

  it("commits without an expected version concurrently: all succeed, versions stay dense", async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        pg.commit({ stream: "free", messages: [msg("E", { i }), msg("F", { i })], meta: meta() })
      )
    );
    expect(results.flat()).toHaveLength(24);
    expect((await all({ stream: "free" })).map((e) => e.version)).toEqual(Array.from({ length: 24 }, (_, i) => i));
  });

  it("takes values as parameters: stream names with quotes round-trip exactly", async () => {
    const evil = `x'); DROP TABLE store_tests.events; --"`;
    await pg.commit({ stream: evil, messages: [msg("A", { evil })], meta: meta(evil) });
    expect(await all({ stream: evil })).toEqual([expect.objectContaining({ stream: evil, data: { evil } })]);
    expect(await all({ correlation: evil })).toHaveLength(1);
    expect(await all({ names: [evil] })).toEqual([]);
  });

  it("round-trips unicode stream names, names and data, matching streams exactly", async () => {
    const streams = ["订单-１", "ä", "a\u0308", "🧾-😀", "עברית", "emoji 👩‍👩‍👧 family"];
    for (const stream of streams) await pg.commit({ stream, messages: [msg("Ünïcødé ✓", { stream })], meta: meta() });
    for (const stream of streams) {
      const events = await all({ stream });
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ stream, name: "Ünïcødé ✓", data: { stream } });
    }
  });

  it("round-trips a 1 MB payload", async () => {
    const blob = "x".repeat(1024 * 1024);
    const list = Array.from({ length: 2000 }, (_, i) => ({ i, s: "é✓".repeat(10) }));
    await pg.commit({ stream: "large", messages: [msg("Large", { blob, list })], meta: meta() });
    const [event] = await all({ stream: "large" });
    expect(event.data.blob.length).toBe(1024 * 1024);
    expect(event.data).toEqual({ blob, list });
  });

  it("keeps data exactly as written, key order included", async () => {
    const data = { zebra: 1, apple: { b: 2, a: 1 }, "10": "ten", mango: [3, 2, 1] };
    await pg.commit({ stream: "order", messages: [msg("Ordered", data)], meta: meta() });
    const [event] = await all({ stream: "order" });
    expect(JSON.stringify(event.data)).toBe(JSON.stringify(data));
  });

  it("refuses data that is not JSON-serialisable with a clear error, and commits nothing", async () => {
    const cycle: Record<string, unknown> = {};
    cycle.me = cycle;
    await expect(
      pg.commit({ stream: "bad", messages: [msg("A"), msg("B", { fn: () => 1 })], meta: meta() })
    ).rejects.toThrow(/PostgresStore commit to "bad": messages\[1\]\.data\.fn is a function/);
    await expect(pg.commit({ stream: "bad", messages: [msg("A", { n: 10n })], meta: meta() })).rejects.toThrow(
      /data\.n is a bigint/
    );
    await expect(pg.commit({ stream: "bad", messages: [msg("A", cycle)], meta: meta() })).rejects.toThrow(/circular/);
    await expect(pg.commit({ stream: "bad", messages: [msg("A", { s: "nul\u0000" })], meta: meta() })).rejects.toThrow(
      /NUL character/
    );
    await expect(pg.commit({ stream: "bad", messages: [msg("A", { m: new Map() })], meta: meta() })).rejects.toThrow(
      /data\.m is a Map/
    );
    expect(await all()).toEqual([]);
  });

  it("refuses more events than one commit can number", async () => {
    const many = Array.from({ length: q.MAX_EVENTS_PER_COMMIT + 1 }, () => msg("E"));
    await expect(pg.commit({ stream: "huge", messages: many, meta: meta() })).rejects.toThrow(RangeError);
  });
});

describe("idempotency keys", () => {
  it("are purged once expired, by a statement apart from the commit, so the table does not grow for ever", async () => {
    const table = { schema: "store_tests", table: "purge" };
    const shortLived = makeStore({ ...table, idempotencyMillis: 1 });
    await shortLived.seed();
    const keys = async () =>
      (await sql<{ key: string }>(`SELECT key FROM store_tests.purge_keys ORDER BY key`)).map((r) => r.key);
    try {
      // The first keyed commit starts this store's purge; let it finish.
      await shortLived.commit({ stream: "p-0", messages: [msg("E")], meta: meta(), idempotencyKey: "k-0" });
      await sleep(200);
      for (let i = 1; i < 5; i++)
        await shortLived.commit({ stream: `p-${i}`, messages: [msg("E")], meta: meta(), idempotencyKey: `k-${i}` });
      await sleep(20);
      // At most one purge a minute per store: these expired keys are still there.
      expect(await keys()).toEqual(expect.arrayContaining(["k-1", "k-2", "k-3", "k-4"]));
      // Another process's first keyed commit purges the expired ones and keeps its own.
      const other = makeStore(table);
      try {
        await other.commit({ stream: "p-new", messages: [msg("E")], meta: meta(), idempotencyKey: "fresh" });
        await vi.waitFor(async () => expect(await keys()).toEqual(["fresh"]), { timeout: 5_000, interval: 20 });
        expect(await other.recall("p-new", "fresh")).toEqual({ from: 0, to: 0 });
      } finally {
        await other.dispose();
      }
    } finally {
      await shortLived.drop();
      await shortLived.dispose();
    }
  });

  it("purges off the commit path: the commit does not wait for the purge", () => {
    expect(q.commit(q.names("s", "t"), true)).not.toContain("DELETE");
    expect(q.purgeKeys(q.names("s", "t"))).toContain("LIMIT $1");
  });
});

describe("round trips", () => {
  /**
   * Counts the statements the caller waits for (every operation goes through
   * a pool's query). The store's notification to other processes travels
   * inside a commit that is due to send one, or after commits as a statement
   * of its own, off the caller's path: those are not counted. `wakeUps` gets
   * the moment each notification, either way, reached the driver.
   */
  async function counted<T>(run: () => Promise<T>, wakeUps?: { sentAt: number[] }): Promise<number> {
    let others = 0;
    const query = driver.Pool.prototype.query;
    const spy = vi.spyOn(driver.Pool.prototype, "query").mockImplementation(function (
      this: unknown,
      ...args: unknown[]
    ) {
      const [config] = args as [string | { text: string }];
      const text = typeof config === "string" ? config : config.text;
      if (text.includes("pg_notify")) wakeUps?.sentAt.push(performance.now());
      if (!text.startsWith("SELECT pg_notify")) others++;
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query);
    try {
      await run();
      return others;
    } finally {
      spy.mockRestore();
    }
  }

  it("one statement per commit of any size and per load; at most two per action", async () => {
    const app = act().with(Counter).build();
    const actor = { id: "u-1", name: "Ada" };
    expect(
      await counted(() =>
        pg.commit({
          stream: "rt",
          messages: Array.from({ length: 500 }, () => msg("Incremented", { by: 1, at: new Date() })),
          meta: meta(),
        })
      )
    ).toBe(1);
    expect(await counted(() => app.load(Counter, "rt"))).toBe(1);
    // A first action on a stream is one read and one write.
    expect(await counted(() => app.do("increment", { stream: "rt2", actor }, { by: 1 }))).toBe(2);
    // Then the app has its snapshot: the write's version check is the read.
    expect(await counted(() => app.do("increment", { stream: "rt2", actor }, { by: 1 }))).toBe(1);
    // An explicit expected version reads the stream first.
    await app.do("increment", { stream: "rt3", actor }, { by: 1 });
    expect(await counted(() => app.do("increment", { stream: "rt3", actor, expectedVersion: 0 }, { by: 1 }))).toBe(2);
  });

  it("wakes other processes with few notifications for a burst or a steady stream of commits, and each commit is announced", async () => {
    const other = makeStore({ schema: "store_tests", table: "events" });
    // The event names each notification announced (each commit below has a name of its own).
    const heard = new Set<string>();
    const stop = other.subscribe((names) => {
      for (const name of names ?? []) heard.add(name);
    });
    let tries = 0;
    try {
      await vi.waitFor(async () => {
        // Listening has started once a commit wakes the other store.
        const name = `Warm${tries++}`;
        await pg.commit({ stream: "warm", messages: [msg(name)], meta: meta() });
        await sleep(20);
        expect(heard.has(name)).toBe(true);
      });
      const burst = { sentAt: [] as number[] };
      const burstNames = Array.from({ length: 40 }, (_, i) => `Burst${i}`);
      await counted(async () => {
        await Promise.all(
          burstNames.map((name, i) => pg.commit({ stream: `burst-${i}`, messages: [msg(name)], meta: meta() }))
        );
        await vi.waitFor(() => expect(burstNames.filter((name) => !heard.has(name))).toEqual([]));
      }, burst);
      expect(burst.sentAt.length).toBeGreaterThan(0);
      expect(burst.sentAt.length).toBeLessThan(40);

      // A steady stream of commits, one after another: notifications a few
      // milliseconds apart (inside commits while they go on), each announcing
      // the commits made since the one before, not one per commit; the last
      // commit is announced too. (The spacing is what a count over wall-clock
      // time would measure, but it holds however slowly a busy machine
      // commits.)
      const steady = { sentAt: [] as number[] };
      const steadyNames = Array.from({ length: 60 }, (_, i) => `Steady${i}`);
      await counted(async () => {
        for (const [i, name] of steadyNames.entries())
          await pg.commit({ stream: `steady-${i}`, messages: [msg(name)], meta: meta() });
        await vi.waitFor(() => expect(steadyNames.filter((name) => !heard.has(name))).toEqual([]));
      }, steady);
      expect(steady.sentAt.length).toBeGreaterThan(0);
      expect(steady.sentAt.length).toBeLessThan(60);
      const gaps = steady.sentAt
        .slice(1)
        .map((at, i) => at - steady.sentAt[i]!)
        .sort((a, b) => a - b);
      // The store keeps 5 ms between the moments it decides to send them
      // (exactly so in `notify.model.test.ts`, on a fake clock). Measured
      // here is when each reached the driver, which a garbage collection
      // in between can move for one of them: the typical gap is held to it.
      expect(gaps[Math.floor(gaps.length / 2)]).toBeGreaterThanOrEqual(4.9);
    } finally {
      stop();
      await other.dispose();
    }
  });
});

describe("dates and metadata", () => {
  it("round-trip created, dates inside data and the causation through an app", async () => {
    const app = act().with(Counter).build();
    const actor = { id: "u-1", name: "Ada" };
    const [first] = await app.do("increment", { stream: "dates", actor }, { by: 2 });
    const [second] = await app.do(
      "increment",
      { stream: "dates", actor, expectedVersion: 0 },
      { by: 3 },
      first.event as any
    );
    const events = await app.queryArray({ stream: "dates" });
    expect(events).toHaveLength(2);
    for (const e of events) {
      expect(e.created).toBeInstanceOf(Date);
      expect(e.data.at).toBeInstanceOf(Date);
    }
    expect(events[0].data.at.getTime()).toBe((first.event!.data as any).at.getTime());
    expect(events[0].created.getTime()).toBe(first.event!.created.getTime());
    expect(events[1].meta).toEqual(second.event!.meta);
    expect(events[1].meta.correlation).toBe(events[0].meta.correlation);
    expect(events[1].meta.causation).toEqual({
      action: { name: "increment", stream: "dates", actor, expectedVersion: 0 },
      event: { id: events[0].id, name: "Incremented", stream: "dates" },
    });
    const loaded = await app.load(Counter, "dates");
    expect(loaded.state).toEqual({ count: 5, at: events[1].data.at });
  });

  it("keeps strings that only look like dates in another format as strings", async () => {
    await pg.commit({
      stream: "strings",
      messages: [msg("A", { day: "2025-01-02", local: "2025-01-02T03:04:05" })],
      meta: meta(),
    });
    expect((await all())[0].data).toEqual({ day: "2025-01-02", local: "2025-01-02T03:04:05" });
  });
});

describe("snapshots", () => {
  it("never make the caller's next action conflict, and loads read from the latest one", async () => {
    const app = act().with(Counter).build();
    const actor = { id: "u-1", name: "Ada" };
    for (let i = 1; i <= 20; i++) {
      const snaps = await app.do("increment", { stream: "snappy", actor }, { by: 1 });
      expect(snaps[0].state.count).toBe(i);
    }
    const withSnaps = await all({ stream: "snappy", with_snaps: true });
    expect(withSnaps.filter((e) => e.name === SNAP_EVENT)).toHaveLength(6);
    expect(withSnaps.map((e) => e.version)).toEqual(withSnaps.map((_, i) => i));
    const tail = await all({ stream: "snappy", from_snapshot: Counter.version });
    expect(tail[0].name).toBe(SNAP_EVENT);
    expect(tail.length).toBeLessThanOrEqual(3);
    expect((await app.load(Counter, "snappy")).state.count).toBe(20);
  });
});

describe("poll", () => {
  it("does not count snapshot events as pending reactions", async () => {
    let handled = 0;
    const app = act()
      .with(Counter)
      .on("Incremented")
      .do(async () => {
        handled++;
      })
      .build();
    const actor = { id: "u-1", name: "Ada" };
    for (let i = 0; i < 3; i++) await app.do("increment", { stream: "snapping", actor }, { by: 1 });
    const [last] = await all({ stream: "snapping", with_snaps: true, backward: true, limit: 1 });
    expect(last.name).toBe(SNAP_EVENT); // the stream ends with a snapshot
    await app.drain();
    expect(handled).toBe(3);
    // Nothing left to do: the trailing snapshot must not keep the stream polled.
    expect(await pg.poll({ lagging: 10, leading: 10 })).toEqual([]);
  });
});

describe("query", () => {
  it("reads backward with limits and combined filters", async () => {
    await pg.commit({ stream: "a", messages: [msg("A1"), msg("A2"), msg("A3")], meta: meta("x") });
    const start = new Date();
    await sleep(10);
    await pg.commit({ stream: "b", messages: [msg("B1")], meta: meta("y") });
    expect((await all({ backward: true, limit: 2, names: ["A1", "A2", "B1"] })).map((e) => e.name)).toEqual([
      "B1",
      "A2",
    ]);
    expect((await all({ created_after: start, correlation: "y" })).map((e) => e.name)).toEqual(["B1"]);
    expect((await all({ stream: "a", backward: true, before: (await all())[2].id })).map((e) => e.name)).toEqual([
      "A2",
      "A1",
    ]);
  });
});

describe("errors", () => {
  it("fails clearly when the database cannot be reached, and after dispose", async () => {
    const nowhere = makeStore({
      connectionString: "postgres://postgres@127.0.0.1:1/postgres",
      connectionTimeoutMillis: 2000,
    });
    await expect(nowhere.query(() => {})).rejects.toThrow(
      /PostgresStore query could not reach the database \(connect ECONNREFUSED/
    );
    await expect(nowhere.seed()).rejects.toThrow(/PostgresStore seed/);
    await nowhere.dispose();
    const closed = makeStore({ table: "closed" });
    await closed.dispose();
    await closed.dispose();
    const error = await closed.poll({ lagging: 1, leading: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ operation: "poll", reason: "disposed", retryable: false });
    expect((error as Error).message).toMatch(/PostgresStore poll was called after the store was disposed/);
    const unreachable = await makeStore({ connectionString: "postgres://postgres@127.0.0.1:1/postgres" })
      .commit({ stream: "a", messages: [msg("A")], meta: meta() })
      .catch((e: unknown) => e);
    expect(unreachable).toMatchObject({ reason: "unreachable", retryable: true, operation: 'commit to "a"' });
  });

  it("names the operation when the tables are missing", async () => {
    await pg.drop();
    await expect(pg.commit({ stream: "a", messages: [msg("A")], meta: meta() })).rejects.toThrow(
      /PostgresStore commit to "a" failed: relation .* does not exist/
    );
    await expect(pg.lease([{ stream: "r", by: "d", at: -1, retry: 0 }], 0)).rejects.toThrow(
      /PostgresStore lease failed/
    );
  });
});
