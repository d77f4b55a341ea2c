import { ConcurrencyError, ValidationError } from "../core/errors.js";
import { type EventMeta, MAX_STREAM_LENGTH, type Query, SNAP_EVENT } from "../core/schemas.js";
import type { Store } from "../types/ports.js";
import type { TestApi } from "./test-api.js";

const meta = (correlation = "c-1"): EventMeta => ({ correlation, causation: {} });
const msg = (name: string, data: Record<string, unknown> = {}) => ({ name, data });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The part of the store conformance suite about the log: commits and the
 * expected version (of two concurrent commits with the same expected version
 * exactly one wins), data kept as JSON, queries and their filters,
 * snapshots, and the names and values a store must refuse (idempotency keys
 * have their own part).
 * Registered by {@link storeConformance}.
 *
 * @param store - the store under test (seeded and empty before each test)
 * @param test - the test runner's functions
 */
export function eventsConformance(store: () => Store, test: TestApi): void {
  const { beforeEach, describe, expect, it } = test;
  const all = async (query?: Parameters<Store["query"]>[1]) => {
    const events: any[] = [];
    await store().query((e) => events.push(e), query);
    return events;
  };
  describe("commit", () => {
    it("assigns increasing ids, versions from 0 and the creation time", async () => {
      const before = Date.now();
      const first = await store().commit({
        stream: "a",
        messages: [msg("A", { n: 1 }), msg("B", { n: 2 })],
        meta: meta(),
      });
      const second = await store().commit({ stream: "b", messages: [msg("A", { n: 3 })], meta: meta() });
      const third = await store().commit({ stream: "a", messages: [msg("C")], meta: meta() });
      expect(first.map((e) => e.version)).toEqual([0, 1]);
      expect(second[0].version).toBe(0);
      expect(third[0].version).toBe(2);
      const ids = [...first, ...second, ...third].map((e) => e.id);
      expect([...ids].sort((x, y) => x - y)).toEqual(ids);
      expect(new Set(ids).size).toBe(4);
      expect(first[0].created).toBeInstanceOf(Date);
      expect(first[0].created.getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(first[1]).toMatchObject({ stream: "a", name: "B", data: { n: 2 }, meta: meta() });
    });

    it("returns the events exactly as a read gives them back", async () => {
      // What the caller passed is not what is kept: dates become text, undefined keys go.
      const data = { at: new Date(0), nested: { list: [1, "two", null], skip: undefined }, n: 1.5 };
      const committed = await store().commit({ stream: "r", messages: [msg("A", data), msg("B")], meta: meta() });
      expect(committed[0].data).toEqual({
        at: "1970-01-01T00:00:00.000Z",
        nested: { list: [1, "two", null] },
        n: 1.5,
      });
      expect(committed).toEqual(await all({ stream: "r" }));
    });

    it("checks the expected version and commits nothing on a conflict", async () => {
      await store().commit({ stream: "a", messages: [msg("A")], meta: meta(), expectedVersion: -1 });
      await store().commit({ stream: "a", messages: [msg("A")], meta: meta(), expectedVersion: 0 });
      const error = await store()
        .commit({ stream: "a", messages: [msg("X"), msg("Y")], meta: meta(), expectedVersion: 0 })
        .catch((e) => e);
      expect(error).toBeInstanceOf(ConcurrencyError);
      expect(error).toMatchObject({ stream: "a", lastVersion: 1, expectedVersion: 0 });
      expect(error.events.map((e: any) => e.name)).toEqual(["X", "Y"]);
      expect((await all({ stream: "a" })).map((e) => e.name)).toEqual(["A", "A"]);
    });

    it("rejects an expected version for a stream that does not exist", async () => {
      const error = await store()
        .commit({ stream: "new", messages: [msg("A")], meta: meta(), expectedVersion: 3 })
        .catch((e) => e);
      expect(error).toBeInstanceOf(ConcurrencyError);
      expect(error).toMatchObject({ stream: "new", lastVersion: -1, expectedVersion: 3 });
      expect(await all()).toHaveLength(0);
    });

    it("lets exactly one of two concurrent commits with the same expected version win", async () => {
      await store().commit({ stream: "a", messages: [msg("A")], meta: meta() });
      const results = await Promise.allSettled([
        store().commit({ stream: "a", messages: [msg("B")], meta: meta(), expectedVersion: 0 }),
        store().commit({ stream: "a", messages: [msg("C")], meta: meta(), expectedVersion: 0 }),
      ]);
      const won = results.filter((r) => r.status === "fulfilled");
      const lost = results.filter((r) => r.status === "rejected") as PromiseRejectedResult[];
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0].reason).toBeInstanceOf(ConcurrencyError);
      expect((await all({ stream: "a" })).map((e) => e.version)).toEqual([0, 1]);
    });

    it("checks a commit that names the stream's last version and event id, as an app's action does", async () => {
      const [a, b] = await store().commit({ stream: "k", messages: [msg("A"), msg("B")], meta: meta() });
      // Where the stream was before it moved on: refused, with where it is now.
      for (const stale of [
        { expectedVersion: 0, lastId: a.id },
        { expectedVersion: -1 },
        { expectedVersion: 1, lastId: a.id },
        { expectedVersion: 2, lastId: b.id },
      ]) {
        const error = await store()
          .commit({ stream: "k", messages: [msg("X")], meta: meta(), ...stale })
          .catch((e) => e);
        expect(error).toBeInstanceOf(ConcurrencyError);
        expect(error).toMatchObject({ stream: "k", lastVersion: 1, expectedVersion: stale.expectedVersion });
      }
      // Where it is: every message in, at the versions after it, with one commit time.
      const next = await store().commit({
        stream: "k",
        messages: [msg("C"), msg("D")],
        meta: meta(),
        expectedVersion: 1,
        lastId: b.id,
      });
      expect(next.map((e) => e.version)).toEqual([2, 3]);
      expect(next[1].id).toBeGreaterThan(next[0].id);
      expect(next[0].created).toEqual(next[1].created);
      expect(next).toEqual((await all({ stream: "k" })).slice(2));
      // Two commits from the same place: exactly one wins.
      const results = await Promise.allSettled(
        ["E", "F"].map((name) =>
          store().commit({ stream: "k", messages: [msg(name)], meta: meta(), expectedVersion: 3, lastId: next[1].id })
        )
      );
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const [lost] = results.filter((r) => r.status === "rejected") as PromiseRejectedResult[];
      expect(lost.reason).toBeInstanceOf(ConcurrencyError);
      expect((await all({ stream: "k" })).map((e) => e.version)).toEqual([0, 1, 2, 3, 4]);
    });

    it("round-trips data and causation metadata as JSON: a date comes back as its ISO string, a date-like string as itself", async () => {
      const when = new Date("2025-01-02T03:04:05.678Z");
      const causation: EventMeta = {
        correlation: "corr",
        causation: {
          action: { name: "go", stream: "a", actor: { id: "u", name: "U" }, expectedVersion: 2 },
          event: { id: 7, name: "Went", stream: "b" },
        },
      };
      const data = {
        text: "héllo ✓ 世界",
        nested: { list: [1, 2, { x: null }], when },
        typed: when.toJSON(),
        flag: false,
      };
      await store().commit({ stream: "a", messages: [msg("A", data)], meta: causation });
      const [event] = await all();
      expect(event.data).toEqual({ ...data, nested: { ...data.nested, when: when.toJSON() } });
      expect(typeof event.data.typed).toBe("string");
      expect(event.meta).toEqual(causation);
    });

    it("refuses what JSON cannot hold, naming the path, and commits nothing", async () => {
      for (const bad of [{ f: () => 1 }, { n: 1n }, { m: new Map() }, { x: Number.NaN }, { s: "nul\u0000" }]) {
        await expect(store().commit({ stream: "bad", messages: [msg("A", bad)], meta: meta() })).rejects.toThrow(
          TypeError
        );
      }
      await expect(
        store().commit({ stream: "bad", messages: [msg("A", { deep: { list: [1, 2n] } })], meta: meta() })
      ).rejects.toThrow(/deep\.list\[1\] is a bigint/);
      expect(await all({ stream: "bad" })).toEqual([]);
    });

    it("hands out events whose changes cannot reach the log", async () => {
      const [committed] = await store().commit({
        stream: "m",
        messages: [msg("A", { list: [1], nested: { n: 1 } })],
        meta: meta(),
      });
      const [read] = await all({ stream: "m" });
      for (const event of [committed, read]) {
        try {
          (event.data.list as number[]).push(2);
          event.data.nested.n = 99;
        } catch {
          // frozen: refusing the change is fine too
        }
      }
      for (const event of [committed, read]) {
        try {
          (event as { version: number }).version = 42;
          (event as { name: string }).name = "Changed";
        } catch {
          // frozen
        }
      }
      const [again] = await all({ stream: "m" });
      expect(again.data).toEqual({ list: [1], nested: { n: 1 } });
      expect(again).toMatchObject({ version: 0, name: "A" });
    });

    it("checks stream names the same way: non-empty, well-formed, at most MAX_STREAM_LENGTH characters", async () => {
      const long = "x".repeat(MAX_STREAM_LENGTH + 1);
      for (const name of ["", "a\uD800b", long]) {
        await expect(store().commit({ stream: name, messages: [msg("A")], meta: meta() })).rejects.toBeInstanceOf(
          ValidationError
        );
        await expect(store().query(() => {}, { stream: name })).rejects.toBeInstanceOf(ValidationError);
      }
      const error = (await store()
        .commit({ stream: long, messages: [msg("A")], meta: meta() })
        .catch((e: Error) => e)) as Error;
      expect(error.message.length).toBeLessThan(300); // the name is not echoed in full
      await store().commit({ stream: "x".repeat(MAX_STREAM_LENGTH), messages: [msg("A")], meta: meta() });
      await store().commit({ stream: "a\uD83D\uDE00b", messages: [msg("A")], meta: meta() }); // a surrogate pair is fine
      expect(await all({ stream: "a\uD83D\uDE00b" })).toHaveLength(1);
    });
  });

  describe("query input", () => {
    it.each([
      ["a fractional after", { after: 0.5 }],
      ["a negative limit", { limit: -1 }],
      ["a fractional limit", { limit: 1.5 }],
      ["an invalid date", { created_after: new Date("nope") }],
      ["an unknown type", { backward: "yes" }],
    ])("refuses %s with a ValidationError", async (_, query) => {
      await expect(store().query(() => {}, query as never)).rejects.toBeInstanceOf(ValidationError);
    });
  });

  describe("query", () => {
    beforeEach(async () => {
      await store().commit({ stream: "a", messages: [msg("A1"), msg("A2")], meta: meta("c-a") });
      await store().commit({ stream: "ab", messages: [msg("B1")], meta: meta("c-b") });
      await store().commit({ stream: "a", messages: [msg("A3")], meta: meta("c-a") });
      await store().commit({ stream: "c", messages: [msg("C1"), msg("C2")], meta: meta("c-c") });
    });

    it("returns every event in global order and the count", async () => {
      const events: any[] = [];
      const count = await store().query((e) => events.push(e));
      expect(count).toBe(6);
      expect(events.map((e) => e.name)).toEqual(["A1", "A2", "B1", "A3", "C1", "C2"]);
    });

    it("filters a stream by its exact name", async () => {
      expect((await all({ stream: "a" })).map((e) => e.name)).toEqual(["A1", "A2", "A3"]);
      expect((await all({ stream: "ab" })).map((e) => e.name)).toEqual(["B1"]);
      expect(await all({ stream: "missing" })).toEqual([]);
    });

    it("reads backward and limits", async () => {
      expect((await all({ backward: true })).map((e) => e.name)).toEqual(["C2", "C1", "A3", "B1", "A2", "A1"]);
      expect((await all({ stream: "a", backward: true, limit: 2 })).map((e) => e.name)).toEqual(["A3", "A2"]);
      expect((await all({ limit: 2 })).map((e) => e.name)).toEqual(["A1", "A2"]);
    });

    it("filters by names, after and before", async () => {
      const ids = (await all()).map((e) => e.id);
      expect((await all({ names: ["A2", "C1"] })).map((e) => e.name)).toEqual(["A2", "C1"]);
      expect((await all({ after: ids[2] })).map((e) => e.name)).toEqual(["A3", "C1", "C2"]);
      expect((await all({ before: ids[2] })).map((e) => e.name)).toEqual(["A1", "A2"]);
      expect((await all({ after: ids[0], before: ids[3] })).map((e) => e.name)).toEqual(["A2", "B1"]);
      expect((await all({ stream: "a", after: ids[1] })).map((e) => e.name)).toEqual(["A3"]);
      expect(await all({ after: ids[5] })).toEqual([]);
    });

    it("reads only the named ids, in id order, with every other filter", async () => {
      const ids = (await all()).map((e) => e.id);
      const names = async (query: Query) => (await all(query)).map((e) => e.name);
      // Given out of order, repeated, and with an id no event has.
      expect(await names({ ids: [ids[4], ids[0], ids[2], ids[0], ids[5] + 100] })).toEqual(["A1", "B1", "C1"]);
      expect(await names({ ids: [] })).toEqual([]);
      expect(await names({ ids: [ids[0], ids[2], ids[3]], stream: "a" })).toEqual(["A1", "A3"]);
      expect(await names({ ids, after: ids[1], before: ids[5], names: ["B1", "C1", "C2"] })).toEqual(["B1", "C1"]);
      expect(await names({ ids, backward: true, limit: 2 })).toEqual(["C2", "C1"]);
      expect(await names({ ids: [ids[5], ids[1]], correlation: "c-c" })).toEqual(["C2"]);
    });

    it("filters by correlation", async () => {
      expect((await all({ correlation: "c-c" })).map((e) => e.name)).toEqual(["C1", "C2"]);
    });

    it("filters by creation time", async () => {
      const events = await all();
      const cut = events[0].created;
      await sleep(15);
      const later = new Date();
      await sleep(15);
      await store().commit({ stream: "d", messages: [msg("D1")], meta: meta() });
      expect((await all({ created_after: later })).map((e) => e.name)).toEqual(["D1"]);
      expect((await all({ created_before: later })).map((e) => e.name)).toHaveLength(6);
      expect(await all({ created_before: cut })).toEqual([]);
      // Both bounds are exclusive, at the millisecond the event reports.
      const [d1] = await all({ stream: "d" });
      expect(await all({ stream: "d", created_after: d1.created })).toEqual([]);
      expect(await all({ stream: "d", created_before: d1.created })).toEqual([]);
      expect(await all({ stream: "d", created_after: new Date(d1.created.getTime() - 1) })).toHaveLength(1);
    });

    it("skips snapshot events unless with_snaps", async () => {
      await store().commit({ stream: "a", messages: [msg(SNAP_EVENT, { count: 3 })], meta: meta() });
      await store().commit({ stream: "a", messages: [msg("A4")], meta: meta() });
      expect((await all({ stream: "a" })).map((e) => e.name)).toEqual(["A1", "A2", "A3", "A4"]);
      expect((await all({ stream: "a", with_snaps: true })).map((e) => e.name)).toEqual([
        "A1",
        "A2",
        "A3",
        SNAP_EVENT,
        "A4",
      ]);
    });

    it("reads from the latest snapshot of the named state with from_snapshot", async () => {
      expect((await all({ stream: "a", from_snapshot: "X" })).map((e) => e.name)).toEqual(["A1", "A2", "A3"]);
      const snap = (of: string, n: number) => msg(SNAP_EVENT, { of, state: { n } });
      await store().commit({ stream: "a", messages: [snap("X", 1)], meta: meta() });
      await store().commit({
        stream: "a",
        messages: [msg("A4"), snap("X", 2), msg("A5"), snap("Y", 9), msg("A6")],
        meta: meta(),
      });
      const x = await all({ stream: "a", from_snapshot: "X" });
      expect(x.map((e) => e.name)).toEqual([SNAP_EVENT, "A5", SNAP_EVENT, "A6"]);
      expect(x[0].data).toEqual({ of: "X", state: { n: 2 } });
      const y = await all({ stream: "a", from_snapshot: "Y" });
      expect(y.map((e) => e.name)).toEqual([SNAP_EVENT, "A6"]);
      expect(await all({ stream: "a", from_snapshot: "Z" })).toHaveLength(9); // no snapshot of Z: the whole stream
    });
  });

  describe("edge inputs", () => {
    const refused = async (run: () => Promise<unknown>, says: string) => {
      const error = await run().then(
        () => undefined,
        (e: unknown) => e
      );
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as Error).message).toContain(says);
    };

    it("refuses empty, NUL, malformed and overlong names in a commit, and commits nothing", async () => {
      const long = "x".repeat(MAX_STREAM_LENGTH + 1);
      for (const stream of ["", "a\u0000b", long])
        await refused(() => store().commit({ stream, messages: [msg("A")], meta: meta() }), "stream");
      for (const name of ["", "A\u0000", long])
        await refused(() => store().commit({ stream: "s", messages: [msg(name)], meta: meta() }), "event name");
      for (const correlation of ["", "c\u0000"])
        await refused(
          () => store().commit({ stream: "s", messages: [msg("A")], meta: meta(correlation) }),
          "correlation"
        );
      for (const key of ["", "k\u0000", long])
        await refused(
          () => store().commit({ stream: "s", messages: [msg("A")], meta: meta(), idempotencyKey: key }),
          "idempotency key"
        );
      expect(await all({ with_snaps: true })).toEqual([]);
    });

    it("refuses expected versions that are not whole numbers of at least -1", async () => {
      for (const version of [Number.NaN, Number.POSITIVE_INFINITY, -2, 0.5])
        await refused(
          () => store().commit({ stream: "s", messages: [msg("A")], meta: meta(), expectedVersion: version }),
          "expected version"
        );
      expect(await all()).toEqual([]);
    });

    it("refuses the same query filters: empty and NUL strings, NaN, Infinity, out-of-range numbers", async () => {
      await store().commit({ stream: "s", messages: [msg("A")], meta: meta("c-1") });
      for (const query of [
        { correlation: "" },
        { correlation: "c\u0000" },
        { stream: "s\u0000" },
        { names: [""] },
        { names: ["A\u0000"] },
        { from_snapshot: "" },
        { after: Number.NaN },
        { before: Number.POSITIVE_INFINITY },
        { limit: 0 },
        { limit: Number.NaN },
      ])
        await refused(() => store().query(() => {}, query), "query");
    });

    it("refuses NUL and empty names when recalling an idempotency key", async () => {
      await refused(() => store().recall("s\u0000", "k"), "stream");
      await refused(() => store().recall("s", ""), "idempotency key");
      await refused(() => store().recall("s", "k\u0000"), "idempotency key");
    });

    it("refuses lease durations that are not whole numbers", async () => {
      for (const millis of [Number.NaN, Number.POSITIVE_INFINITY, -1])
        await expect(store().lease([{ stream: "r", by: "d", at: -1, retry: 0 }], millis)).rejects.toBeInstanceOf(
          ValidationError
        );
    });

    it("keeps names that are Object's property names like any other name", async () => {
      const names = ["constructor", "__proto__", "toString", "hasOwnProperty"];
      for (const name of names)
        await store().commit({
          stream: name,
          messages: [msg(name)],
          meta: meta(name),
          expectedVersion: -1,
          idempotencyKey: name,
        });
      for (const name of names) {
        expect((await all({ stream: name })).map((e) => [e.stream, e.name])).toEqual([[name, name]]);
        expect(await all({ correlation: name })).toHaveLength(1);
        expect(await store().recall(name, name)).toEqual({ from: 0, to: 0 });
      }
      expect(await store().recall("constructor", "toString")).toBeUndefined();
    });

    it("keeps the longest names", async () => {
      const longest = "n".repeat(MAX_STREAM_LENGTH);
      await store().commit({
        stream: longest,
        messages: [msg(longest, { n: 1 })],
        meta: meta(longest),
        expectedVersion: -1,
        idempotencyKey: longest,
      });
      const [event] = await all({ stream: longest, names: [longest], correlation: longest });
      expect(event.data).toEqual({ n: 1 });
      expect(await store().recall(longest, longest)).toEqual({ from: 0, to: 0 });
    });

    it("refuses a commit whose last event id is not the stream's last event, even at the same version", async () => {
      const [first] = await store().commit({ stream: "rewritten", messages: [msg("A")], meta: meta() });
      await store().drop();
      await store().seed();
      const [again] = await store().commit({ stream: "rewritten", messages: [msg("B")], meta: meta() });
      expect(again.version).toBe(first.version);
      await expect(
        store().commit({
          stream: "rewritten",
          messages: [msg("C")],
          meta: meta(),
          expectedVersion: 0,
          lastId: first.id,
        })
      ).rejects.toBeInstanceOf(ConcurrencyError);
      await expect(
        store().commit({ stream: "empty", messages: [msg("C")], meta: meta(), lastId: first.id })
      ).rejects.toBeInstanceOf(ConcurrencyError);
      await store().commit({
        stream: "rewritten",
        messages: [msg("C")],
        meta: meta(),
        expectedVersion: 0,
        lastId: again.id,
      });
      await refused(
        () => store().commit({ stream: "rewritten", messages: [msg("D")], meta: meta(), lastId: Number.NaN }),
        "last event id"
      );
      expect((await all({ stream: "rewritten" })).map((e) => e.name)).toEqual(["B", "C"]);
    });

    it("reads backward from a snapshot over more than a page of events, never past the snapshot", async () => {
      await store().commit({ stream: "long", messages: Array.from({ length: 10 }, () => msg("Before")), meta: meta() });
      await store().commit({ stream: "long", messages: [msg(SNAP_EVENT, { of: "S@1", state: {} })], meta: meta() });
      await store().commit({
        stream: "long",
        messages: Array.from({ length: 1_500 }, () => msg("After")),
        meta: meta(),
      });
      const events = await all({ stream: "long", from_snapshot: "S@1", backward: true });
      expect(events).toHaveLength(1_501);
      expect(events[events.length - 1].name).toBe(SNAP_EVENT);
      expect(events.filter((e) => e.name === "Before")).toEqual([]);
    });
  });
}
