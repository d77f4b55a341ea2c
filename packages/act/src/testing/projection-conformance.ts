import { ConcurrencyError } from "../core/errors.js";
import type { Committed, Schemas } from "../types/action.js";
import type { Store } from "../types/ports.js";
import type { Lease } from "../types/lease.js";
import type { ReadModelProbe } from "./read-model-probe.js";
import type { TestApi } from "./test-api.js";

/** A transaction that always rolls back: its acknowledgement is refused, as no one holds this stream. */
const nobody: Lease = { stream: "no-such-projection", by: "nobody", at: 0, retry: 0, token: -1 };

/** Whether the probe's table holds `key`, as committed (read in a transaction that rolls back). */
async function readCommitted(store: Store, probe: ReadModelProbe, key: string): Promise<boolean> {
  let found = false;
  await store.project!(nobody, (tx) => {
    const result = probe.read(tx, key);
    if (typeof result === "boolean") found = result;
    else
      return result.then((f) => {
        found = f;
      });
  });
  return found;
}

/**
 * The conformance tests of `Store.project`, registered by `storeConformance`
 * inside its own group (its `beforeEach` gives each test a seeded, empty
 * store). Skipped for a store without `project`. With a probe, they also
 * check the read model's side: the writes commit with the position, or not
 * at all.
 */
export function projectConformance(store: () => Store, test: TestApi, probe?: ReadModelProbe): void {
  const { describe, expect, it, beforeEach } = test;
  describe("project (a projection's writes and position in one transaction)", () => {
    const committed = (key: string) => readCommitted(store(), probe!, key);
    const write = (key: string) => (tx: unknown) => probe?.write(tx, key);

    /** A projection stream with work up to the store's first event, leased by "d". */
    async function leased(): Promise<{ lease: Lease; head: number }> {
      const [e] = await store().commit({
        stream: "s",
        messages: [{ name: "A", data: {} }],
        meta: { correlation: "c", causation: {} },
      });
      await store().lease([{ stream: "p", by: "d", at: -1, retry: 0, head: e.id }], 0);
      const [lease] = await store().lease([{ stream: "p", by: "d", at: -1, retry: 0 }], 10_000);
      return { lease, head: e.id };
    }
    const position = async () => (await store().reactions()).find((r) => r.stream === "p")!;

    beforeEach(async () => {
      if (!store().project || !probe) return;
      const { lease } = await leased();
      expect(await store().project!(lease, (tx) => probe.reset(tx))).toBe(true);
      await store().drop();
      await store().seed();
    });

    it("moves the position and commits the writes together, releasing the lease", async ({ skip }) => {
      if (!store().project) return skip();
      const { lease, head } = await leased();
      let handle: unknown = "not called";
      const moved = await store().project!({ ...lease, at: head }, (tx) => {
        handle = tx;
        return write("a")(tx);
      });
      expect(moved).toBe(true);
      expect(handle).not.toBe("not called");
      expect(await position()).toMatchObject({ at: head, retry: 0, blocked: false });
      expect((await position()).leasedBy).toBeUndefined();
      if (probe) expect(await committed("a")).toBe(true);
    });

    it("rolls both back when the work throws, and rethrows its error as it is", async ({ skip }) => {
      if (!store().project) return skip();
      const { lease, head } = await leased();
      const failure = new Error("handler failed");
      await expect(
        store().project!({ ...lease, at: head }, (tx) => {
          write("b")(tx);
          throw failure;
        })
      ).rejects.toBe(failure);
      expect(await position()).toMatchObject({ at: -1, leasedBy: "d" }); // untouched, still leased
      if (probe) expect(await committed("b")).toBe(false);
      // The lease is still good: the retry can record its progress.
      expect(await store().project!({ ...lease, at: head }, write("b"))).toBe(true);
      if (probe) expect(await committed("b")).toBe(true);
    });

    it("rolls the writes back when the lease is no longer the caller's (reset, or another drainer)", async ({
      skip,
    }) => {
      if (!store().project) return skip();
      const { lease, head } = await leased();
      await store().reset(["p"]);
      expect(await store().project!({ ...lease, at: head }, write("c"))).toBe(false);
      expect((await position()).at).toBe(-1);
      if (probe) expect(await committed("c")).toBe(false);
      // The overtaken holder gives the stream back (its refused ack does), and another drainer takes it.
      expect(await store().ack([lease])).toEqual([]);
      const [other] = await store().lease([{ stream: "p", by: "d2", at: -1, retry: 0 }], 10_000);
      expect(other?.by).toBe("d2");
      expect(await store().project!({ ...lease, at: head }, write("c"))).toBe(false);
      expect(await store().project!({ ...other, at: head }, write("c"))).toBe(true);
      if (probe) expect(await committed("c")).toBe(true);
    });
  });
}

/**
 * The conformance tests of `Store.commitInline`, registered by
 * `storeConformance` inside its own group. Skipped for a store without
 * `commitInline`. With a probe (and `project`, to read it back), they also
 * check the read model's side: the writes commit with the events, or not at all.
 */
export function inlineConformance(store: () => Store, test: TestApi, probe?: ReadModelProbe): void {
  const { describe, expect, it, beforeEach } = test;
  describe("commitInline (an action's events and its inline projections' writes in one transaction)", () => {
    const meta = { correlation: "c", causation: {} };
    const opened = (title: string) => [{ name: "Opened", data: { title } }];
    const committed = async (key: string) =>
      probe && store().project ? readCommitted(store(), probe, key) : undefined;
    const stored = async (stream: string) => {
      const events: Committed<Schemas, string>[] = [];
      await store().query((e) => events.push(e), { stream });
      return events;
    };

    beforeEach(async () => {
      if (!store().commitInline || !probe || !store().project) return;
      const [e] = await store().commit({ stream: "setup", messages: opened("setup"), meta });
      await store().lease([{ stream: "probe-reset", by: "r", at: -1, retry: 0, head: e.id }], 0);
      const [lease] = await store().lease([{ stream: "probe-reset", by: "r", at: -1, retry: 0 }], 10_000);
      expect(await store().project!(lease, (tx) => probe.reset(tx))).toBe(true);
      await store().drop();
      await store().seed();
    });

    it("commits the events and the writes together, handing the work the events as stored", async ({ skip }) => {
      if (!store().commitInline) return skip();
      let seen: Committed<Schemas, string>[] = [];
      const events = await store().commitInline!(
        { stream: "t-1", messages: opened("a"), meta, expectedVersion: -1 },
        (e, tx) => {
          seen = e as Committed<Schemas, string>[];
          return probe?.write(tx, "a");
        }
      );
      expect(await stored("t-1")).toEqual(events);
      expect(seen).toEqual(events);
      expect(events).toMatchObject([{ stream: "t-1", version: 0, name: "Opened", data: { title: "a" } }]);
      expect(await committed("a")).not.toBe(false);
    });

    it("commits neither when the work throws, and rethrows its error as it is", async ({ skip }) => {
      if (!store().commitInline) return skip();
      const failure = new Error("handler failed");
      await expect(
        store().commitInline!({ stream: "t-2", messages: opened("b"), meta, idempotencyKey: "k" }, (_, tx) => {
          const written = probe?.write(tx, "b");
          if (written instanceof Promise) return written.then(() => Promise.reject(failure));
          throw failure;
        })
      ).rejects.toBe(failure);
      expect(await stored("t-2")).toEqual([]);
      expect(await committed("b")).not.toBe(true);
      // Nothing was claimed either: the key and the version are free for the retry.
      expect(await store().recall("t-2", "k")).toBeUndefined();
      const [retried] = await store().commitInline!(
        { stream: "t-2", messages: opened("b"), meta, expectedVersion: -1 },
        (_, tx) => probe?.write(tx, "b")
      );
      expect(retried.version).toBe(0);
      expect(await committed("b")).not.toBe(false);
    });

    it("commits neither on a concurrency conflict, without running the work", async ({ skip }) => {
      if (!store().commitInline) return skip();
      await store().commit({ stream: "t-3", messages: opened("first"), meta, expectedVersion: -1 });
      let ran = false;
      await expect(
        store().commitInline!({ stream: "t-3", messages: opened("c"), meta, expectedVersion: -1 }, (_, tx) => {
          ran = true;
          return probe?.write(tx, "c");
        })
      ).rejects.toBeInstanceOf(ConcurrencyError);
      expect(ran).toBe(false);
      expect((await stored("t-3")).map((e) => e.data)).toEqual([{ title: "first" }]);
      expect(await committed("c")).not.toBe(true);
    });

    it("of two racing commits at one version, keeps only the winner's events and writes", async ({ skip }) => {
      if (!store().commitInline) return skip();
      const race = (key: string) =>
        store().commitInline!({ stream: "t-4", messages: opened(key), meta, expectedVersion: -1 }, (_, tx) =>
          probe?.write(tx, key)
        );
      const outcomes = await Promise.allSettled([race("d1"), race("d2")]);
      const won = outcomes.map((o) => o.status === "fulfilled");
      expect(won.filter(Boolean)).toHaveLength(1);
      const loser = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
      expect(loser.reason).toBeInstanceOf(ConcurrencyError);
      const [winner, other] = won[0] ? ["d1", "d2"] : ["d2", "d1"];
      expect((await stored("t-4")).map((e) => e.data)).toEqual([{ title: winner }]);
      expect(await committed(winner)).not.toBe(false);
      expect(await committed(other)).not.toBe(true);
    });
  });
}
