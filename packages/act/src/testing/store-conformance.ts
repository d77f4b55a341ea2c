import type { Lease } from "../types/reaction.js";
import type { Store } from "../types/ports.js";
import { ConcurrencyError, ValidationError } from "../core/errors.js";
import { type EventMeta, MAX_STREAM_LENGTH, type Query, SNAP_EVENT } from "../core/schemas.js";
import { joiningConformance } from "./joining-conformance.js";
import { inlineConformance, projectConformance } from "./projection-conformance.js";
import type { ReadModelProbe } from "./read-model-probe.js";
import type { TestApi } from "./test-api.js";

const meta = (correlation = "c-1"): EventMeta => ({ correlation, causation: {} });
const msg = (name: string, data: Record<string, unknown> = {}) => ({ name, data });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Registers the store conformance suite: the tests every {@link Store}
 * adapter must pass, the same ones `InMemoryStore` and `PostgresStore` run.
 * They cover commits and the expected version (two concurrent commits with
 * the same expected version: exactly one wins), data kept as JSON, stream
 * names, queries and their filters, snapshots, idempotency keys, and the
 * reaction bookkeeping (`poll` and its filter by reactions, `lease` with its
 * tokens and renewals, `ack`, `block`, `reactions` and its filters, `unblock`, `reset`,
 * `retire`; a reaction that joins a stream late moves its watermark back),
 * the positions of discovery (`discovered`, `discover`) and, for
 * a store that has it, `project` (a projection's writes
 * and position in one transaction). Call it at the top level of a test file.
 *
 * The store is created once, on the first test, and `drop()` then `seed()`
 * run before every test, so point it at a database (or table) of its own:
 * the suite deletes everything in it. The store is disposed after the last
 * test. A few tests wait on real time (leases and retry delays of a few
 * hundred milliseconds); the whole suite takes a few seconds.
 *
 * The test functions are passed in rather than imported, so importing
 * `@act-root/act/testing` never loads a test runner: pass vitest's module
 * (vitest 3 or later, an optional peer dependency of `@act-root/act`).
 *
 * @experimental
 * @param name - names the store in the test titles
 * @param factory - creates the store under test (called once)
 * @param test - the test runner's functions: `import * as vitest from "vitest"`
 * @param probe - for a store with `project`: how to reach a read model in its database, so the
 *   suite checks that a projection's writes commit and roll back with its position (see {@link ReadModelProbe})
 * @example
 * ```ts
 * // test/my-store.conformance.test.ts
 * import * as vitest from "vitest";
 * import { storeConformance } from "@act-root/act/testing";
 *
 * storeConformance("MyStore", () => new InMemoryStore(), vitest);
 * ```
 */
export function storeConformance(
  name: string,
  factory: () => Store | Promise<Store>,
  test: TestApi,
  probe?: ReadModelProbe
): void {
  const { afterAll, beforeEach, describe, expect, it } = test;
  describe(`Store conformance: ${name}`, () => {
    let store: Store;

    beforeEach(async () => {
      store ??= await factory();
      await store.drop();
      await store.seed();
    });

    afterAll(async () => {
      await store?.dispose();
    });

    const all = async (query?: Parameters<Store["query"]>[1]) => {
      const events: any[] = [];
      await store.query((e) => events.push(e), query);
      return events;
    };

    describe("seed and drop", () => {
      it("seed is idempotent and keeps the events", async () => {
        await store.commit("a", [msg("A")], meta());
        await store.seed();
        expect(await all()).toHaveLength(1);
      });

      it("drop removes every event and watermark", async () => {
        await store.commit("a", [msg("A")], meta());
        await store.lease([{ stream: "r", by: "d", at: -1, retry: 0 }], 0);
        await store.drop();
        await store.seed();
        expect(await all()).toHaveLength(0);
        expect(await store.poll(10, 10)).toEqual([]);
      });

      it("never reuses an id, not even after drop", async () => {
        const [before] = await store.commit("a", [msg("A")], meta());
        await store.drop();
        await store.seed();
        const [after] = await store.commit("a", [msg("A")], meta());
        expect(after.version).toBe(0);
        expect(after.id).toBeGreaterThan(before.id);
      });
    });

    describe("commit", () => {
      it("assigns increasing ids, versions from 0 and the creation time", async () => {
        const before = Date.now();
        const first = await store.commit("a", [msg("A", { n: 1 }), msg("B", { n: 2 })], meta());
        const second = await store.commit("b", [msg("A", { n: 3 })], meta());
        const third = await store.commit("a", [msg("C")], meta());
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
        const committed = await store.commit("r", [msg("A", data), msg("B")], meta());
        expect(committed[0].data).toEqual({
          at: "1970-01-01T00:00:00.000Z",
          nested: { list: [1, "two", null] },
          n: 1.5,
        });
        expect(committed).toEqual(await all({ stream: "r" }));
      });

      it("checks the expected version and commits nothing on a conflict", async () => {
        await store.commit("a", [msg("A")], meta(), -1);
        await store.commit("a", [msg("A")], meta(), 0);
        const error = await store.commit("a", [msg("X"), msg("Y")], meta(), 0).catch((e) => e);
        expect(error).toBeInstanceOf(ConcurrencyError);
        expect(error).toMatchObject({ stream: "a", lastVersion: 1, expectedVersion: 0 });
        expect(error.events.map((e: any) => e.name)).toEqual(["X", "Y"]);
        expect((await all({ stream: "a" })).map((e) => e.name)).toEqual(["A", "A"]);
      });

      it("rejects an expected version for a stream that does not exist", async () => {
        const error = await store.commit("new", [msg("A")], meta(), 3).catch((e) => e);
        expect(error).toBeInstanceOf(ConcurrencyError);
        expect(error).toMatchObject({ stream: "new", lastVersion: -1, expectedVersion: 3 });
        expect(await all()).toHaveLength(0);
      });

      it("lets exactly one of two concurrent commits with the same expected version win", async () => {
        await store.commit("a", [msg("A")], meta());
        const results = await Promise.allSettled([
          store.commit("a", [msg("B")], meta(), 0),
          store.commit("a", [msg("C")], meta(), 0),
        ]);
        const won = results.filter((r) => r.status === "fulfilled");
        const lost = results.filter((r) => r.status === "rejected") as PromiseRejectedResult[];
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        expect(lost[0].reason).toBeInstanceOf(ConcurrencyError);
        expect((await all({ stream: "a" })).map((e) => e.version)).toEqual([0, 1]);
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
        await store.commit("a", [msg("A", data)], causation);
        const [event] = await all();
        expect(event.data).toEqual({ ...data, nested: { ...data.nested, when: when.toJSON() } });
        expect(typeof event.data.typed).toBe("string");
        expect(event.meta).toEqual(causation);
      });

      it("refuses what JSON cannot hold, naming the path, and commits nothing", async () => {
        for (const bad of [{ f: () => 1 }, { n: 1n }, { m: new Map() }, { x: Number.NaN }, { s: "nul\u0000" }]) {
          await expect(store.commit("bad", [msg("A", bad)], meta())).rejects.toThrow(TypeError);
        }
        await expect(store.commit("bad", [msg("A", { deep: { list: [1, 2n] } })], meta())).rejects.toThrow(
          /deep\.list\[1\] is a bigint/
        );
        expect(await all({ stream: "bad" })).toEqual([]);
      });

      it("hands out events whose changes cannot reach the log", async () => {
        const [committed] = await store.commit("m", [msg("A", { list: [1], nested: { n: 1 } })], meta());
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
          await expect(store.commit(name, [msg("A")], meta())).rejects.toBeInstanceOf(ValidationError);
          await expect(store.query(() => {}, { stream: name })).rejects.toBeInstanceOf(ValidationError);
        }
        const error = (await store.commit(long, [msg("A")], meta()).catch((e: Error) => e)) as Error;
        expect(error.message.length).toBeLessThan(300); // the name is not echoed in full
        await store.commit("x".repeat(MAX_STREAM_LENGTH), [msg("A")], meta());
        await store.commit("a\uD83D\uDE00b", [msg("A")], meta()); // a surrogate pair is fine
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
        await expect(store.query(() => {}, query as never)).rejects.toBeInstanceOf(ValidationError);
      });
    });

    describe("query", () => {
      beforeEach(async () => {
        await store.commit("a", [msg("A1"), msg("A2")], meta("c-a"));
        await store.commit("ab", [msg("B1")], meta("c-b"));
        await store.commit("a", [msg("A3")], meta("c-a"));
        await store.commit("c", [msg("C1"), msg("C2")], meta("c-c"));
      });

      it("returns every event in global order and the count", async () => {
        const events: any[] = [];
        const count = await store.query((e) => events.push(e));
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
        await store.commit("d", [msg("D1")], meta());
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
        await store.commit("a", [msg(SNAP_EVENT, { count: 3 })], meta());
        await store.commit("a", [msg("A4")], meta());
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
        await store.commit("a", [snap("X", 1)], meta());
        await store.commit("a", [msg("A4"), snap("X", 2), msg("A5"), snap("Y", 9), msg("A6")], meta());
        const x = await all({ stream: "a", from_snapshot: "X" });
        expect(x.map((e) => e.name)).toEqual([SNAP_EVENT, "A5", SNAP_EVENT, "A6"]);
        expect(x[0].data).toEqual({ of: "X", state: { n: 2 } });
        const y = await all({ stream: "a", from_snapshot: "Y" });
        expect(y.map((e) => e.name)).toEqual([SNAP_EVENT, "A6"]);
        expect(await all({ stream: "a", from_snapshot: "Z" })).toHaveLength(9); // no snapshot of Z: the whole stream
      });
    });

    describe("idempotency keys", () => {
      it("commits once per key and stream, remembers the versions, and refuses the key again", async () => {
        await store.commit("k", [msg("A")], meta());
        await store.commit("k", [msg("B"), msg("C")], meta(), 0, "req-1");
        expect(await store.recall("k", "req-1")).toEqual({ from: 1, to: 2 });
        await expect(store.commit("k", [msg("D")], meta(), undefined, "req-1")).rejects.toBeInstanceOf(
          ConcurrencyError
        );
        await expect(store.commit("k", [msg("D")], meta(), 2, "req-1")).rejects.toBeInstanceOf(ConcurrencyError);
        expect((await all({ stream: "k" })).map((e) => e.name)).toEqual(["A", "B", "C"]);
        expect(await store.recall("k", "req-2")).toBeUndefined();
        expect(await store.recall("other", "req-1")).toBeUndefined();
        await store.commit("other", [msg("X")], meta(), undefined, "req-1"); // keys are per stream
      });

      it("commits under a new key right after recalling a used one (a lookup leaves nothing behind)", async () => {
        await store.commit("k", [msg("A")], meta(), -1, "used");
        expect(await store.recall("k", "used")).toEqual({ from: 0, to: 0 });
        await store.commit("k", [msg("B")], meta(), 0, "fresh");
        expect(await store.recall("k", "fresh")).toEqual({ from: 1, to: 1 });
      });

      it("keeps what the request that used a key asked for, and nothing for a key committed without it", async () => {
        await store.commit("k", [msg("A")], meta(), -1, "with", undefined, "sha256:ab");
        await store.commit("k", [msg("B")], meta(), 0, "without");
        expect(await store.recall("k", "with")).toEqual({ from: 0, to: 0, request: "sha256:ab" });
        expect(await store.recall("k", "without")).toEqual({ from: 1, to: 1 });
        // A used key is refused whatever request comes with it: the caller decides by what recall says.
        await expect(
          store.commit("k", [msg("C")], meta(), undefined, "with", undefined, "sha256:cd")
        ).rejects.toBeInstanceOf(ConcurrencyError);
        expect(await store.recall("k", "with")).toEqual({ from: 0, to: 0, request: "sha256:ab" });
        await expect(store.commit("k", [msg("C")], meta(), undefined, "new", undefined, "")).rejects.toThrow(
          /idempotency request/
        );
      });

      it("lets exactly one of two concurrent commits with the same key win", async () => {
        const results = await Promise.allSettled([
          store.commit("race", [msg("A")], meta(), undefined, "same"),
          store.commit("race", [msg("B")], meta(), undefined, "same"),
        ]);
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        expect(results.filter((r) => r.status === "rejected" && r.reason instanceof ConcurrencyError)).toHaveLength(1);
        expect(await all({ stream: "race" })).toHaveLength(1);
      });
    });

    describe("reaction watermarks", () => {
      const lease = (stream: string, by: string, at: number, source?: string, head?: number): Lease => ({
        stream,
        source,
        by,
        at,
        retry: 0,
        ...(head !== undefined && { head }),
      });

      it("registers streams with a 0 ms lease, idempotently, and polls those with work after their watermark", async () => {
        const [e] = await store.commit("s", [msg("A")], meta());
        const registered = await store.lease(
          [lease("r1", "d", -1, "s", e.id), lease("r2", "d", e.id, undefined, e.id)],
          0
        );
        expect(registered.map((l) => l.stream).sort()).toEqual(["r1", "r2"]);
        await store.lease([lease("r1", "d", 99, "s", e.id)], 0); // does not move an existing watermark
        const polled = await store.poll(10, 10);
        expect(polled).toEqual([{ stream: "r1", source: "s", at: -1, lagging: true }]);
        await store.lease([lease("r2", "d", -1, undefined, e.id - 1)], 0); // nor its head backwards
        expect((await store.poll(10, 10)).map((p) => p.stream)).toEqual(["r1"]);
      });

      it("splits poll results between the most lagging and the most leading", async () => {
        const events = await store.commit("s", [msg("A"), msg("A"), msg("A"), msg("A"), msg("A")], meta());
        await store.lease(
          events.map((e, i) => lease(`r${i}`, "d", e.id - 1, undefined, e.id)),
          0
        );
        const polled = await store.poll(2, 1);
        expect(polled.map((p) => [p.stream, p.lagging])).toEqual([
          ["r0", true],
          ["r1", true],
          ["r4", false],
        ]);
        const many = await store.poll(10, 10);
        expect(many).toHaveLength(5);
      });

      it("grants a lease with the stream's stored head, so a drain reads no further than its work", async () => {
        const [a, b, c] = await store.commit("s", [msg("A"), msg("A"), msg("A")], meta());
        await store.lease([lease("r", "d", -1, undefined, b.id)], 0);
        await store.lease([lease("r", "d", -1, undefined, a.id)], 0); // a lower head does not lower it
        const [granted] = await store.lease([lease("r", "d", -1)], 10_000);
        expect(granted.head).toBe(b.id);
        await store.lease([lease("r", "d", -1, undefined, c.id)], 0); // correlation found more work
        const [renewed] = await store.lease([granted], 10_000);
        expect(renewed.head).toBe(c.id);
        // A stream the lease itself registers has no work found yet: its head is its watermark.
        const [fresh] = await store.lease([lease("new", "d", a.id)], 10_000);
        expect(fresh.head).toBe(a.id);
        // …and it is leased like any other: no one else takes it meanwhile.
        expect(await store.lease([lease("new", "d2", a.id)], 10_000)).toEqual([]);
        expect((await store.reactions({ streams: ["new"] }))[0].leasedUntil!.getTime()).toBeGreaterThan(Date.now());
      });

      it("grants a lease with the reactions the stream carries, so a drain knows which events can react into it", async () => {
        await store.commit("s", [msg("A")], meta());
        await store.lease([{ ...lease("r", "d", -1), reactions: ["A/one"] }], 0);
        await store.lease([{ ...lease("r", "d", -1), reactions: ["B/two", "A/one"] }], 0);
        const [granted] = await store.lease([lease("r", "d", -1)], 10_000);
        expect([...(granted.reactions ?? [])].sort()).toEqual(["A/one", "B/two"]);
        // A stream the lease itself registers carries none yet.
        const [fresh] = await store.lease([lease("bare", "d", -1)], 10_000);
        expect(fresh.reactions).toEqual([]);
      });

      it("leases exclusively until the lease expires, renews for the holder, and skips leased streams when polling", async () => {
        const [e] = await store.commit("s", [msg("A")], meta());
        await store.lease([lease("r", "d1", -1, "s", e.id)], 0);
        const [first] = await store.lease([lease("r", "d1", -1, "s")], 400);
        expect(first.token).toEqual(expect.any(Number));
        expect(await store.lease([lease("r", "d2", -1, "s")], 400)).toEqual([]);
        expect(await store.poll(10, 10)).toEqual([]);
        await sleep(240);
        expect(await store.lease([first], 400)).toEqual([expect.objectContaining({ token: first.token })]); // renewed
        await sleep(240);
        expect(await store.poll(10, 10)).toEqual([]); // the renewal still holds
        await sleep(300);
        expect(await store.poll(10, 10)).toHaveLength(1);
        const [taken] = await store.lease([lease("r", "d2", -1, "s")], 200);
        expect(taken.by).toBe("d2");
        expect(taken.token).not.toBe(first.token);
        expect(await store.lease([first], 400)).toEqual([]); // d1 lost it: no renewal…
        expect(await store.ack([{ ...first, at: e.id }])).toEqual([]); // …and no ack
        expect(await store.ack([{ ...taken, at: e.id }])).toHaveLength(1);
      });

      it("renews a lease that ran out as long as no one took the stream since", async () => {
        const [e] = await store.commit("s", [msg("A")], meta());
        await store.lease([lease("r", "d1", -1, "s", e.id)], 0);
        const [granted] = await store.lease([lease("r", "d1", -1, "s")], 100);
        await sleep(150);
        expect(await store.lease([granted], 10_000)).toEqual([expect.objectContaining({ token: granted.token })]);
        expect(await store.lease([lease("r", "d2", -1, "s")], 10_000)).toEqual([]);
        expect(await store.ack([{ ...granted, at: e.id }])).toHaveLength(1);
      });

      it("refuses renewals, acks and blocks that started before a reset or an unblock", async () => {
        const [a, b] = await store.commit("s", [msg("A"), msg("B")], meta());
        await store.lease([lease("r", "d", -1, "s", b.id)], 0);
        const [before] = await store.lease([lease("r", "d", -1, "s")], 10_000);
        expect(await store.reset(["r"])).toEqual(["r"]);
        expect(await store.lease([before], 10_000)).toEqual([]); // the drain in flight cannot renew it…
        expect((await store.reactions())[0]).toMatchObject({ at: -1, blocked: false });
        // …and while its handler may still run, no other drainer starts one beside it…
        expect(await store.poll(10, 10)).toEqual([]);
        expect(await store.lease([lease("r", "d2", -1, "s")], 10_000)).toEqual([]);
        // …nor can it record its old position; its refused call, made once its
        // handlers are done, gives the stream back at once.
        expect(await store.ack([{ ...before, at: b.id }])).toEqual([]);
        expect(await store.block([{ ...before, at: a.id, error: "late" }])).toEqual([]);
        expect((await store.poll(10, 10)).map((p) => [p.stream, p.at])).toEqual([["r", -1]]);
        // A refused block alone gives the stream back too.
        const [held] = await store.lease([lease("r", "d3", -1, "s")], 10_000);
        expect(await store.reset(["r"])).toEqual(["r"]);
        expect(await store.poll(10, 10)).toEqual([]);
        expect(await store.block([{ ...held, at: a.id, error: "late" }])).toEqual([]);
        expect((await store.poll(10, 10)).map((p) => [p.stream, p.at])).toEqual([["r", -1]]);

        const [next] = await store.lease([lease("r", "d2", -1, "s")], 10_000);
        expect(next.token).not.toBe(before.token);
        await store.block([{ ...next, at: a.id, retry: 4, error: "boom" }]);
        expect(await store.unblock(["r"])).toEqual(["r"]);
        expect(await store.ack([{ ...next, at: b.id }])).toEqual([]); // unblocked since: refused
        const [row] = await store.reactions();
        expect(row).toMatchObject({ at: a.id, blocked: false });
        expect(row.token).toBeGreaterThan(next.token!);
      });

      it("has no work for a stream reset to the end of the log", async () => {
        const [, b] = await store.commit("s", [msg("A"), msg("B")], meta());
        await store.lease([lease("r", "d", -1, "s", b.id)], 0);
        expect(await store.reset(["r"], b.id)).toEqual(["r"]);
        expect(await store.poll(10, 10)).toEqual([]);
        const [c] = await store.commit("s", [msg("C")], meta());
        await store.lease([lease("r", "d", b.id, "s", c.id)], 0);
        expect((await store.poll(10, 10)).map((p) => [p.stream, p.at])).toEqual([["r", b.id]]);
      });

      it("records the reactions that target a stream and offers it only to pollers that have them all", async () => {
        const [e] = await store.commit("s", [msg("A")], meta());
        await store.lease([{ ...lease("r", "d", -1, "s", e.id), reactions: ["A/old#1"] }], 0);
        await store.lease([{ ...lease("r", "d", -1, "s", e.id), reactions: ["A/new#2", "A/old#1"] }], 0);
        await store.lease([lease("q", "d", -1, "s", e.id)], 0); // no reactions recorded: anyone's
        const [q, r] = await store.reactions();
        expect(r).toMatchObject({ stream: "r", head: e.id, reactions: ["A/new#2", "A/old#1"] });
        expect(q).toMatchObject({ stream: "q", reactions: [] });
        const streams = async (reactions?: string[]) =>
          (await store.poll(10, 10, reactions)).map((p) => p.stream).sort();
        expect(await streams(["A/old#1"])).toEqual(["q"]); // lacks A/new#2
        expect(await streams(["A/new#2", "A/old#1", "B/other#1"])).toEqual(["q", "r"]);
        expect(await streams([])).toEqual(["q"]);
        expect(await streams()).toEqual(["q", "r"]); // no filter
      });

      it("retires reactions no release has any more, so streams that carried them are offered again", async () => {
        const [e] = await store.commit("s", [msg("A")], meta());
        await store.lease([{ ...lease("r", "d", -1, "s", e.id), reactions: ["A/gone#1", "A/kept#2"] }], 0);
        await store.lease([{ ...lease("q", "d", -1, "s", e.id), reactions: ["A/kept#2"] }], 0);
        expect(await store.poll(10, 10, ["A/kept#2"])).toHaveLength(1);
        expect(await store.retire(["A/gone#1", "A/unknown#9"])).toEqual(["r"]);
        expect((await store.reactions()).map((x) => [x.stream, x.reactions])).toEqual([
          ["q", ["A/kept#2"]],
          ["r", ["A/kept#2"]],
        ]);
        expect((await store.poll(10, 10, ["A/kept#2"])).map((p) => p.stream).sort()).toEqual(["q", "r"]);
        expect(await store.retire(["A/gone#1"])).toEqual([]);
      });

      it("refuses an ack or a block from a holder that lacks a reaction the stream gained since its lease", async () => {
        const [e] = await store.commit("s", [msg("A")], meta());
        await store.lease([{ ...lease("r", "d", -1, "s", e.id), reactions: ["A/old#1"] }], 0);
        const [granted] = await store.lease([lease("r", "d", -1, "s")], 10_000);
        await store.lease([{ ...lease("r", "d2", -1, "s", e.id), reactions: ["A/new#2"] }], 0); // a newer release
        expect(await store.block([{ ...granted, error: "x", reactions: ["A/old#1"] }])).toEqual([]);
        expect((await store.reactions())[0]).toMatchObject({ at: -1, blocked: false });
        // Refused, the holder gave the stream back: one with every reaction takes it at once.
        const [next] = await store.lease([lease("r", "d2", -1, "s")], 10_000);
        expect(await store.ack([{ ...next, at: e.id, reactions: ["A/old#1"] }])).toEqual([]);
        expect((await store.reactions())[0]).toMatchObject({ at: -1, blocked: false });
        const [last] = await store.lease([lease("r", "d2", -1, "s")], 10_000);
        expect(await store.ack([{ ...last, at: e.id, reactions: ["A/new#2", "A/old#1"] }])).toHaveLength(1);
      });

      it("leases for longer than 24.8 days", async () => {
        const [e] = await store.commit("s", [msg("A")], meta());
        await store.lease([lease("r", "d", -1, "s", e.id)], 0);
        expect(await store.lease([lease("r", "d", -1, "s")], 30 * 24 * 3600 * 1000)).toHaveLength(1);
        const [r] = await store.reactions();
        expect(r.leasedBy).toBe("d");
        expect(r.leasedUntil!.getTime()).toBeGreaterThan(Date.now() + 29 * 24 * 3600 * 1000);
      });

      it("acks: moves the watermark, stores retry and done, releases the lease, and honours a retry delay", async () => {
        const [a, b] = await store.commit("s", [msg("A"), msg("B")], meta());
        await store.lease([lease("r", "d", -1, "s", b.id)], 0);
        const [granted] = await store.lease([lease("r", "d", -1, "s")], 10_000);
        const acked = await store.ack([{ ...granted, at: a.id, retry: 2, done: [`${b.id}:first#1`], delay: 150 }]);
        expect(acked).toHaveLength(1);
        expect(await store.poll(10, 10)).toEqual([]); // waiting out the delay
        expect(await store.lease([lease("r", "d2", a.id, "s")], 10_000)).toEqual([]);
        await sleep(200);
        expect(await store.poll(10, 10)).toEqual([{ stream: "r", source: "s", at: a.id, lagging: true }]);
        const [again] = await store.lease([lease("r", "d", a.id, "s")], 10_000);
        expect(again).toMatchObject({ retry: 2, done: [`${b.id}:first#1`] });
        await store.ack([{ ...again, at: b.id, retry: 0, done: [] }]);
        expect(await store.poll(10, 10)).toEqual([]);
        const [c] = await store.commit("s", [msg("C")], meta());
        await store.lease([lease("r", "d", b.id, "s", c.id)], 0);
        expect(await store.poll(10, 10)).toHaveLength(1);
        const [row] = await store.reactions();
        expect(row).toMatchObject({ stream: "r", at: b.id, retry: 0, blocked: false });
      });

      it("widens a stream named by two sources to every stream", async () => {
        await store.lease([lease("shared", "d", -1, "a", 0)], 0);
        await store.lease([lease("shared", "d", -1, "b", 0)], 0);
        expect((await store.poll(10, 10)).map((p) => [p.stream, p.source ?? null])).toEqual([["shared", null]]);
      });

      it("refuses a lease whose polled watermark has moved since", async () => {
        const [a, b] = await store.commit("s", [msg("A"), msg("B")], meta());
        await store.lease([lease("r", "d1", -1, "s", b.id)], 0);
        const [first] = await store.lease([lease("r", "d1", -1, "s")], 10_000);
        expect(await store.ack([{ ...first, at: a.id }])).toHaveLength(1);
        expect(await store.lease([lease("r", "d2", -1, "s")], 10_000)).toEqual([]); // stale poll
        const [second] = await store.lease([lease("r", "d2", a.id, "s")], 10_000);
        expect(await store.ack([{ ...second, at: b.id }])).toHaveLength(1);
      });

      it("blocks: keeps the progress before the failure; a blocked stream is neither polled nor leased; only the holder can block", async () => {
        const [a, b] = await store.commit("s", [msg("A"), msg("B")], meta());
        await store.lease([lease("r", "d", -1, "s", b.id)], 0);
        const [granted] = await store.lease([lease("r", "d", -1, "s")], 10_000);
        expect(await store.block([{ ...granted, by: "other", at: a.id, error: "x" }])).toEqual([]);
        expect(await store.block([{ ...granted, token: granted.token! + 1, at: a.id, error: "x" }])).toEqual([]);
        const blocked = await store.block([{ ...granted, at: a.id, retry: 4, done: [`${b.id}:x#1`], error: "boom" }]);
        expect(blocked).toEqual([expect.objectContaining({ stream: "r", error: "boom" })]);
        expect(await store.poll(10, 10)).toEqual([]);
        expect(await store.lease([lease("r", "d", a.id, "s")], 10_000)).toEqual([]);
        expect(await store.reactions({ blocked: true })).toEqual([
          expect.objectContaining({ stream: "r", at: a.id, retry: 4, blocked: true, error: "boom" }),
        ]);
      });

      it("unblocks a stream at its watermark with retries reset, and resets one to replay from the start", async () => {
        const [a, b] = await store.commit("s", [msg("A"), msg("B")], meta());
        await store.lease([lease("r", "d", -1, "s", b.id), lease("q", "d", -1, "s", b.id)], 0);
        const [granted] = await store.lease([lease("r", "d", -1, "s")], 10_000);
        await store.block([{ ...granted, at: a.id, retry: 4, error: "boom" }]);
        expect(await store.unblock(["r", "q", "missing"])).toEqual(["r"]);
        expect(await store.reactions({ blocked: true })).toEqual([]);
        const [r] = (await store.reactions()).filter((x) => x.stream === "r");
        expect(r).toMatchObject({ at: a.id, retry: 0, blocked: false });
        expect(r.error).toBeUndefined();
        expect((await store.poll(10, 10)).map((p) => [p.stream, p.at])).toEqual([
          ["q", -1],
          ["r", a.id],
        ]);

        const [again] = await store.lease([lease("r", "d", a.id, "s")], 10_000);
        await store.ack([{ ...again, at: b.id }]);
        expect(await store.reset(["r", "missing"])).toEqual(["r"]);
        expect((await store.reactions()).find((x) => x.stream === "r")).toMatchObject({ at: -1, retry: 0 });
        expect((await store.poll(10, 10)).map((p) => p.stream).sort()).toEqual(["q", "r"]);
        expect((await store.reactions({ limit: 1 })).map((x) => x.stream)).toEqual(["q"]);
      });

      it("lists only the named streams, by name, once each, with the other filters on top", async () => {
        const [a, b] = await store.commit("s", [msg("A"), msg("B")], meta());
        await store.lease(
          ["a-1", "b-2", "c-3", "d-4"].map((stream) => lease(stream, "d", -1, "s", b.id)),
          0
        );
        const [granted] = await store.lease([lease("c-3", "d", -1, "s")], 10_000);
        await store.block([{ ...granted, at: a.id, error: "boom" }]);
        const named = (filter: Parameters<Store["reactions"]>[0]) =>
          store.reactions(filter).then((rows) => rows.map((r) => r.stream));
        expect(await named({ streams: ["d-4", "c-3", "missing", "a-1", "d-4"] })).toEqual(["a-1", "c-3", "d-4"]);
        expect(await store.reactions({ streams: ["c-3"] })).toEqual([
          expect.objectContaining({ stream: "c-3", source: "s", at: a.id, head: b.id, blocked: true, error: "boom" }),
        ]);
        expect(await named({ streams: ["a-1", "c-3", "d-4"], blocked: true })).toEqual(["c-3"]);
        expect(await named({ streams: ["a-1", "c-3", "d-4"], blocked: false })).toEqual(["a-1", "d-4"]);
        expect(await named({ streams: ["d-4", "c-3", "a-1"], limit: 2 })).toEqual(["a-1", "c-3"]);
        expect(await named({ streams: [] })).toEqual([]);
        expect(await named({ streams: ["missing"] })).toEqual([]);
      });
    });

    // Edge inputs every store must treat alike: what one store refuses, all
    // refuse with the same ValidationError; what one keeps, all keep.
    describe("discovery positions", () => {
      const positions = async (names: string[]) => [...(await store.discovered(names)).entries()].sort();

      it("knows no position for a reaction never discovered", async () => {
        expect(await positions(["A/r#1", "B/projection:Totals"])).toEqual([]);
        expect(await positions([])).toEqual([]);
      });

      it("records positions per reaction, moves them only forward, and leaves the others alone", async () => {
        await store.discover(["A/r#1", "B/s#1"], 5);
        await store.discover(["A/r#1"], 3); // behind: stays at 5
        await store.discover(["A/r#1"], 9);
        await store.discover(["C/t#1"], -1); // nothing correlated yet, but known
        await store.discover([], 7);
        expect(await positions(["A/r#1", "B/s#1", "C/t#1", "D/u#1"])).toEqual([
          ["A/r#1", 9],
          ["B/s#1", 5],
          ["C/t#1", -1],
        ]);
      });

      it("keeps names of every shape apart: repeats, Object's property names, slashes, long names", async () => {
        const long = `E/${"x".repeat(600)}#1`;
        await store.discover(["constructor", "__proto__", "A/r#1", "A/r#1", long, "A/r#10"], 4);
        await store.discover(["A/r#10"], 6);
        expect(await positions(["A/r#1", "A/r#10", "__proto__", "constructor", long, "toString"])).toEqual(
          [
            ["A/r#1", 4],
            ["A/r#10", 6],
            ["__proto__", 4],
            ["constructor", 4],
            [long, 4],
          ].sort()
        );
      });

      it("ends at the highest position whatever order racing processes record in", async () => {
        const names = ["A/r#1", "B/s#1", "C/t#1"];
        await Promise.all([7, 3, 11, 5, 9, 1].map((at, i) => store.discover(i % 2 ? names : [...names].reverse(), at)));
        expect(await positions(names)).toEqual(names.map((n) => [n, 11]));
      });

      it("keeps positions through seed and forgets them on drop", async () => {
        await store.discover(["A/r#1"], 2);
        await store.seed();
        expect(await positions(["A/r#1"])).toEqual([["A/r#1", 2]]);
        await store.drop();
        await store.seed();
        expect(await positions(["A/r#1"])).toEqual([]);
      });

      it("refuses bad names and positions, and records nothing", async () => {
        for (const names of [[""], ["a\u0000b"], [1], "A/r#1", undefined])
          await expect(store.discover(names as never, 1)).rejects.toThrow(ValidationError);
        for (const at of [-2, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "3", undefined])
          await expect(store.discover(["A/r#1"], at as never)).rejects.toThrow(ValidationError);
        await expect(store.discovered([""] as never)).rejects.toThrow(ValidationError);
        expect(await positions(["A/r#1"])).toEqual([]);
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
          await refused(() => store.commit(stream, [msg("A")], meta()), "stream");
        for (const name of ["", "A\u0000", long])
          await refused(() => store.commit("s", [msg(name)], meta()), "event name");
        for (const correlation of ["", "c\u0000"])
          await refused(() => store.commit("s", [msg("A")], meta(correlation)), "correlation");
        for (const key of ["", "k\u0000", long])
          await refused(() => store.commit("s", [msg("A")], meta(), undefined, key), "idempotency key");
        expect(await all({ with_snaps: true })).toEqual([]);
      });

      it("refuses expected versions that are not whole numbers of at least -1", async () => {
        for (const version of [Number.NaN, Number.POSITIVE_INFINITY, -2, 0.5])
          await refused(() => store.commit("s", [msg("A")], meta(), version), "expected version");
        expect(await all()).toEqual([]);
      });

      it("refuses the same query filters: empty and NUL strings, NaN, Infinity, out-of-range numbers", async () => {
        await store.commit("s", [msg("A")], meta("c-1"));
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
          await refused(() => store.query(() => {}, query), "query");
      });

      it("refuses NUL and empty names when recalling an idempotency key", async () => {
        await refused(() => store.recall("s\u0000", "k"), "stream");
        await refused(() => store.recall("s", ""), "idempotency key");
        await refused(() => store.recall("s", "k\u0000"), "idempotency key");
      });

      it("refuses lease durations that are not whole numbers", async () => {
        for (const millis of [Number.NaN, Number.POSITIVE_INFINITY, -1])
          await expect(store.lease([{ stream: "r", by: "d", at: -1, retry: 0 }], millis)).rejects.toBeInstanceOf(
            ValidationError
          );
      });

      it("keeps names that are Object's property names like any other name", async () => {
        const names = ["constructor", "__proto__", "toString", "hasOwnProperty"];
        for (const name of names) await store.commit(name, [msg(name)], meta(name), -1, name);
        for (const name of names) {
          expect((await all({ stream: name })).map((e) => [e.stream, e.name])).toEqual([[name, name]]);
          expect(await all({ correlation: name })).toHaveLength(1);
          expect(await store.recall(name, name)).toEqual({ from: 0, to: 0 });
        }
        expect(await store.recall("constructor", "toString")).toBeUndefined();
      });

      it("keeps the longest names", async () => {
        const longest = "n".repeat(MAX_STREAM_LENGTH);
        await store.commit(longest, [msg(longest, { n: 1 })], meta(longest), -1, longest);
        const [event] = await all({ stream: longest, names: [longest], correlation: longest });
        expect(event.data).toEqual({ n: 1 });
        expect(await store.recall(longest, longest)).toEqual({ from: 0, to: 0 });
      });

      it("refuses a commit whose last event id is not the stream's last event, even at the same version", async () => {
        const [first] = await store.commit("rewritten", [msg("A")], meta());
        await store.drop();
        await store.seed();
        const [again] = await store.commit("rewritten", [msg("B")], meta());
        expect(again.version).toBe(first.version);
        await expect(store.commit("rewritten", [msg("C")], meta(), 0, undefined, first.id)).rejects.toBeInstanceOf(
          ConcurrencyError
        );
        await expect(store.commit("empty", [msg("C")], meta(), undefined, undefined, first.id)).rejects.toBeInstanceOf(
          ConcurrencyError
        );
        await store.commit("rewritten", [msg("C")], meta(), 0, undefined, again.id);
        await refused(
          () => store.commit("rewritten", [msg("D")], meta(), undefined, undefined, Number.NaN),
          "last event id"
        );
        expect((await all({ stream: "rewritten" })).map((e) => e.name)).toEqual(["B", "C"]);
      });

      it("reads backward from a snapshot over more than a page of events, never past the snapshot", async () => {
        await store.commit(
          "long",
          Array.from({ length: 10 }, () => msg("Before")),
          meta()
        );
        await store.commit("long", [msg(SNAP_EVENT, { of: "S@1", state: {} })], meta());
        await store.commit(
          "long",
          Array.from({ length: 1_500 }, () => msg("After")),
          meta()
        );
        const events = await all({ stream: "long", from_snapshot: "S@1", backward: true });
        expect(events).toHaveLength(1_501);
        expect(events[events.length - 1].name).toBe(SNAP_EVENT);
        expect(events.filter((e) => e.name === "Before")).toEqual([]);
      });
    });

    joiningConformance(() => store, test);
    projectConformance(() => store, test, probe);
    inlineConformance(() => store, test, probe);
  });
}
