import { z } from "zod";
import { act } from "../act-builder.js";
import { state } from "../builders/state-builder.js";
import type { Store } from "../types/ports.js";
import type { ScheduledTimer, TimerStore } from "../types/timers.js";
import { actionTimersConformance } from "./action-timers-conformance.js";
import { testClock } from "./test-clock.js";
import type { TestApi } from "./test-api.js";

const actor = { id: "u-1", name: "User" };
const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const at = (ms: number) => new Date(T0 + ms);
const timer = (id: string, due: number, action = "ping", stream = "s-1"): ScheduledTimer => ({
  id,
  action,
  stream,
  actor,
  payload: { note: id },
  due: at(due),
});
const claim = (by: string, now: number, limit = 10, actions = ["ping"], millis = 1_000) => ({
  now: at(now),
  by,
  millis,
  limit,
  actions,
});

/** A state whose action the idempotent-fire case runs through an app. */
const Pinged = state("Pinged", z.object({ n: z.number() }))
  .init(() => ({ n: 0 }))
  .emits({ Pinged: z.object({ note: z.string() }) })
  .patch({ Pinged: (_, s) => ({ n: s.n + 1 }) })
  .on("ping", z.object({ note: z.string() }))
  .emit(({ note }) => ["Pinged", { note }])
  .build();

/**
 * The part of the store conformance suite about timers (`Store.timers`):
 * `schedule` (an id is used once), `cancel` (not while claimed), `claim`
 * (only due timers of the caller's actions, the earliest due first, never
 * the same one to two callers while the claim lasts), `settle` (refused
 * without the claim's token; fired, failed or to be retried), `next`, `list`
 * and `count` — and, through an app, a timer fired again after a crash
 * between its commit and its outcome commits its action once. Registered by
 * {@link storeConformance}, with the timers written with a commit
 * (`actionTimersConformance`).
 *
 * @param store - the store under test (seeded and empty before each test)
 * @param test - the test runner's functions
 */
export function timersConformance(store: () => Store, test: TestApi): void {
  const { describe, expect, it } = test;
  const timers = (): TimerStore => {
    const kept = store().timers;
    if (!kept) throw new Error("the store keeps no timers (Store.timers)");
    return kept;
  };
  const status = async (id: string) => (await timers().list({ ids: [id] }))[0]?.status;

  describe("timers", () => {
    it("schedules a timer once per id, whatever becomes of it, and lists it as given", async () => {
      expect(await timers().schedule([timer("a", 10), timer("b", 5)])).toEqual(["a", "b"]);
      expect(await timers().schedule([timer("a", 99), timer("c", 1)])).toEqual(["c"]);
      const listed = await timers().list();
      expect(listed.map((t) => t.id)).toEqual(["c", "b", "a"]);
      expect(listed[2]).toMatchObject({ ...timer("a", 10), status: "pending", attempts: 0 });
      expect(listed[2].due).toEqual(at(10));
      await timers().cancel(["a"], at(0));
      expect(await timers().schedule([timer("a", 1)])).toEqual([]);
      expect(await status("a")).toBe("cancelled");
      expect(await timers().list({ status: "pending", limit: 1 })).toMatchObject([{ id: "c" }]);
    });

    it("refuses a timer with an empty id or an invalid due time", async () => {
      await expect(timers().schedule([timer("", 1)])).rejects.toThrow(/timer id/);
      await expect(timers().schedule([{ ...timer("x", 1), due: new Date(Number.NaN) }])).rejects.toThrow(/due/);
      expect(await timers().list()).toEqual([]);
    });

    it("claims only due timers of the caller's actions, the earliest due first, up to the limit", async () => {
      await timers().schedule([timer("late", 30), timer("first", 10), timer("second", 20), timer("other", 0, "pong")]);
      expect((await timers().claim(claim("p", 25, 1))).map((t) => t.id)).toEqual(["first"]);
      const rest = await timers().claim(claim("p", 25));
      expect(rest.map((t) => [t.id, t.attempts])).toEqual([["second", 1]]);
      expect((await timers().claim(claim("q", 25, 10, ["pong"]))).map((t) => t.id)).toEqual(["other"]);
    });

    it("never hands one timer to two claimants while the claim lasts", async () => {
      await timers().schedule([timer("a", 0), timer("b", 0), timer("c", 0)]);
      const [p, q] = await Promise.all([timers().claim(claim("p", 10)), timers().claim(claim("q", 10))]);
      const ids = [...p, ...q].map((t) => t.id).sort();
      expect(ids).toEqual(["a", "b", "c"]);
      expect(await timers().claim(claim("r", 500))).toEqual([]);
    });

    it("refuses the outcome of a claim that ran out and was taken by another", async () => {
      await timers().schedule([timer("a", 0)]);
      const [first] = await timers().claim(claim("p", 0));
      const [second] = await timers().claim(claim("q", 2_000));
      expect(second.token).toBeGreaterThan(first.token);
      expect(second.attempts).toBe(2);
      expect(await timers().settle([{ id: "a", by: "p", token: first.token, at: at(2_100) }])).toEqual([]);
      expect(await timers().settle([{ id: "a", by: "q", token: second.token, at: at(2_100) }])).toEqual(["a"]);
      const [fired] = await timers().list({ ids: ["a"] });
      expect(fired).toMatchObject({ status: "fired", fired: at(2_100) });
      expect(fired.claimedBy).toBeUndefined();
      expect(await timers().claim(claim("r", 9_000))).toEqual([]);
    });

    it("keeps a timer to retry pending until its retry time, and records one that failed for good", async () => {
      await timers().schedule([timer("a", 0), timer("b", 0)]);
      const [a, b] = await timers().claim(claim("p", 0));
      await timers().settle([
        { id: "a", by: "p", token: a.token, at: at(1), error: "store down", retryAt: at(500) },
        { id: "b", by: "p", token: b.token, at: at(1), error: "refused" },
      ]);
      expect(await timers().list({ ids: ["a"] })).toMatchObject([{ status: "pending", error: "store down" }]);
      expect(await timers().list({ ids: ["b"] })).toMatchObject([{ status: "failed", error: "refused", fired: at(1) }]);
      expect(await timers().claim(claim("p", 499))).toEqual([]);
      expect((await timers().claim(claim("p", 500))).map((t) => [t.id, t.attempts])).toEqual([["a", 2]]);
    });

    it("cancels pending timers that no one is firing, and only those", async () => {
      await timers().schedule([timer("a", 0), timer("b", 0), timer("c", 0)]);
      const [a] = await timers().claim(claim("p", 0, 1));
      expect(await timers().cancel(["a", "b", "b", "unknown"], at(10))).toEqual(["b"]);
      expect(await timers().settle([{ id: "a", by: "p", token: a.token, at: at(20) }])).toEqual(["a"]);
      expect(await timers().cancel(["a"], at(30))).toEqual([]);
      expect((await timers().claim(claim("q", 40))).map((t) => t.id)).toEqual(["c"]);
      // A claim that ran out no longer protects the timer.
      expect(await timers().cancel(["c"], at(5_000))).toEqual(["c"]);
      expect(await timers().claim(claim("q", 9_000))).toEqual([]);
      expect(await status("c")).toBe("cancelled");
    });

    it("says when the next timer of some actions is due, and counts pending and overdue timers", async () => {
      expect(await timers().next(["ping"])).toBeUndefined();
      await timers().schedule([timer("a", 300), timer("b", 100), timer("c", 50, "pong")]);
      expect(await timers().next(["ping"])).toEqual(at(100));
      expect(await timers().count(at(100))).toEqual({ pending: 3, overdue: 2 });
      const [b] = await timers().claim(claim("p", 100));
      expect(await timers().next(["ping"])).toEqual(at(300));
      await timers().settle([{ id: "b", by: "p", token: b.token, at: at(120) }]);
      expect(await timers().count(at(1_000))).toEqual({ pending: 2, overdue: 2 });
    });

    it("forgets every timer on drop", async () => {
      await timers().schedule([timer("a", 0)]);
      await store().drop();
      await store().seed();
      expect(await timers().list()).toEqual([]);
      expect(await timers().schedule([timer("a", 0)])).toEqual(["a"]);
    });

    it("commits a timer's action once when it fires again after a crash between its commit and its outcome", async () => {
      const clock = testClock(at(0));
      const app = act().with(Pinged).build({ store: store(), clock });
      await app.schedule({
        id: "once",
        action: "ping",
        target: { stream: "p-1", actor },
        payload: { note: "x" },
        at: at(10),
      });
      clock.advance(10);
      // A process claims it and commits its action as a drain would, then dies before recording the outcome.
      const [claimed] = await timers().claim({
        now: clock.now(),
        by: "dead",
        millis: 1_000,
        limit: 1,
        actions: ["ping"],
      });
      await app.do("ping", { stream: "p-1", actor, idempotencyKey: `timer:${claimed.id}` }, { note: "x" });
      expect((await app.drain()).fired).toBeUndefined(); // still claimed by the dead process
      clock.advance(1_000);
      const { fired = [] } = await app.drain();
      expect(fired.map((t) => [t.id, t.error])).toEqual([["once", undefined]]);
      expect(await app.queryArray({ stream: "p-1" })).toHaveLength(1);
      expect(await status("once")).toBe("fired");
    });
  });
  actionTimersConformance(store, test);
}
