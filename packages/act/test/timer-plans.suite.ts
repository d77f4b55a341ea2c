/**
 * The timers' plan tests share their data: what a SQL store is asked (when
 * the next timer is due, how many are pending and overdue) over 5,000
 * timers, with the answers every store must give. Each store's test then
 * reads its own query plan for the same statement, since the plans are
 * where the stores differ (`packages/act-pg/test/timer-plans.test.ts`,
 * `packages/act-sqlite/test/store.test.ts`).
 */
import type { Store } from "@act-root/act";
import { expect } from "vitest";

type Timers = NonNullable<Store["timers"]>;

const actor = { id: "u", name: "U" };

/** A fixed instant `millis` after a base, so due times compare exactly. */
export const at = (millis: number) => new Date(1_000_000 + millis);

/** Schedules `count` timers of action "a", one due each millisecond from `at(0)`. */
export async function scheduleMany(timers: Timers, count = 5_000): Promise<void> {
  await timers.schedule(
    Array.from({ length: count }, (_, i) => ({
      id: `t-${i}`,
      action: "a",
      stream: "s",
      actor,
      payload: {},
      due: at(i),
    }))
  );
}

/**
 * When the next timer is due, through claims: 5,000 timers of "a", one of
 * "b" due first, two of "a" claimed past their due time, then every one of
 * "a" claimed — the answer moves to the earliest claim's end.
 */
export async function nextDueScenario(timers: Timers): Promise<void> {
  await scheduleMany(timers);
  await timers.schedule([{ id: "other", action: "b", stream: "s", actor, payload: {}, due: at(-10) }]);
  await timers.claim({ now: at(1), by: "p", millis: 10_000, limit: 2, actions: ["a"] });
  expect(await timers.next(["a"])).toEqual(at(2));
  expect(await timers.next(["b"])).toEqual(at(-10));
  expect(await timers.next(["c"])).toBeUndefined();
  await timers.claim({ now: at(5_000), by: "p", millis: 10_000, limit: 5_000, actions: ["a"] });
  expect(await timers.next(["a"])).toEqual(at(10_001));
}

/**
 * The counts of a table that has fired timers for a while: of 5,000,
 * 4,900 cancelled and 10 claimed — 100 pending, 50 of them overdue at
 * `at(49)`, none before `at(0)`.
 */
export async function countScenario(timers: Timers): Promise<void> {
  await scheduleMany(timers);
  await timers.cancel(
    Array.from({ length: 4_900 }, (_, i) => `t-${i + 100}`),
    at(0)
  );
  await timers.claim({ now: at(20), by: "p", millis: 10_000, limit: 10, actions: ["a"] });
  expect(await timers.count(at(49))).toEqual({ pending: 100, overdue: 50 });
  expect(await timers.count(at(-1))).toEqual({ pending: 100, overdue: 0 });
}
