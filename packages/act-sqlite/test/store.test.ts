/**
 * What the conformance suite does not cover: a locked file, wake-ups across
 * connections, two connections committing to one stream, long streams.
 */
import { ConcurrencyError, StoreError } from "@act-root/act";
import Database from "libsql";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteStore } from "../src/index.js";
import { SQL } from "../src/schema.js";
import { meta, sleep, tempFile } from "./support.js";
import { at, countScenario, nextDueScenario } from "../../act/test/timer-plans.suite.js";

const opened: SqliteStore[] = [];
const make = async (filename: string, options: { busyTimeoutMillis?: number; changeCheckMillis?: number } = {}) => {
  const s = new SqliteStore({ filename, ...options });
  opened.push(s);
  await s.seed();
  return s;
};
afterEach(async () => {
  for (const s of opened.splice(0)) await s.dispose();
});

describe("a file locked by another connection", () => {
  it("fails with a retryable StoreError after the busy timeout, commits nothing, and works once the lock is gone", async () => {
    const file = tempFile();
    const store = await make(file, { busyTimeoutMillis: 50 });
    await store.commit({ stream: "s", messages: [{ name: "A", data: {} }], meta });
    const other = new Database(file);
    other.exec("PRAGMA busy_timeout = 0; BEGIN IMMEDIATE");
    for (let i = 0; i < 3; i++) {
      const error = await store
        .commit({ stream: "s", messages: [{ name: "B", data: {} }], meta, expectedVersion: 0 })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreError);
      expect(error).toMatchObject({ reason: "busy", retryable: true });
      expect((error as Error).message).toContain(file);
    }
    other.exec("ROLLBACK");
    other.close();
    // The statements that failed were reused, not prepared afresh: the connection still commits.
    const [b] = await store.commit({ stream: "s", messages: [{ name: "B", data: {} }], meta, expectedVersion: 0 });
    expect(b.version).toBe(1);
    expect(await store.query(() => {})).toBe(2);
  });
});

describe("a file locked by another connection, for every write", () => {
  it("fails each write with a retryable StoreError naming it — a projection's too, not taken for a refused lease", async () => {
    const file = tempFile();
    const store = await make(file, { busyTimeoutMillis: 20 });
    const [e] = await store.commit({ stream: "s", messages: [{ name: "A", data: {} }], meta });
    const [held] = await store.lease([{ stream: "r", source: "s", by: "d", at: -1, retry: 0, head: e.id }], 60_000);
    const other = new Database(file);
    other.exec("PRAGMA busy_timeout = 0; BEGIN IMMEDIATE");
    try {
      const writes: [string, () => Promise<unknown>][] = [
        ["lease", () => store.lease([{ stream: "q", source: "s", by: "d", at: -1, retry: 0 }], 1_000)],
        ["ack", () => store.ack([{ ...held, at: e.id }])],
        ["block", () => store.block([{ ...held, error: "no" }])],
        ["unblock", () => store.unblock(["r"])],
        ["reset", () => store.reset(["r"])],
        ["retire", () => store.retire(["x"])],
        ["discover", () => store.discover(["x"], 0)],
        ["project", () => store.project(held, () => {})],
      ];
      for (const [operation, write] of writes) {
        const error = await write().catch((e: unknown) => e);
        expect(error, operation).toBeInstanceOf(StoreError);
        expect(error, operation).toMatchObject({ operation, reason: "busy", retryable: true });
      }
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    // Nothing was done: the lease is still held, and acknowledges once the lock is gone.
    expect(await store.project(held, () => {})).toBe(true);
  });
});

describe("subscribe", () => {
  it("wakes listeners right after a commit through the store, and within the check interval after another connection's", async () => {
    const file = tempFile();
    const store = await make(file, { changeCheckMillis: 20 });
    const other = await make(file);
    let woken = 0;
    const stop = store.subscribe(() => woken++);
    await store.commit({ stream: "s", messages: [{ name: "A", data: {} }], meta });
    await Promise.resolve();
    expect(woken).toBe(1);
    await other.commit({ stream: "s", messages: [{ name: "B", data: {} }], meta });
    const deadline = Date.now() + 2_000;
    while (woken < 2 && Date.now() < deadline) await sleep(5);
    expect(woken).toBe(2);
    stop();
    await other.commit({ stream: "s", messages: [{ name: "C", data: {} }], meta });
    await sleep(80);
    expect(woken).toBe(2);
  });
});

describe("two store instances on one file", () => {
  it("refuses a commit racing on one stream from two store instances on one file", async () => {
    const file = tempFile();
    const one = await make(file);
    const two = await make(file);
    await one.commit({ stream: "s", messages: [{ name: "A", data: {} }], meta, expectedVersion: -1 });
    const results = await Promise.allSettled([
      one.commit({ stream: "s", messages: [{ name: "B", data: {} }], meta, expectedVersion: 0 }),
      two.commit({ stream: "s", messages: [{ name: "C", data: {} }], meta, expectedVersion: 0 }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(results.find((r) => r.status === "rejected")?.reason).toBeInstanceOf(ConcurrencyError);
  });
});

describe("reading a long stream", () => {
  it("pages through it in both directions and honours id bounds, with other streams interleaved", async () => {
    const store = await make(":memory:");
    const ids: number[] = [];
    for (let b = 0; b < 25; b++) {
      const events = await store.commit({
        stream: "long",
        messages: Array.from({ length: 100 }, (_, i) => ({ name: "A", data: { i } })),
        meta,
      });
      ids.push(...events.map((e) => e.id));
      await store.commit({ stream: "other", messages: [{ name: "B", data: {} }], meta });
    }
    const read = async (query: Parameters<SqliteStore["query"]>[1]) => {
      const seen: number[] = [];
      await store.query((e) => seen.push(e.id), query);
      return seen;
    };
    expect(await read({ stream: "long" })).toEqual(ids);
    expect(await read({ stream: "long", backward: true })).toEqual([...ids].reverse());
    expect(await read({ stream: "long", after: ids[1200], before: ids[2301] })).toEqual(ids.slice(1201, 2301));
    // Bounds that are ids of other streams' events fall between this stream's events.
    const [between] = await read({ stream: "other", after: ids[1199], limit: 1 });
    expect(await read({ stream: "long", after: between, limit: 2 })).toEqual(ids.slice(1200, 1202));
    expect(await read({ stream: "long", before: between, backward: true, limit: 2 })).toEqual([ids[1199], ids[1198]]);
  });
});

describe("reading events back", () => {
  it("returns data and metadata exactly as committed, whatever their text holds", async () => {
    const store = await make(":memory:");
    const data = {
      text: 'quotes " and \\ backslashes, a newline\n, a tab\t, é, 😀, \u2028 and a lone \ud800',
      numbers: [0, -1, 1.5, 0.1, 1e-7, 123456789012345, Number.MAX_SAFE_INTEGER, -0.000001],
      nested: { empty: {}, list: [], nothing: null, yes: true, no: false, "key with spaces": "v" },
    };
    const committed = await store.commit({ stream: "exact", messages: [{ name: 'Quoted "name"', data }], meta });
    const read: unknown[] = [];
    await store.query((e) => read.push({ name: e.name, data: e.data, meta: e.meta, stream: e.stream }), {
      stream: "exact",
    });
    expect(read).toEqual([{ name: 'Quoted "name"', data, meta: committed[0].meta, stream: "exact" }]);
  });
});

describe("idempotency keys", () => {
  it("expire after idempotencyMillis, and expired ones are purged from the file", async () => {
    const file = tempFile();
    const store = new SqliteStore({ filename: file, idempotencyMillis: 50 });
    opened.push(store);
    await store.seed();
    await store.commit({ stream: "k", messages: [{ name: "A", data: {} }], meta, idempotencyKey: "once" });
    await expect(
      store.commit({ stream: "k", messages: [{ name: "A", data: {} }], meta, idempotencyKey: "once" })
    ).rejects.toBeInstanceOf(ConcurrencyError);
    await sleep(80);
    expect(await store.recall("k", "once")).toBeUndefined();
    const keys = () => {
      const raw = new Database(file);
      const rows = raw.prepare("SELECT key FROM act_keys ORDER BY key").raw(true).all() as string[][];
      raw.close();
      return rows.map(([key]) => key);
    };
    expect(keys()).toEqual(["once"]); // expired, still stored
    // Another store on the file purges on its first keyed commit.
    const later = new SqliteStore({ filename: file, idempotencyMillis: 60_000 });
    opened.push(later);
    await later.commit({ stream: "k", messages: [{ name: "B", data: {} }], meta, idempotencyKey: "twice" });
    expect(keys()).toEqual(["twice"]);
    const [again] = await later.commit({
      stream: "k",
      messages: [{ name: "C", data: {} }],
      meta,
      idempotencyKey: "once",
    });
    expect(again.version).toBe(2);
  });
});

describe("the reaction table", () => {
  it("polls through the index of streams with work: caught-up streams are not read", async () => {
    const file = tempFile();
    const store = await make(file);
    const [e] = await store.commit({ stream: "s", messages: [{ name: "A", data: {} }], meta });
    const idle = Array.from({ length: 2_000 }, (_, i) => ({
      stream: `idle-${i}`,
      by: "d",
      at: e.id,
      head: e.id,
      retry: 0,
    }));
    await store.lease([...idle, { stream: "busy", by: "d", at: -1, head: e.id, retry: 0 }], 0);
    const db = new Database(file);
    try {
      db.exec("ANALYZE");
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${SQL.poll}`)
        .all(Date.now(), null, 5, 5)
        .map((r) => (r as { detail: string }).detail)
        .join("\n");
      expect(plan).toMatch(/act_watermarks_ready/);
      expect(plan).not.toMatch(/SCAN act_watermarks\b(?! USING)/);
    } finally {
      db.close();
    }
    expect((await store.poll({ lagging: 5, leading: 5 })).map((p) => p.stream)).toEqual(["busy"]);
  });
});

describe("the timers table", () => {
  it("finds when the next timer is due through its indexes, not by reading every pending timer", async () => {
    const file = tempFile();
    const store = await make(file);
    await nextDueScenario(store.timers!);
    const db = new Database(file);
    try {
      db.exec("ANALYZE");
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${SQL.nextTimer}`)
        .all(JSON.stringify(["a"]))
        .map((r) => (r as { detail: string }).detail)
        .join("\n");
      expect(plan).toMatch(/act_timers_pending/);
      expect(plan).toMatch(/act_timers_claimed/);
      expect(plan).not.toMatch(/SCAN act_timers\b(?! USING)/);
    } finally {
      db.close();
    }
  });

  it("counts the pending and overdue timers through the pending index, not by reading the table", async () => {
    const file = tempFile();
    const store = await make(file);
    await countScenario(store.timers!);
    const db = new Database(file);
    try {
      db.exec("ANALYZE");
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${SQL.countTimers}`)
        .all(at(49).getTime())
        .map((r) => (r as { detail: string }).detail);
      expect(plan.filter((step) => /USING COVERING INDEX act_timers_pending\b/.test(step))).toHaveLength(2);
      // The overdue ones are a search of the index's start, not a sum over every pending entry.
      expect(plan).toContainEqual(
        expect.stringMatching(/^SEARCH act_timers USING COVERING INDEX act_timers_pending \(due<\?\)/)
      );
      expect(plan.join("\n")).not.toMatch(/SCAN act_timers\b(?! USING)/);
    } finally {
      db.close();
    }
  });
});

describe("errors that say where", () => {
  it("a value JSON cannot hold names the commit, its stream (cut after 80 characters) and the field", async () => {
    const store = await make(tempFile());
    const long = `s-${"x".repeat(100)}`;
    const data = await store
      .commit({ stream: long, messages: [{ name: "A", data: { n: 1n } }], meta })
      .catch((e: unknown) => e);
    expect((data as Error).message).toContain(
      `SqliteStore commit to "${long.slice(0, 80)}…": data of event "A".n is a bigint`
    );
    const metadata = await store
      .commit({ stream: "short", messages: [{ name: "A", data: {} }], meta: { ...meta, extra: () => 1 } as never })
      .catch((e: unknown) => e);
    expect((metadata as Error).message).toContain(`SqliteStore commit to "short": meta.extra is a function`);
    expect(await store.query(() => {})).toBe(0);
  });

  it("a lease of a negative or fractional duration is refused with the rule", async () => {
    const store = await make(tempFile());
    for (const millis of [-1, 1.5])
      await expect(store.lease([{ stream: "r", by: "d", at: -1, retry: 0 }], millis)).rejects.toMatchObject({
        message: expect.stringContaining("lease duration"),
        details: [{ path: "", message: "must be a non-negative integer of milliseconds" }],
      });
  });
});
