/**
 * What the conformance suite does not cover: a locked file, wake-ups across
 * connections, and the lease generations and reaction sets of the watermarks.
 */
import { ConcurrencyError, StoreError } from "@act-root/act";
import Database from "libsql";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteStore } from "../src/index.js";
import { meta, sleep, tempFile } from "./support.js";

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
    await store.commit("s", [{ name: "A", data: {} }], meta);
    const other = new Database(file);
    other.exec("PRAGMA busy_timeout = 0; BEGIN IMMEDIATE");
    for (let i = 0; i < 3; i++) {
      const error = await store.commit("s", [{ name: "B", data: {} }], meta, 0).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreError);
      expect(error).toMatchObject({ reason: "busy", retryable: true });
      expect((error as Error).message).toContain(file);
    }
    other.exec("ROLLBACK");
    other.close();
    // The statements that failed were reused, not prepared afresh: the connection still commits.
    const [b] = await store.commit("s", [{ name: "B", data: {} }], meta, 0);
    expect(b.version).toBe(1);
    expect(await store.query(() => {})).toBe(2);
  });
});

describe("subscribe", () => {
  it("wakes listeners right after a commit through the store, and within the check interval after another connection's", async () => {
    const file = tempFile();
    const store = await make(file, { changeCheckMillis: 20 });
    const other = await make(file);
    let woken = 0;
    const stop = store.subscribe(() => woken++);
    await store.commit("s", [{ name: "A", data: {} }], meta);
    await Promise.resolve();
    expect(woken).toBe(1);
    await sleep(60); // the first check only learns where the file is
    await other.commit("s", [{ name: "B", data: {} }], meta);
    const deadline = Date.now() + 2_000;
    while (woken < 2 && Date.now() < deadline) await sleep(5);
    expect(woken).toBe(2);
    stop();
    await other.commit("s", [{ name: "C", data: {} }], meta);
    await sleep(80);
    expect(woken).toBe(2);
  });
});

describe("lease generations and reaction sets", () => {
  type TokenLease = {
    stream: string;
    by: string;
    at: number;
    retry: number;
    head?: number;
    token?: number;
    reactions?: string[];
  };
  const lease = (by: string, at = -1, extra: Partial<TokenLease> = {}): TokenLease => ({
    stream: "r",
    by,
    at,
    retry: 0,
    ...extra,
  });

  it("grants with a new token, renews with the same one even after it expired, and refuses a stale token", async () => {
    const store = await make(":memory:");
    const [e] = await store.commit("s", [{ name: "A", data: {} }], meta);
    await store.lease([lease("d1", -1, { head: e.id })], 0);
    const [first] = await store.lease([lease("d1")], 100);
    expect(first.token).toBe(1);
    await sleep(150);
    const [renewed] = await store.lease([lease("d1", -1, { token: 1 })], 100);
    expect(renewed.token).toBe(1);
    expect(await store.lease([lease("d2")], 100)).toEqual([]); // the renewal holds
    await sleep(150);
    const [taken] = await store.lease([lease("d2")], 1_000);
    expect(taken.token).toBe(2);
    expect(await store.lease([lease("d1", -1, { token: 1 })], 100)).toEqual([]); // d1's generation is over
    expect(await store.ack([lease("d2", e.id, { token: 1 })])).toEqual([]); // right holder, stale token
    expect(await store.ack([lease("d2", e.id, { token: 2 })])).toHaveLength(1);
  });

  it("starts a new generation on unblock and reset, so acks begun before are refused", async () => {
    const store = await make(":memory:");
    const [a, b] = await store.commit(
      "s",
      [
        { name: "A", data: {} },
        { name: "B", data: {} },
      ],
      meta
    );
    await store.lease([lease("d", -1, { head: b.id })], 0);
    const [held] = await store.lease([lease("d")], 10_000);
    await store.block([{ ...lease("d", a.id, { token: held.token }), error: "boom" }]);
    await store.unblock(["r"]);
    expect(await store.ack([lease("d", b.id, { token: held.token })])).toEqual([]);
    const [again] = await store.lease([lease("d", a.id)], 10_000);
    expect(again.token).toBe((held.token ?? 0) + 2);
    await store.reset(["r"]);
    expect(await store.ack([lease("d", b.id, { token: again.token })])).toEqual([]);
  });

  it("does not raise head on reset: a stream reset to the end of the log has no work", async () => {
    const store = await make(":memory:");
    const [a] = await store.commit("s", [{ name: "A", data: {} }], meta);
    await store.lease([lease("d", -1, { head: a.id })], 0);
    await store.reset(["r"], a.id);
    expect(await store.poll(10, 10)).toEqual([]);
    const [row] = await store.reactions();
    expect(row).toMatchObject({ stream: "r", at: a.id, head: a.id });
  });

  it("keeps the union of the reactions registered per stream and polls a stream only for drainers that run them all", async () => {
    const store = await make(":memory:");
    const [a] = await store.commit("s", [{ name: "A", data: {} }], meta);
    await store.lease([{ ...lease("d", -1, { reactions: ["audit"] }), head: a.id }], 0);
    await store.lease([{ ...lease("d", -1, { reactions: ["notify", "audit"] }), head: a.id }], 0);
    await store.lease([{ stream: "free", by: "d", at: -1, retry: 0, head: a.id }], 0);
    const names = async (reactions?: string[]) => (await store.poll(10, 10, reactions)).map((p) => p.stream).sort();
    expect(await names()).toEqual(["free", "r"]);
    expect(await names(["audit"])).toEqual(["free"]);
    expect(await names(["audit", "notify", "other"])).toEqual(["free", "r"]);
    expect((await store.reactions()).map((r) => [r.stream, r.reactions])).toEqual([
      ["free", []],
      ["r", ["audit", "notify"]],
    ]);
  });

  it("refuses a commit racing on one stream from two store instances on one file", async () => {
    const file = tempFile();
    const one = await make(file);
    const two = await make(file);
    await one.commit("s", [{ name: "A", data: {} }], meta, -1);
    const results = await Promise.allSettled([
      one.commit("s", [{ name: "B", data: {} }], meta, 0),
      two.commit("s", [{ name: "C", data: {} }], meta, 0),
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
      const events = await store.commit(
        "long",
        Array.from({ length: 100 }, (_, i) => ({ name: "A", data: { i } })),
        meta
      );
      ids.push(...events.map((e) => e.id));
      await store.commit("other", [{ name: "B", data: {} }], meta);
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
