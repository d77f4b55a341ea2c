import { z } from "zod";
import { act } from "../act-builder.js";
import { state } from "../builders/state-builder.js";
import { CLOSE_EVENT, StreamArchivedError, StreamClosedError } from "../core/closed-streams.js";
import { ConcurrencyError, ValidationError } from "../core/errors.js";
import { SNAP_EVENT } from "../core/schemas.js";
import type { Committed, Schemas } from "../types/action.js";
import type { ArchiveStore } from "../types/archive.js";
import type { Store } from "../types/ports.js";
import { settle } from "./settle.js";
import { testClock } from "./test-clock.js";
import type { TestApi } from "./test-api.js";

const ada = { id: "u-1", name: "Ada" };
const HOUR = 3_600_000;

/** An order: items added with a price, summed. */
const Order = state("Order", z.object({ items: z.number(), total: z.number() }))
  .init(() => ({ items: 0, total: 0 }))
  .emits({ Added: z.object({ price: z.number() }) })
  .patch({ Added: ({ data }, s) => ({ items: s.items + 1, total: s.total + data.price }) })
  .on("add", z.object({ price: z.number() }))
  .emit(({ price }) => ["Added", { price }])
  .build();

type Event = Committed<Schemas, string>;

/**
 * The part of the store conformance suite about closing and archiving
 * (`Store.archive`), run through apps on the store: a closed stream refuses
 * every later action (in a second app too) and a second close; a close at a
 * stale version fails; a state carried into a new stream; `move` moves
 * exactly the events of streams closed before its cut-off, never one of an
 * open stream, never the summary or the close, never one a reaction has not
 * passed; loads and queries give the same answers after (the log and the
 * archive together hold every event once), time travel into the archived
 * part fails naming it; `purge` deletes only events archived before its
 * cut-off, and the stream still loads. Registered by {@link storeConformance}.
 *
 * @param store - the store under test (seeded and empty before each test)
 * @param test - the test runner's functions
 */
export function archiveConformance(store: () => Store, test: TestApi): void {
  const { describe, expect, it } = test;
  const archive = (): ArchiveStore => {
    const kept = store().archive;
    if (!kept) throw new Error("the store keeps no archive (Store.archive)");
    return kept;
  };
  const log = async (query: Parameters<Store["query"]>[1]) => {
    const events: Event[] = [];
    await store().query<Schemas>((e) => events.push(e as Event), query);
    return events;
  };
  const archived = async (query: Parameters<Store["query"]>[1]) => {
    const events: Event[] = [];
    await archive().query<Schemas>((e) => events.push(e as Event), query);
    return events;
  };
  const ids = (events: Event[]) => events.map((e) => e.id);
  /** An app on the store under test, its clock an hour ahead of the store's unless given. */
  const app = (clock = testClock(new Date(Date.now() + HOUR))) => ({
    clock,
    app: act().with(Order).build({ store: store(), clock }),
  });
  const order = async (stream: string, prices: number[], a = app().app) => {
    for (const price of prices) await a.do("add", { stream, actor: ada }, { price });
  };

  describe("closing and archiving", () => {
    it("refuses every action on a closed stream, naming the stream, when and by whom", async () => {
      const { app: a } = app();
      await order("o-1", [5, 7], a);
      const { closed } = await a.close(Order, "o-1", { by: ada, reason: "delivered" });
      expect(closed.state).toEqual({ items: 2, total: 12 });
      expect(closed.event?.name).toBe(CLOSE_EVENT);
      for (const other of [a, app().app]) {
        const refused = await other.do("add", { stream: "o-1", actor: ada }, { price: 1 }).catch((e) => e);
        expect(refused).toBeInstanceOf(StreamClosedError);
        expect(refused).toMatchObject({ stream: "o-1", by: ada, reason: "delivered" });
        expect((refused as StreamClosedError).at.getTime()).toBe(closed.event!.created.getTime());
      }
      await expect(app().app.close(Order, "o-1", { by: ada })).rejects.toBeInstanceOf(StreamClosedError);
      const events = await log({ stream: "o-1", with_snaps: true });
      expect(events.map((e) => [e.name, e.version])).toEqual([
        ["Added", 0],
        ["Added", 1],
        [SNAP_EVENT, 2],
        [CLOSE_EVENT, 3],
      ]);
      expect((await a.load(Order, "o-1")).state).toEqual({ items: 2, total: 12 });
    });

    it("refuses a close at a stale version and leaves the stream open", async () => {
      const { app: a } = app();
      await order("o-1", [5, 7], a);
      await expect(a.close(Order, "o-1", { by: ada, expectedVersion: 0 })).rejects.toBeInstanceOf(ConcurrencyError);
      await a.do("add", { stream: "o-1", actor: ada }, { price: 1 });
      expect((await a.load(Order, "o-1")).state).toEqual({ items: 3, total: 13 });
    });

    it("carries the state into a new stream that starts from the summary", async () => {
      const { app: a } = app();
      await order("ledger-2025", [10, 20], a);
      const { continued } = await a.close(Order, "ledger-2025", { by: ada, continueAs: "ledger-2026" });
      expect(continued?.state).toEqual({ items: 2, total: 30 });
      expect(continued?.event?.version).toBe(0);
      await a.do("add", { stream: "ledger-2026", actor: ada }, { price: 5 });
      expect((await app().app.load(Order, "ledger-2026")).state).toEqual({ items: 3, total: 35 });
      const refused = await a.do("add", { stream: "ledger-2025", actor: ada }, { price: 1 }).catch((e) => e);
      expect(refused).toMatchObject({ continuedAs: "ledger-2026" });
      await order("o-2", [1], a);
      await expect(a.close(Order, "o-2", { by: ada, continueAs: "ledger-2026" })).rejects.toBeInstanceOf(
        ValidationError
      );
      await a.do("add", { stream: "o-2", actor: ada }, { price: 1 }); // still open
    });

    it("moves exactly the events of streams closed before the cut-off; loads and queries answer the same", async () => {
      const { app: a } = app();
      await order("o-1", [1, 2, 3], a);
      await order("o-2", [4, 5], a); // stays open
      await order("o-3", [6], a);
      await a.close(Order, "o-1", { by: ada });
      await a.close(Order, "o-3", { by: ada });
      const before = await log({ with_snaps: true });
      const loads = await Promise.all(["o-1", "o-2", "o-3"].map((s) => a.load(Order, s)));
      const past = await a.load(Order, "o-1", { at: { version: 1 } });

      // Closed an hour ago by the app's clock: a two-hour policy moves nothing.
      expect(await a.archive({ afterMillis: 2 * HOUR })).toEqual({ events: 0, streams: [], held: 0 });
      const moved = await a.archive({ afterMillis: HOUR / 2 });
      expect(moved).toEqual({ events: 4, streams: ["o-1", "o-3"], held: 0 });

      const selected = before.filter((e) => e.stream !== "o-2" && e.version < (e.stream === "o-1" ? 3 : 1));
      expect(ids(await archived({ with_snaps: true }))).toEqual(ids(selected));
      const after = await log({ with_snaps: true });
      expect(ids([...after, ...selected].sort((x, y) => x.id - y.id))).toEqual(ids(before));
      expect((await log({ stream: "o-2" })).map((e) => e.version)).toEqual([0, 1]);
      expect((await log({ stream: "o-1", with_snaps: true })).map((e) => e.name)).toEqual([SNAP_EVENT, CLOSE_EVENT]);
      expect(await archived({ stream: "o-1" })).toEqual(selected.filter((e) => e.stream === "o-1"));
      // Its first events left the log, yet the stream is not empty: a commit for an empty stream is refused.
      const empty = await store()
        .commit({
          stream: "o-1",
          messages: [{ name: "Added", data: { price: 1 } }],
          meta: { correlation: "c-1", causation: {} },
          expectedVersion: -1,
        })
        .catch((e) => e);
      expect(empty).toBeInstanceOf(ConcurrencyError);
      expect(empty).toMatchObject({ stream: "o-1", lastVersion: 4, expectedVersion: -1 });

      const fresh = app().app;
      for (const [i, s] of ["o-1", "o-2", "o-3"].entries())
        expect((await fresh.load(Order, s)).state).toEqual(loads[i].state);
      expect(past.state).toEqual({ items: 2, total: 3 });
      const refused = await fresh.load(Order, "o-1", { at: { version: 1 } }).catch((e) => e);
      expect(refused).toBeInstanceOf(StreamArchivedError);
      expect(refused).toMatchObject({ stream: "o-1", version: 3 });
      expect((await fresh.load(Order, "o-1", { at: { version: 3 } })).state).toEqual(loads[0].state);
      expect(await a.archive({ afterMillis: 0 })).toEqual({ events: 0, streams: [], held: 0 });
    });

    it("never moves an event a reaction has not passed", async () => {
      const clock = testClock(new Date(Date.now() + HOUR));
      const seen: number[] = [];
      const reacting = act()
        .with(Order)
        .on("Added")
        .do(async function audit(event) {
          seen.push(event.id);
        })
        .build({ store: store(), clock });
      await order("o-1", [1, 2], reacting);
      await reacting.close(Order, "o-1", { by: ada });
      // Never drained: the store has no position for the reaction, so it holds everything.
      expect(await reacting.archive({ afterMillis: 0 })).toEqual({ events: 0, streams: [], held: 2 });
      await settle(reacting);
      expect(seen).toHaveLength(2);
      expect(await reacting.archive({ afterMillis: 0 })).toEqual({ events: 2, streams: ["o-1"], held: 0 });
    });

    it("holds back every event past the watermark of a blocked reaction stream", async () => {
      const clock = testClock(new Date(Date.now() + HOUR));
      const reacting = act()
        .with(Order)
        .on("Added")
        .do(
          async function audit(event) {
            if (event.data.price === 99) throw new Error("refused");
          },
          { maxRetries: 0, blockOnError: true }
        )
        .to("audit")
        .build({ store: store(), clock });
      await order("o-1", [1, 2], reacting);
      await order("o-2", [99], reacting);
      await order("o-3", [3, 4], reacting);
      for (const s of ["o-1", "o-2", "o-3"]) await reacting.close(Order, s, { by: ada });
      const { blocked } = await settle(reacting, { allowBlocked: true });
      expect(blocked.map((b) => b.stream)).toEqual(["audit"]);
      // The audit stream stopped before o-2's event: o-1's events moved, o-3's wait with o-2's.
      expect(await reacting.archive({ afterMillis: 0 })).toEqual({ events: 2, streams: ["o-1"], held: 3 });
      expect((await archived({})).map((e) => e.stream)).toEqual(["o-1", "o-1"]);
    });

    it("purges only archived events past their period; the stream still loads", async () => {
      const { app: a, clock } = app();
      await order("o-1", [1, 2], a);
      await a.close(Order, "o-1", { by: ada });
      await a.archive({ afterMillis: 0 });
      clock.advance(HOUR);
      await order("o-2", [3], a);
      await a.close(Order, "o-2", { by: ada });
      await a.archive({ afterMillis: 0 });
      expect(await a.purge({ afterMillis: 2 * HOUR })).toEqual({ events: 0, streams: [] });
      expect(await a.purge({ afterMillis: HOUR / 2 })).toEqual({ events: 2, streams: ["o-1"] });
      expect((await archived({})).map((e) => e.stream)).toEqual(["o-2"]);
      expect((await app().app.load(Order, "o-1")).state).toEqual({ items: 2, total: 3 });
      await expect(a.do("add", { stream: "o-1", actor: ada }, { price: 1 })).rejects.toBeInstanceOf(StreamClosedError);
    });

    it("refuses a move or purge with bad times or reaction names", async () => {
      const now = new Date();
      await expect(archive().move({ closedBefore: new Date("x"), at: now, reactions: [] })).rejects.toBeInstanceOf(
        ValidationError
      );
      await expect(archive().move({ closedBefore: now, at: now, reactions: [""] })).rejects.toBeInstanceOf(
        ValidationError
      );
      await expect(archive().purge(new Date("x"))).rejects.toBeInstanceOf(ValidationError);
    });
  });
}
