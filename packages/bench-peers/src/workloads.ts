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
export type Target = { kind: "memory" } | { kind: "postgres"; url: string } | { kind: "sqlite"; file: string };

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
  /**
   * Writes `stream` as `count` increments with a snapshot every `every`
   * events, for a library whose own snapshot writing cannot build it with
   * sequential actions (setup of the snapshot load workload). Without it,
   * the stream is built with `count` actions of the snapshotted counter.
   */
  snapped?(stream: string, count: number, every: number): Promise<void>;
  /**
   * Why this library's reaction figure is a first run, without the warm-up
   * runs the others get: it cannot run the workload again on a store
   * emptied under the previous run.
   */
  readonly coldReactions?: string;
  /** Workloads (by id) this library cannot run on this store, with why: "n/a" without running them. */
  readonly cannot?: Readonly<Record<string, string>>;
  /** Releases connections and servers. */
  close(): Promise<void>;
}

/** A workload's figure (`note`: how it was taken, when not as for the others), or why there is none. */
export type Figure = { value: number; unit: string; note?: string } | { na: string };

/** Figures by workload id. */
export type Figures = Record<string, Figure>;

/** The workloads on a database (PostgreSQL or SQLite): the same on both, so the tables compare. */
const DATABASE = [
  { id: "sequential", label: "actions/s, sequential, 200 streams", unit: "/s", higher: true },
  { id: "concurrent", label: "actions/s, 8 concurrent writers", unit: "/s", higher: true },
  { id: "load", label: "load 5,000-event stream, ms (median)", unit: "ms", higher: false },
  { id: "loadSnap", label: "load it with a snapshot every 100, ms (median)", unit: "ms", higher: false },
  {
    id: "reactions",
    label: "reactions/s, 1,000 events over 100 streams → ledger-<stream>",
    unit: "/s",
    higher: true,
  },
] as const;

/** The workloads, in the order of the table: id, label, unit and whether bigger is better. */
export const WORKLOADS = {
  memory: [
    { id: "one", label: "actions/s, 1 stream × 10,000", unit: "/s", higher: true },
    { id: "many", label: "actions/s, 1,000 streams × 10", unit: "/s", higher: true },
    { id: "load", label: "loads/s, 5,000-event stream, no snapshots", unit: "/s", higher: true },
    { id: "loadSnap", label: "loads/s, 5,000-event stream, snapshot every 100", unit: "/s", higher: true },
    {
      id: "reactions",
      label: "reactions/s, 1,000 events over 100 streams → ledger-<stream>",
      unit: "/s",
      higher: true,
    },
  ],
  postgres: DATABASE,
  sqlite: DATABASE,
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

/** Builds the snapshotted stream: through the app, or as the subject writes it when it cannot. */
async function buildSnapped(subject: Subject, app: CounterApp, stream: string) {
  if (subject.snapped) await subject.snapped(stream, 5_000, 100);
  else await build(app, stream, 5_000);
}

/** Warms the JIT with actions on throw-away streams, then empties the store. */
async function warm(subject: Subject, actions: number) {
  const app = await subject.counter({});
  if (na(app)) return;
  for (let i = 0; i < actions; i++) await app.increment(`warm-${i % 100}`);
  await subject.reset();
}

/**
 * Untimed runs of the in-memory reaction workload before the timed ones, at
 * most: the warm-up also ends after {@link REACTION_WARMUP_MILLIS}. Measured
 * run by run in fresh processes (30 November), Emmett's rate levels off after
 * about 4 runs and Act's after about 20 (its drain has more code for the JIT
 * to compile); with 3, as before, Act's figure was mostly its warm-up.
 */
const REACTION_WARMUPS = 20;
/** The warm-up's time limit, so a library that takes seconds per run is not warmed for minutes. */
const REACTION_WARMUP_MILLIS = 10_000;

/**
 * Timed runs of the in-memory reaction workload, the store emptied after
 * each. One run of 1,000 reactions takes tens of milliseconds in memory, so
 * a garbage collection or a JIT recompilation landing in it moved the
 * figure by several times from run to run; the figure is the rate over all
 * of them (postings over the summed time), the same for every library.
 */
const REACTION_TIMED_RUNS = 10;

/**
 * The reaction workload on 1,000 source events over 100 streams. With
 * `warmups`, the same workload first runs that many times untimed (or until
 * {@link REACTION_WARMUP_MILLIS} pass), the store emptied after each, then
 * `timed` times timed: the figure is then the rate of a running reaction
 * processor, as the action figures are taken after a warm-up (`warm`), not a
 * fresh process's first pass through code the JIT has not compiled yet (for
 * Act in memory, about a seventh of the steady rate). A library that cannot
 * run the workload again on an emptied store says why in `coldReactions`, and
 * its figure is one first run.
 */
async function reactionFigure(subject: Subject, warmups = 0, timed = 1): Promise<Figure> {
  const again = !subject.coldReactions;
  const warmUntil = performance.now() + REACTION_WARMUP_MILLIS;
  for (let run = 0; run < (again ? warmups : 0) && performance.now() < warmUntil; run++) {
    const warmup = await subject.reactions(Array.from({ length: 1_000 }, (_, i) => `warm-${i % 100}`));
    if (na(warmup)) return { na: warmup.unsupported };
    await subject.reset();
  }
  const sources = Array.from({ length: 1_000 }, (_, i) => `acc-${i % 100}`);
  let posted = 0;
  let spent = 0;
  for (let run = 0; run < (again ? timed : 1); run++) {
    if (run > 0) await subject.reset();
    const result = await subject.reactions(sources);
    if (na(result)) return { na: result.unsupported };
    if (result.posted !== sources.length)
      throw new Error(`reactions: ${result.posted} postings, expected ${sources.length}`);
    posted += result.posted;
    spent += result.seconds;
  }
  const cold = warmups > 0 && subject.coldReactions;
  return {
    value: posted / spent,
    unit: "/s",
    ...(cold && { note: `one first run, without the warm-up runs: ${cold}` }),
  };
}

/** A counter app, or an error: every subject has the plain counter. */
async function counterOf(subject: Subject, options: { snapEvery?: number } = {}) {
  const app = await subject.counter(options);
  if (na(app) && !options.snapEvery) throw new Error(`${subject.label}: no counter app`);
  return app;
}

/**
 * Runs each workload on an empty store and records its figure; a workload
 * that fails is recorded as "n/a" with the error's first line, and the
 * others still run.
 */
async function each(subject: Subject, workloads: Record<string, () => Promise<Figure>>): Promise<Figures> {
  const figures: Figures = {};
  for (const [id, run] of Object.entries(workloads)) {
    const cannot = subject.cannot?.[id];
    if (cannot) {
      figures[id] = { na: cannot };
      continue;
    }
    try {
      await subject.reset();
      figures[id] = await run();
    } catch (error) {
      figures[id] = { na: `failed: ${String((error as Error).message ?? error).split("\n")[0]}` };
    }
  }
  return figures;
}

/** The snapshot load workload: build the stream, then time `runs` loads of it. */
async function snapshotLoads(subject: Subject, runs: number): Promise<{ na: string } | { times: number[] }> {
  const app = await counterOf(subject, { snapEvery: 100 });
  if (na(app)) return { na: app.unsupported };
  await buildSnapped(subject, app, "long-snap");
  return { times: await loads(app, "long-snap", 5_000, runs) };
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** Runs the in-memory workloads. */
export async function runMemory(subject: Subject): Promise<Figures> {
  await warm(subject, 5_000);
  return each(subject, {
    one: async () => {
      const app = (await counterOf(subject)) as CounterApp;
      const t = await seconds(() => build(app, "one", 10_000));
      expect(await app.load("one"), 10_000, "one stream");
      return { value: 10_000 / t, unit: "/s" };
    },
    many: async () => {
      const app = (await counterOf(subject)) as CounterApp;
      const t = await seconds(async () => {
        for (let s = 0; s < 1_000; s++) for (let i = 0; i < 10; i++) await app.increment(`s-${s}`);
      });
      return { value: 10_000 / t, unit: "/s" };
    },
    load: async () => {
      const app = (await counterOf(subject)) as CounterApp;
      await subject.append("long", 5_000);
      return { value: 200 / (sum(await loads(app, "long", 5_000, 200)) / 1000), unit: "/s" };
    },
    loadSnap: async () => {
      const r = await snapshotLoads(subject, 200);
      return "times" in r ? { value: 200 / (sum(r.times) / 1000), unit: "/s" } : r;
    },
    reactions: () => reactionFigure(subject, REACTION_WARMUPS, REACTION_TIMED_RUNS),
  });
}

/** Runs the database workloads (PostgreSQL or SQLite). */
export async function runDatabase(subject: Subject): Promise<Figures> {
  await warm(subject, 400);
  return each(subject, {
    sequential: async () => {
      const app = (await counterOf(subject)) as CounterApp;
      // Every one of the 200 streams exists before the clock starts.
      for (let s = 0; s < 200; s++) await app.increment(`seq-${s}`);
      const n = 2_000;
      const t = await seconds(async () => {
        for (let i = 0; i < n; i++) await app.increment(`seq-${i % 200}`);
      });
      return { value: n / t, unit: "/s" };
    },
    concurrent: async () => {
      const app = (await counterOf(subject)) as CounterApp;
      const writers = 8;
      const perWriter = 250;
      const t = await seconds(async () => {
        await Promise.all(
          Array.from({ length: writers }, async (_, w) => {
            for (let i = 0; i < perWriter; i++) await app.increment(`par-${w}-${i % 25}`);
          })
        );
      });
      return { value: (writers * perWriter) / t, unit: "/s" };
    },
    load: async () => {
      const app = (await counterOf(subject)) as CounterApp;
      await subject.append("long", 5_000);
      return { value: median(await loads(app, "long", 5_000, 20)), unit: "ms" };
    },
    loadSnap: async () => {
      const r = await snapshotLoads(subject, 50);
      return "times" in r ? { value: median(r.times), unit: "ms" } : r;
    },
    reactions: () => reactionFigure(subject),
  });
}
