/**
 * Model-based test of closing a stream while actions race it, for every
 * store: random programs run batches of actions and closes from three apps
 * (each with its own snapshot cache) at once, on a store that delays each
 * commit and read by a few turns of the event loop picked by the program,
 * so every interleaving of loads and commits comes up. After each batch:
 *
 * - the stream has at most one close event, the last one, right after a
 *   summary snapshot of the state folded from every event before it;
 * - every action that succeeded has its event before the close, and every
 *   event is one an action reported; a refused action got a
 *   `StreamClosedError` (and the stream is closed) or a `ConcurrencyError`;
 * - at most one close succeeded, and only on a stream not closed before;
 *   a refused close got a `StreamClosedError` or a `ConcurrencyError`;
 * - once closed, an action from any app is refused.
 *
 * The seed is printed; reproduce a failure with `CLOSE_SEED=<seed>` (and
 * `CLOSE_PATH=<path>`), and run more cases with `CLOSE_RUNS=<n>`.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  act,
  CLOSE_EVENT,
  ConcurrencyError,
  type Committed,
  type Schemas,
  SNAP_EVENT,
  type Store,
  StreamClosedError,
  state,
} from "../src/index.js";
import { announce, replayPath, seedLabel, seedRuns } from "./seeds.js";

process.env.LOG_LEVEL ??= "fatal";

/** The runs of the property: the fixed seed (or `CLOSE_SEED`), and in CI also a fresh one, printed. */
const runs = seedRuns("CLOSE", { seed: 20_261_129, numRuns: 40 }, 20);

const actor = { id: "u-1", name: "Ada" };
const Tab = state("Tab", z.object({ total: z.number() }))
  .init(() => ({ total: 0 }))
  .emits({ Charged: z.object({ amount: z.number() }) })
  .patch({ Charged: ({ data }, s) => ({ total: s.total + data.amount }) })
  .on("charge", z.object({ amount: z.number() }))
  .emit(({ amount }) => ["Charged", { amount }])
  .build();

type Op = { kind: "charge"; app: number; amount: number } | { kind: "close"; app: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("charge" as const),
      app: fc.integer({ min: 0, max: 2 }),
      amount: fc.integer({ min: 1, max: 9 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("close" as const), app: fc.integer({ min: 0, max: 2 }) }) }
);

/** Batches of operations run at once, and the delays (event-loop turns) the store takes, used in turn. */
type Program = { batches: Op[][]; delays: number[] };

export const programArb: fc.Arbitrary<Program> = fc.record({
  batches: fc.array(fc.array(opArb, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }),
  delays: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 16 }),
});

/** The store, with each commit and read started after a few turns of the event loop, as the program says. */
function delaying(inner: Store, delays: number[]): Store {
  let next = 0;
  const pause = async () => {
    const turns = delays[next++ % delays.length];
    for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve));
  };
  return new Proxy(inner, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (key !== "commit" && key !== "query") return typeof value === "function" ? value.bind(target) : value;
      return async (...args: unknown[]) => {
        await pause();
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** Runs one program on the store `fresh` returns, and checks it against the model. */
export async function run(program: Program, fresh: () => Promise<Store>) {
  const log = delaying(await fresh(), program.delays);
  const apps = [0, 1, 2].map(() => act().with(Tab).build({ store: log }));
  const stream = "tab-1";
  const charged = new Set<number>(); // ids of the events of actions that succeeded
  let closedAt: number | undefined; // the close event's version
  for (const batch of program.batches) {
    const wasClosed = closedAt !== undefined;
    const outcomes = await Promise.allSettled(
      batch.map((op) =>
        op.kind === "charge"
          ? apps[op.app].do("charge", { stream, actor }, { amount: op.amount })
          : apps[op.app].close(Tab, stream, { by: actor })
      )
    );
    const events: Committed<Schemas, string>[] = [];
    await log.query((e) => events.push(e as Committed<Schemas, string>), { stream, with_snaps: true });
    const closes = events.filter((e) => e.name === CLOSE_EVENT);
    expect(closes.length).toBeLessThanOrEqual(1);
    const close = closes[0];
    if (close) {
      expect(events.at(-1)).toBe(close);
      const summary = events.at(-2)!;
      expect(summary.name).toBe(SNAP_EVENT);
      const total = events
        .filter((e) => e.name === "Charged")
        .reduce((sum, e) => sum + (e.data as { amount: number }).amount, 0);
      expect((summary.data as { state: unknown }).state).toEqual({ total });
    }
    let closesWon = 0;
    batch.forEach((op, i) => {
      const outcome = outcomes[i];
      if (outcome.status === "rejected") {
        const error = outcome.reason;
        const closedError = error instanceof StreamClosedError;
        expect(closedError || error instanceof ConcurrencyError, String(error)).toBe(true);
        if (closedError) expect(close).toBeDefined();
        return;
      }
      if (op.kind === "close") {
        closesWon++;
        expect(wasClosed).toBe(false);
        return;
      }
      const [snapshot] = outcome.value as { event?: { id: number; version: number } }[];
      charged.add(snapshot.event!.id);
      if (close) expect(snapshot.event!.version).toBeLessThan(close.version);
    });
    expect(closesWon).toBe(close && !wasClosed ? 1 : 0);
    expect(events.filter((e) => e.name === "Charged").map((e) => e.id)).toEqual([...charged].sort((a, b) => a - b));
    if (close) {
      closedAt = close.version;
      for (const app of apps)
        await expect(app.do("charge", { stream, actor }, { amount: 1 })).rejects.toBeInstanceOf(StreamClosedError);
    }
  }
}

/**
 * The model-based test for one store: the fixed seed's runs (and under CI a
 * fresh seed, printed).
 *
 * @param name - names the store in the test titles and the printed seed
 * @param fresh - an empty, seeded store of its kind
 */
export function closeModelSuite(name: string, fresh: () => Promise<Store>): void {
  describe(`closing a stream against the model (${name})`, () => {
    for (const seedRun of runs)
      it(`actions and closes of three apps racing on one stream (${seedLabel(seedRun)})`, async () => {
        announce(`close model (${name})`, "CLOSE", seedRun);
        const { seed, numRuns } = seedRun;
        await fc.assert(
          fc.asyncProperty(programArb, (program) => run(program, fresh)),
          { seed, numRuns, ...replayPath("CLOSE") }
        );
      }, 180_000);
  });
}
