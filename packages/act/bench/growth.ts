/**
 * How costs grow with the log: the same figures at several log sizes, per
 * store. `GROWTH_SIZES` picks the sizes (events in the log; default
 * `2000,10000`, the issue-sized run is `GROWTH_SIZES=10000,100000,1000000`);
 * each size starts from an empty store.
 *
 * At each size the log holds Counter events: one on each of 9,000 streams
 * (at most half the log) and the rest over 1,000
 * streams, and one reaction per event posts it to `ledger-<stream>`. After
 * correlation the reaction table holds a stream per source stream; those of
 * the single-event streams are moved to the end of the log (idle), the
 * 1,000 others keep the whole log as their backlog. Figures:
 *
 * - sequential commits per second and their p99 latency (on 100 new streams,
 *   at least 300 commits and at least a second of them);
 * - a 10-event stream loaded, and loaded as it was at version 5 (time travel);
 * - `app.stats()` and `app.blocked()`;
 * - the reaction handling rate with the whole log as backlog, next to the
 *   rate on an empty log (1,000 events over 100 streams), and the rate of a
 *   new app (a process started with that backlog, which correlated none of
 *   it) handling the next 500 reactions (the median of three such apps in
 *   turn) with the events its drains read per reaction;
 * - one drain cycle with one busy stream while every other reaction stream
 *   is idle (caught up);
 * - bytes per event on disk (or in memory for the in-memory store).
 *
 * Run by each store's `npm run bench`; this file run directly measures the
 * in-memory store. With `GROWTH_OUT=<file>` the run is also written into
 * that JSON file (the performance guide's charts read
 * `docs/guides/performance-growth.json`).
 */
import { act, disposeAndExit, type Store, store } from "@act-root/act";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { Counter, Ledger } from "./states.js";

const actor = { id: "bench", name: "Bench" };
const meta = { correlation: "bench", causation: {} };

let handled = 0;
const ledgerApp = () =>
  act()
    .with(Counter)
    .with(Ledger)
    .on("Incremented")
    .do(async (event, stream, app) => {
      await app.do("post", { stream, actor }, { by: event.data.by }, { reactingTo: event });
      handled++;
    })
    .to((event) => ({ target: `ledger-${event.stream}` }))
    .build();

/** A store under test: how to make an empty one, and how many bytes it holds now. */
export type GrowthTarget = {
  label: string;
  /** An empty store, passed to the store port by the caller. */
  fresh(): Promise<Store>;
  /** Bytes the store's events take now (table and indexes, file, or heap). */
  bytes(store: Store): Promise<number>;
  /**
   * After the set-up's bulk changes, what the database's own background
   * maintenance would have done by the time a real system ran this long
   * (PostgreSQL: autovacuum of the reaction table, whose 9,000 rows the
   * set-up just moved at once).
   */
  settle?(): Promise<void>;
};

export type GrowthRow = {
  events: number;
  streams: number;
  commitsPerSecond: number;
  commitP99Ms: number;
  load10Ms: number;
  timeTravelMs: number;
  statsMs: number;
  blockedMs: number;
  handledPerSecond: number;
  restartedPerSecond: number;
  restartedReadPerHandled: number;
  drainOneBusyMs: number;
  bytesPerEvent: number;
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))];
const round = (n: number, digits = 2) => Number(n.toFixed(digits));

async function timed(runs: number, step: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await step();
    times.push(performance.now() - start);
  }
  return times;
}

/** Source streams with a backlog, and reaction streams kept idle beside them. */
const BUSY = 1_000;
const IDLE = 9_000;

/** Events per bulk append of the fill. */
const FILL_PAGE = 10_000;

/**
 * Fills the log with `events` Incremented events: one on each of up to
 * 9,000 streams whose reactions will be idle, then the rest over 1,000
 * streams in turn, one event each, so every busy stream's events are spread
 * over the whole log (as where many streams commit at once). Appended in
 * bulk through the store's transfer port (a million commits would take the
 * run's time), with ids that follow the store's last one.
 */
async function fill(log: Store, events: number): Promise<{ idle: number }> {
  const idle = Math.min(IDLE, Math.floor(events / 2));
  const perStream = Math.max(1, Math.floor((events - idle) / BUSY));
  const total = idle + perStream * BUSY;
  // One commit first: its id is where the appended ids continue.
  await log.commit({ stream: "i-0", messages: [{ name: "Incremented", data: { by: 1 } }], meta });
  let last = await lastId(log);
  const created = new Date();
  const at = (n: number) =>
    n < idle
      ? { stream: `i-${n}`, version: 0 }
      : { stream: `c-${(n - idle) % BUSY}`, version: Math.floor((n - idle) / BUSY) };
  for (let n = 1; n < total; n += FILL_PAGE) {
    const page = Array.from({ length: Math.min(FILL_PAGE, total - n) }, (_, i) => ({
      id: last + 1 + i,
      ...at(n + i),
      name: "Incremented",
      data: { by: 1 },
      meta,
      created,
    }));
    await log.transfer!.append(page, last);
    last += page.length;
  }
  return { idle };
}

/**
 * Counts the events `log` returns to queries until `stop()`: what the
 * drains read per reaction they ran, a figure the machine's load does not
 * move.
 */
function countReads(log: Store): { stop(): number } {
  let read = 0;
  // The store's own query, with a callback that counts what it is given.
  type Query = (callback: (event: unknown) => unknown, query?: unknown) => Promise<unknown>;
  const counted = log as unknown as { query: Query };
  const query = counted.query;
  counted.query = (callback, q) =>
    query.call(
      log,
      (event) => {
        read++;
        return callback(event);
      },
      q
    );
  return {
    stop() {
      counted.query = query;
      return read;
    },
  };
}

/** The id of the last event in the log. */
async function lastId(log: Store): Promise<number> {
  let last = -1;
  await log.query(
    (e) => {
      last = e.id;
    },
    { backward: true, limit: 1 }
  );
  return last;
}

/** Reactions handled per second on an (almost) empty log: 1,000 events over 100 streams. */
export async function emptyLogRate(target: GrowthTarget): Promise<number> {
  await disposeAndExit("EXIT");
  const log = await target.fresh();
  for (let s = 0; s < 100; s++)
    await log.commit({
      stream: `c-${s}`,
      messages: Array.from({ length: 10 }, () => ({ name: "Incremented", data: { by: 1 } })),
      meta,
    });
  const app = ledgerApp();
  await app.correlate({ after: -1, limit: 10_000 });
  handled = 0;
  const start = performance.now();
  while (handled < 500) await app.drain();
  return round(handled / ((performance.now() - start) / 1000), 0);
}

/** Measures one log size on a fresh store. */
export async function measure(target: GrowthTarget, events: number): Promise<GrowthRow> {
  // The store port keeps its first adapter until disposed (NODE_ENV=test: no exit).
  await disposeAndExit("EXIT");
  const log = await target.fresh();
  const { idle } = await fill(log, events);
  const app = ledgerApp();
  // Every source stream gets its reaction stream; the backlog is the whole log.
  await app.correlate({ after: -1, limit: events + BUSY });
  const bytesPerEvent = (await target.bytes(log)) / events;
  // The reaction streams of the single-event streams catch up: idle from now on.
  const end = await lastId(log);
  await log.reset(
    Array.from({ length: idle }, (_, i) => `ledger-i-${i}`),
    end
  );

  await target.settle?.();

  const probe = "probe";
  for (let i = 0; i < 10; i++) await app.do("increment", { stream: probe, actor }, { by: 1 });
  const load10Ms = median(await timed(30, () => app.load(Counter, probe)));
  const timeTravelMs = median(await timed(30, () => app.load(Counter, probe, { at: { version: 5 } })));
  const statsMs = median(await timed(9, () => app.stats()));
  const blockedMs = median(await timed(10, () => app.blocked()));

  // 300 actions on 100 new streams, as where other streams commit while the
  // backlog waits: part of the scene the reactions below are measured in.
  // Commits themselves are timed last (see below).
  for (let i = 0; i < 300; i++)
    await app.do("increment", { stream: `n-${Math.floor(Math.random() * 100)}`, actor }, { by: 1 });

  // Reactions with the whole log as backlog: the first 500 handled (fewer on
  // a small log, so the four windows below fit in the busy streams' events).
  const window = Math.min(500, Math.floor((events - idle) / 4));
  handled = 0;
  const start = performance.now();
  while (handled < window) await app.drain();
  const handledPerSecond = handled / ((performance.now() - start) / 1000);
  // The same backlog drained by a process that starts now: its drains know
  // no event's routes from correlation and read the log for them. Three
  // such processes in turn, 500 reactions each; the median rate, and the
  // events they read per reaction in all.
  const reads = countReads(log);
  const rates: number[] = [];
  let restartedHandled = 0;
  for (let run = 0; run < 3; run++) {
    const restarted = ledgerApp();
    handled = 0;
    const again = performance.now();
    while (handled < window) await restarted.drain();
    rates.push(handled / ((performance.now() - again) / 1000));
    restartedHandled += handled;
  }
  const restartedPerSecond = median(rates);
  const restartedReadPerHandled = reads.stop() / restartedHandled;

  // Every reaction stream caught up (moved to the end of the log), then one busy.
  const all = (await log.reactions()).map((r) => r.stream);
  await log.reset(all, await lastId(log));
  await target.settle?.();
  const drainTimes: number[] = [];
  for (let i = 0; i < 10; i++) {
    await app.do("increment", { stream: "c-0", actor }, { by: 1 });
    await app.correlate();
    drainTimes.push(...(await timed(1, () => app.drain())));
  }

  // Sequential commits, timed last so that the events they add change
  // nothing measured above: at least 300 and at least a second of them (in
  // memory 300 take a few milliseconds, less than one garbage collection of
  // a large log's heap, and the figure was whether one fell inside them).
  const commitTimes: number[] = [];
  const commitsFrom = performance.now();
  while (commitTimes.length < 300 || performance.now() - commitsFrom < 1_000)
    commitTimes.push(
      // 100 new streams: what a commit costs, not how long the busy streams grew.
      ...(await timed(1, () =>
        app.do("increment", { stream: `t-${Math.floor(Math.random() * 100)}`, actor }, { by: 1 })
      ))
    );
  const commitsPerSecond = commitTimes.length / (commitTimes.reduce((a, b) => a + b, 0) / 1000);
  return {
    events,
    streams: all.length,
    commitsPerSecond: round(commitsPerSecond, 0),
    commitP99Ms: round(p99(commitTimes)),
    load10Ms: round(load10Ms),
    timeTravelMs: round(timeTravelMs),
    statsMs: round(statsMs),
    blockedMs: round(blockedMs),
    handledPerSecond: round(handledPerSecond, 0),
    restartedPerSecond: round(restartedPerSecond, 0),
    restartedReadPerHandled: round(restartedReadPerHandled, 1),
    drainOneBusyMs: round(median(drainTimes)),
    bytesPerEvent: round(bytesPerEvent, 0),
  };
}

/** The sizes asked for in `GROWTH_SIZES`, or the small default. */
export function sizes(): number[] {
  const asked = (process.env.GROWTH_SIZES ?? "2000,10000").split(",").map(Number);
  if (asked.some((n) => !Number.isInteger(n) || n < 100))
    throw new Error(
      `GROWTH_SIZES must list whole numbers of events, at least 100 each: got "${process.env.GROWTH_SIZES}"`
    );
  return asked;
}

/**
 * Writes `run` into the JSON file at `path` (an array of runs, one per
 * store), replacing that store's earlier run: the performance guide draws
 * its charts from this file when the site is built.
 */
function keep(path: string, run: { growth: string }) {
  const runs: Array<{ growth: string }> = existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : [];
  const at = runs.findIndex((r) => r.growth === run.growth);
  if (at >= 0) runs[at] = run;
  else runs.push(run);
  writeFileSync(path, `${JSON.stringify(runs, null, 2)}\n`);
}

/** Runs every size for one store and prints the table, then the rows as JSON. */
export async function growth(target: GrowthTarget): Promise<GrowthRow[]> {
  const rows: GrowthRow[] = [];
  // A small untimed round first, so the first size is not measured on a cold JIT.
  await measure(target, 2_000);
  const empty = await emptyLogRate(target);
  for (const events of sizes()) {
    process.stderr.write(`${target.label}: ${events.toLocaleString("en-US")} events…\n`);
    rows.push(await measure(target, events));
  }
  const columns: Array<[keyof GrowthRow, string]> = [
    ["events", "events in the log"],
    ["streams", "reaction streams"],
    ["commitsPerSecond", "commits/s"],
    ["commitP99Ms", "commit p99 ms"],
    ["load10Ms", "load 10 events ms"],
    ["timeTravelMs", "time travel ms"],
    ["statsMs", "stats() ms"],
    ["blockedMs", "blocked() ms"],
    ["handledPerSecond", "handled/s, backlog = log"],
    ["restartedPerSecond", "handled/s, same backlog, new process"],
    ["restartedReadPerHandled", "events read per reaction, new process"],
    ["drainOneBusyMs", "drain, 1 busy + idle ms"],
    ["bytesPerEvent", "bytes/event"],
  ];
  console.log(`\nGrowth — ${target.label}; reactions handled/s on an empty log: ${empty.toLocaleString("en-US")}`);
  console.log(columns.map(([, label]) => label).join(" | "));
  for (const row of rows) console.log(columns.map(([key]) => row[key].toLocaleString("en-US")).join(" | "));
  const run = { growth: target.label, emptyLogHandledPerSecond: empty, rows };
  console.log(JSON.stringify(run));
  if (process.env.GROWTH_OUT) keep(process.env.GROWTH_OUT, run);
  return rows;
}

/** The in-memory store, its size taken from the heap after a collection. */
async function memory() {
  const { InMemoryStore } = await import("@act-root/act");
  const { setFlagsFromString } = await import("node:v8");
  const { runInNewContext } = await import("node:vm");
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  let baseline = 0;
  await growth({
    label: "InMemoryStore",
    async fresh() {
      gc();
      baseline = process.memoryUsage().heapUsed;
      return store(new InMemoryStore());
    },
    async bytes() {
      gc();
      return process.memoryUsage().heapUsed - baseline;
    },
  });
}

if (import.meta.url === `file://${process.argv[1]}`) void memory();
