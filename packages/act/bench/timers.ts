/**
 * Timers at size, per store: `TIMER_BENCH_TIMERS` pending timers (default
 * 100,000), of which `TIMER_BENCH_DUE` (default 5,000) are due and the rest
 * due a day later. Figures:
 *
 * - **schedule**: every timer kept through `TimerStore.schedule` in batches
 *   of 1,000, and 2,000 more one at a time through `app.schedule` (one
 *   store call per timer, as a reaction schedules);
 * - **due-timer queries** with every timer pending: `next` (when the next
 *   one is due — a running consumer asks after each idle drain), `count`
 *   (`app.stats()`, the pending and overdue gauges) and `claim` of 100 due
 *   timers (what each drain asks first) — medians of several calls;
 * - **memory**: the process's heap and RSS with every timer pending, against
 *   before they were scheduled (after a garbage collection each), and what a
 *   drain that finds none due (an app whose clock is an hour behind) takes
 *   and keeps on the heap — a store must not load the pending timers to find
 *   the due ones;
 * - **fire**: `app.drain()` until every due timer fired — each one a
 *   committed action under its idempotency key, then its outcome recorded.
 *
 * Run by each store's `npm run bench`; this file run directly measures the
 * in-memory store.
 */
import { act, disposeAndExit, type Store, store } from "@act-root/act";
import { performance } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Counter } from "./states.js";

/** What a store's runner hands the bench. */
export type TimersTarget = {
  /** Names the store in the output. */
  label: string;
  /** An empty, seeded store that keeps timers, put on the store port. */
  fresh(): Promise<Store>;
};

const actor = { id: "bench", name: "Bench" };
const BATCH = 1_000;
const SINGLES = 2_000;

/** The median of `runs` timings of `work`, in ms. */
async function median(runs: number, work: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await work();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
}

// A garbage collection on demand, so the memory figures count what is kept, not what waits to be collected.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Heap used and RSS after a full garbage collection, in bytes. */
function memory(): { heap: number; rss: number } {
  gc();
  const { heapUsed, rss } = process.memoryUsage();
  return { heap: heapUsed, rss };
}

const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;

const rate = (n: number, ms: number) => `${Math.round((n / ms) * 1000).toLocaleString()}/s`;

/** Schedules the timers, times the due-timer queries, fires the due ones, and prints the figures. */
export async function timersBench(target: TimersTarget): Promise<void> {
  const total = Number(process.env.TIMER_BENCH_TIMERS ?? 100_000);
  const due = Math.min(total, Number(process.env.TIMER_BENCH_DUE ?? 5_000));
  const log = await target.fresh();
  const timers = log.timers;
  if (!timers) throw new Error(`${target.label} keeps no timers`);
  const app = act().with(Counter).build({ store: log });
  const now = Date.now();
  const later = now + 86_400_000;
  const empty = memory();
  console.log(`\n${target.label}: ${total.toLocaleString()} pending timers, ${due.toLocaleString()} of them due`);

  const scheduleStart = performance.now();
  for (let from = 0; from < total; from += BATCH)
    await timers.schedule(
      Array.from({ length: Math.min(BATCH, total - from) }, (_, i) => {
        const n = from + i;
        return {
          id: `t-${n}`,
          action: "increment",
          stream: `counter-${n % 1_000}`,
          actor,
          payload: { by: 1 },
          // The due ones spread over the last minute; the rest a day on.
          due: new Date(n < due ? now - 60_000 + Math.floor((n * 60_000) / due) : later + n),
        };
      })
    );
  const scheduleMs = performance.now() - scheduleStart;
  const singlesStart = performance.now();
  for (let n = 0; n < SINGLES; n++)
    await app.schedule({
      id: `single-${n}`,
      action: "increment",
      target: { stream: `counter-${n % 1_000}`, actor },
      payload: { by: 1 },
      at: new Date(later + total + n),
    });
  const singlesMs = performance.now() - singlesStart;
  console.log(
    `  schedule: ${total.toLocaleString()} in batches of ${BATCH.toLocaleString()} in ${(scheduleMs / 1000).toFixed(2)} s (${rate(total, scheduleMs)}); ${SINGLES.toLocaleString()} one at a time through app.schedule in ${(singlesMs / 1000).toFixed(2)} s (${rate(SINGLES, singlesMs)})`
  );

  const held = memory();
  // An app whose clock is an hour behind: none of the timers is due to it.
  const early = act()
    .with(Counter)
    .build({ store: log, clock: { now: () => new Date(now - 3_600_000) } });
  await early.drain();
  const beforeIdle = memory();
  let idleFired = 0;
  const idleMs = await median(5, async () => {
    idleFired += (await early.drain()).fired?.length ?? 0;
  });
  if (idleFired) throw new Error(`drains with no timer due fired ${idleFired}`);
  const afterIdle = memory();
  console.log(
    `  memory with ${(total + SINGLES).toLocaleString()} pending: heap ${mb(held.heap)} (+${mb(held.heap - empty.heap)}, ${Math.round((held.heap - empty.heap) / (total + SINGLES))} bytes a timer), RSS ${mb(held.rss)} (+${mb(held.rss - empty.rss)}); a drain with none due ${idleMs.toFixed(1)} ms (median), heap kept after 5 of them ${afterIdle.heap >= beforeIdle.heap ? "+" : ""}${mb(afterIdle.heap - beforeIdle.heap)}`
  );

  const nextMs = await median(21, () => timers.next(["increment"]));
  const countMs = await median(5, () => timers.count(new Date()));
  // A claim that ends a millisecond later: the drains below take the same timers again.
  const claimMs = await median(5, async () => {
    await timers.claim({ now: new Date(), by: "bench-probe", millis: 1, limit: 100, actions: ["increment"] });
    await new Promise((r) => setTimeout(r, 2));
  });
  const counts = await timers.count(new Date());
  if (counts.pending !== total + SINGLES || counts.overdue !== due)
    throw new Error(`counted ${JSON.stringify(counts)}, expected ${total + SINGLES} pending and ${due} overdue`);
  console.log(
    `  with ${(total + SINGLES).toLocaleString()} pending: next ${nextMs.toFixed(2)} ms, count ${countMs.toFixed(2)} ms, claim of 100 due ${(claimMs - 2).toFixed(2)} ms (medians)`
  );

  const fireStart = performance.now();
  let fired = 0;
  let firstDrainMs = 0;
  while (fired < due) {
    const drainStart = performance.now();
    const { fired: now = [] } = await app.drain();
    if (!firstDrainMs) firstDrainMs = performance.now() - drainStart;
    if (!now.length) throw new Error(`the drains stopped firing after ${fired} of ${due} due timers`);
    fired += now.length;
  }
  const fireMs = performance.now() - fireStart;
  console.log(
    `  fire: ${fired.toLocaleString()} due timers in ${(fireMs / 1000).toFixed(2)} s (${rate(fired, fireMs)}), each a committed action; the first drain (claim, fire and settle 100) ${firstDrainMs.toFixed(1)} ms`
  );
}

if (import.meta.url === `file://${process.argv[1]}`)
  timersBench({ label: "InMemoryStore", fresh: async () => store() })
    .then(() => disposeAndExit("EXIT"))
    .catch((error) => {
      console.error(error);
      process.exit(1);
    });
