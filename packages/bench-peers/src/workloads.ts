/**
 * The workloads every library runs, and the small interface each library's
 * adapter implements so that one driver times them all the same way.
 *
 * The workloads are those of Act's own benchmarks (`packages/act/bench` and
 * `packages/act-pg/bench`): a counter whose `increment` action emits
 * `Incremented`, and a ledger that a reaction posts each increment to. The
 * driver owns the loops and the clock; an adapter only says how its library
 * does one action, one load, one bulk append and one run of the reactions.
 */
import { performance } from "node:perf_hooks";

/** Where a run stores its events. */
export type Target = { kind: "memory" } | { kind: "postgres"; url: string };

/** Why a library cannot run a workload: printed as "n/a" with this reason. */
export type Unsupported = { unsupported: string };

/** The counter app of one library: a state with `increment`, optionally snapshotted, optionally with the ledger reaction. */
export interface CounterApp {
  /** One `increment` action (by 1) on `stream`, through the library's command path. */
  increment(stream: string): Promise<void>;
  /** Rebuilds the counter of `stream` and returns its count. */
  load(stream: string): Promise<number>;
}

/** A library on one store, ready to run the workloads. */
export interface Subject {
  /** Library name and version, as printed in the table. */
  readonly label: string;
  /** Empties the store (between workloads). */
  reset(): Promise<void>;
  /** A counter app; `snapEvery` asks for a snapshot every that many events. */
  counter(options: { snapEvery?: number }): Promise<CounterApp | Unsupported>;
  /**
   * Appends `count` `Incremented` events to `stream` straight through the
   * store (no action), in batches: the setup of the load workloads.
   */
  append(stream: string, count: number): Promise<void>;
  /**
   * The reaction workload: `increment` on the given streams (setup, not
   * timed), then — timed — runs the reaction "post each increment to
   * `ledger-<stream>`" with the library's default options until every
   * source event was handled. Returns how many ledger postings were made
   * and how many passes (drain cycles, or consumer batches) it took.
   */
  reactions(sources: string[]): Promise<{ posted: number; cycles: number; seconds: number } | Unsupported>;
  /** Releases connections and servers. */
  close(): Promise<void>;
}

/** One measured figure, or why there is none. */
export type Figure = { value: number; unit: string } | { na: string };

/** Figures by workload id. */
export type Figures = Record<string, Figure>;

/** The workloads, in the order of the table: id, label, unit and whether bigger is better. */
export const WORKLOADS = {
  memory: [
    { id: "one", label: "actions/s, 1 stream × 10,000", unit: "/s", higher: true },
    { id: "many", label: "actions/s, 1,000 streams × 10", unit: "/s", higher: true },
    { id: "load", label: "loads/s, 5,000-event stream, no snapshots", unit: "/s", higher: true },
    { id: "loadSnap", label: "loads/s, 5,000-event stream, snapshot every 100", unit: "/s", higher: true },
    { id: "reactions", label: "reactions/s, 1,000 events over 100 streams → ledger-<stream>", unit: "/s", higher: true },
  ],
  postgres: [
    { id: "sequential", label: "actions/s, sequential, 200 streams", unit: "/s", higher: true },
    { id: "concurrent", label: "actions/s, 8 concurrent writers", unit: "/s", higher: true },
    { id: "load", label: "load 5,000-event stream, ms (median)", unit: "ms", higher: false },
    { id: "loadSnap", label: "load it with a snapshot every 100, ms (median)", unit: "ms", higher: false },
    { id: "reactions", label: "reactions/s, 1,000 events over 100 streams → ledger-<stream>", unit: "/s", higher: true },
  ],
} as const;

const seconds = async (run: () => Promise<void>) => {
  const start = performance.now();
  await run();
  return (performance.now() - start) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const na = (x: object): x is Unsupported => "unsupported" in x;

/**
 * Runs `cycle` (one drain, one consumer pass…) until `posted()` reaches
 * `expected`, timing it. Stops with an error after 100 cycles in a row that
 * posted nothing, so a library that loses work cannot loop forever.
 */
export async function untilPosted(expected: number, posted: () => number, cycle: () => Promise<void>) {
  let cycles = 0;
  let idle = 0;
  const start = performance.now();
  while (posted() < expected) {
    const before = posted();
    cycles++;
    await cycle();
    idle = posted() === before ? idle + 1 : 0;
    if (idle >= 100) throw new Error(`reactions stalled at ${posted()} of ${expected}`);
  }
  return { posted: posted(), cycles, seconds: (performance.now() - start) / 1000 };
}

/** Checks a load result, so a library that skips work cannot look fast. */
function expect(count: number, expected: number, what: string) {
  if (count !== expected) throw new Error(`${what}: count ${count}, expected ${expected}`);
}

/** Times the loads of `stream` (expected count `expected`): `runs` of them, after 3 untimed. */
async function loads(app: CounterApp, stream: string, expected: number, runs: number) {
  const times: number[] = [];
  for (let i = 0; i < runs + 3; i++) {
    const start = performance.now();
    const count = await app.load(stream);
    if (i >= 3) times.push(performance.now() - start);
    expect(count, expected, `load of ${stream}`);
  }
  return times;
}

/** Builds `stream` with `count` increments through the app (so the library writes its own snapshots). */
async function build(app: CounterApp, stream: string, count: number) {
  for (let i = 0; i < count; i++) await app.increment(stream);
}

/** Warms the JIT with actions on throw-away streams, then empties the store. */
async function warm(subject: Subject, actions: number) {
  const app = await subject.counter({});
  if (na(app)) return;
  for (let i = 0; i < actions; i++) await app.increment(`warm-${i % 100}`);
  await subject.reset();
}

/** The reaction workload on 1,000 source events over 100 streams. */
async function reactionFigure(subject: Subject): Promise<Figure> {
  await subject.reset();
  const sources = Array.from({ length: 1_000 }, (_, i) => `acc-${i % 100}`);
  const result = await subject.reactions(sources);
  if (na(result)) return { na: result.unsupported };
  if (result.posted !== sources.length) throw new Error(`reactions: ${result.posted} postings, expected ${sources.length}`);
  return { value: result.posted / result.seconds, unit: "/s" };
}

/** Runs the in-memory workloads. */
export async function runMemory(subject: Subject): Promise<Figures> {
  const figures: Figures = {};
  await warm(subject, 5_000);

  const one = await subject.counter({});
  if (na(one)) throw new Error(`${subject.label}: no counter app`);
  const t1 = await seconds(() => build(one, "one", 10_000));
  expect(await one.load("one"), 10_000, "one stream");
  figures.one = { value: 10_000 / t1, unit: "/s" };

  await subject.reset();
  const many = await subject.counter({});
  if (na(many)) throw new Error(`${subject.label}: no counter app`);
  const t2 = await seconds(async () => {
    for (let s = 0; s < 1_000; s++) for (let i = 0; i < 10; i++) await many.increment(`s-${s}`);
  });
  figures.many = { value: 10_000 / t2, unit: "/s" };

  await subject.reset();
  const plain = await subject.counter({});
  if (na(plain)) throw new Error(`${subject.label}: no counter app`);
  await subject.append("long", 5_000);
  const t3 = (await loads(plain, "long", 5_000, 200)).reduce((a, b) => a + b, 0) / 1000;
  figures.load = { value: 200 / t3, unit: "/s" };

  await subject.reset();
  const snapped = await subject.counter({ snapEvery: 100 });
  if (na(snapped)) figures.loadSnap = { na: snapped.unsupported };
  else {
    await build(snapped, "long-snap", 5_000);
    const t4 = (await loads(snapped, "long-snap", 5_000, 200)).reduce((a, b) => a + b, 0) / 1000;
    figures.loadSnap = { value: 200 / t4, unit: "/s" };
  }

  figures.reactions = await reactionFigure(subject);
  return figures;
}

/** Runs the PostgreSQL workloads. */
export async function runPostgres(subject: Subject): Promise<Figures> {
  const figures: Figures = {};
  await subject.reset();
  await warm(subject, 400);

  const app = await subject.counter({});
  if (na(app)) throw new Error(`${subject.label}: no counter app`);
  // Every one of the 200 streams exists before the clock starts.
  for (let s = 0; s < 200; s++) await app.increment(`seq-${s}`);
  const n = 2_000;
  const t1 = await seconds(async () => {
    for (let i = 0; i < n; i++) await app.increment(`seq-${i % 200}`);
  });
  figures.sequential = { value: n / t1, unit: "/s" };

  const writers = 8;
  const perWriter = 250;
  const t2 = await seconds(async () => {
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        for (let i = 0; i < perWriter; i++) await app.increment(`par-${w}-${i % 25}`);
      })
    );
  });
  figures.concurrent = { value: (writers * perWriter) / t2, unit: "/s" };

  await subject.append("long", 5_000);
  figures.load = { value: median(await loads(app, "long", 5_000, 20)), unit: "ms" };

  const snapped = await subject.counter({ snapEvery: 100 });
  if (na(snapped)) figures.loadSnap = { na: snapped.unsupported };
  else {
    await build(snapped, "long-snap", 5_000);
    figures.loadSnap = { value: median(await loads(snapped, "long-snap", 5_000, 50)), unit: "ms" };
  }

  figures.reactions = await reactionFigure(subject);
  return figures;
}
