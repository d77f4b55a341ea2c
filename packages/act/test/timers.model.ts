/**
 * Model-based test of timers, for every store: random programs schedule and
 * cancel timers, move a shared test clock, and drain two apps of one
 * release (alone or at once) and an older release that lacks one of the two
 * actions — while a process claims due timers and dies, some after
 * committing their action and before recording it. The model is trivial:
 *
 * - `schedule` keeps an id once; `cancel` succeeds only for a pending timer
 *   no live claim holds;
 * - every timer never cancelled fires exactly once (its action's stream has
 *   one event), in due order within a drain, never early; one cancelled
 *   before it was due never fires; one cancelled later (after a dead
 *   process's claim ran out) fired at most once;
 * - the older release never fires a timer of the action it lacks.
 *
 * The seed is printed; reproduce a failure with `TIMERS_SEED=<seed>` (and
 * `TIMERS_PATH=<path>`), and run more cases with `TIMERS_RUNS=<n>`.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { act, type FiredTimer, type Store, state, store } from "../src/index.js";
import { testClock } from "../src/testing/index.js";
import { announce, replayPath, seedLabel, seedRuns } from "./seeds.js";

process.env.LOG_LEVEL ??= "fatal";

/** The runs of the property: the fixed seed (or `TIMERS_SEED`), and in CI also a fresh one, printed. */
const runs = seedRuns("TIMERS", { seed: 20_261_129, numRuns: 40 }, 20);

const actor = { id: "bot", name: "Bot" };
const Note = z.object({ note: z.string() });
const Ping = state("Ping", z.object({ n: z.number() }))
  .init(() => ({ n: 0 }))
  .emits({ Pinged: Note })
  .patch({ Pinged: (_, s) => ({ n: s.n + 1 }) })
  .on("ping", Note)
  .emit(({ note }) => ["Pinged", { note }])
  .build();
const Pong = state("Pong", z.object({ n: z.number() }))
  .init(() => ({ n: 0 }))
  .emits({ Ponged: Note })
  .patch({ Ponged: (_, s) => ({ n: s.n + 1 }) })
  .on("pong", Note)
  .emit(({ note }) => ["Ponged", { note }])
  .build();

/** How long a dead process's claim lasts, in ms. */
const DEAD_CLAIM = 1_000;

type Op =
  | { kind: "schedule"; timer: number; after: number; pong: boolean }
  | { kind: "cancel"; timer: number }
  | { kind: "advance"; millis: number }
  | { kind: "drain"; who: "a" | "b" | "both" | "old" }
  | { kind: "crash"; limit: number; commit: boolean };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("schedule" as const),
      timer: fc.integer({ min: 0, max: 7 }),
      after: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3_000 })),
      pong: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("cancel" as const), timer: fc.integer({ min: 0, max: 7 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("advance" as const), millis: fc.integer({ min: 0, max: 1_500 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("drain" as const),
      who: fc.constantFrom("a" as const, "b" as const, "both" as const, "old" as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("crash" as const),
      limit: fc.integer({ min: 1, max: 3 }),
      commit: fc.boolean(),
    }),
  }
);

export const programArb = fc.array(opArb, { minLength: 1, maxLength: 25 });

/** A timer as the model knows it. */
type Known = { action: "ping" | "pong"; due: number; cancelledAt?: number; fired: boolean; claimedUntil: number };

/** Runs one program on the store `fresh` puts on the port, and checks it against the model. */
export async function run(program: Op[], fresh: () => Promise<Store>): Promise<void> {
  await fresh();
  const log = store();
  const clock = testClock("2026-01-01T00:00:00Z");
  const current = act().with(Ping).with(Pong);
  const apps = { a: current.build({ clock }), b: current.build({ clock }), old: act().with(Ping).build({ clock }) };
  const model = new Map<string, Known>();
  const now = () => clock.now().getTime();
  const stream = (id: string) => `timer-${id}`;

  /** Checks a drain's fired timers against the model and marks them fired. */
  const fired = (list: readonly FiredTimer[] | undefined, actions: readonly string[]) => {
    const got = list ?? [];
    for (let i = 1; i < got.length; i++) expect(got[i].due.getTime()).toBeGreaterThanOrEqual(got[i - 1].due.getTime());
    for (const t of got) {
      const known = model.get(t.id)!;
      expect(t.error).toBeUndefined();
      expect(known.fired).toBe(false);
      expect(known.cancelledAt).toBeUndefined();
      expect(known.due).toBeLessThanOrEqual(now());
      expect(actions).toContain(known.action);
      known.fired = true;
    }
    return got.length;
  };
  /** Whether a drain by a release with `actions` must fire a known timer now. */
  const due = (k: Known, actions: readonly string[]) =>
    !k.fired && k.cancelledAt === undefined && k.due <= now() && k.claimedUntil <= now() && actions.includes(k.action);

  for (const op of program) {
    if (op.kind === "schedule") {
      const id = `t${op.timer}`;
      const action = op.pong ? "pong" : "ping";
      const kept = await apps.a.schedule({
        id,
        action,
        target: { stream: stream(id), actor },
        payload: { note: id },
        afterMillis: op.after,
      });
      expect(kept).toBe(!model.has(id));
      if (kept) model.set(id, { action, due: now() + op.after, fired: false, claimedUntil: 0 });
    } else if (op.kind === "cancel") {
      const id = `t${op.timer}`;
      const k = model.get(id);
      const expected = !!k && !k.fired && k.cancelledAt === undefined && k.claimedUntil <= now();
      expect(await apps.b.cancel(id)).toEqual(expected ? [id] : []);
      if (expected) k!.cancelledAt = now();
    } else if (op.kind === "advance") {
      clock.advance(op.millis);
    } else if (op.kind === "drain") {
      const both = ["ping", "pong"];
      if (op.who === "both") {
        const expected = [...model.values()].filter((k) => due(k, both)).length;
        const [a, b] = await Promise.all([apps.a.drain(), apps.b.drain()]);
        expect(fired(a.fired, both) + fired(b.fired, both)).toBe(expected);
      } else {
        const actions = op.who === "old" ? ["ping"] : both;
        const expected = [...model.values()].filter((k) => due(k, actions)).length;
        expect(fired((await apps[op.who].drain()).fired, actions)).toBe(expected);
      }
    } else {
      // A process claims due timers and dies — after committing the action, when `commit`.
      const claimed = await log.timers!.claim({
        now: clock.now(),
        by: "dead",
        millis: DEAD_CLAIM,
        limit: op.limit,
        actions: ["ping", "pong"],
      });
      const expected = [...model.entries()]
        .filter(([, k]) => due(k, ["ping", "pong"]))
        .sort(([ia, a], [ib, b]) => a.due - b.due || (ia < ib ? -1 : 1))
        .slice(0, op.limit)
        .map(([id]) => id);
      expect(claimed.map((t) => t.id)).toEqual(expected);
      for (const t of claimed) {
        model.get(t.id)!.claimedUntil = now() + DEAD_CLAIM;
        if (op.commit)
          await apps.a.do(
            t.action as "ping",
            { stream: t.stream, actor, idempotencyKey: `timer:${t.id}` },
            {
              note: t.id,
            }
          );
      }
    }
  }

  // Past every due time and claim: the current release fires the rest.
  clock.advance(10_000);
  for (;;) {
    const { fired: more = [] } = await apps.a.drain();
    if (!fired(more, ["ping", "pong"])) break;
  }
  for (const [id, k] of model) {
    const events = await apps.a.queryArray({ stream: stream(id) });
    if (k.cancelledAt === undefined) expect(events, `timer ${id}`).toHaveLength(1);
    else if (k.cancelledAt < k.due) expect(events, `timer ${id}`).toHaveLength(0);
    else expect(events.length, `timer ${id}`).toBeLessThanOrEqual(1);
  }
  const { timers } = await apps.a.stats();
  expect(timers.overdue).toBe(0);
  expect(timers.pending).toBe(0);
}

/**
 * The model-based test for one store: the fixed seed's runs (and under CI a
 * fresh seed, printed).
 *
 * @param name - names the store in the test titles and the printed seed
 * @param fresh - puts an empty store of its kind on the store port
 */
export function timersModelSuite(name: string, fresh: () => Promise<Store>): void {
  describe(`timers against the model (${name})`, () => {
    for (const seedRun of runs)
      it(`schedule, cancel, clock moves, drains by two apps and an older release, dead claimants (${seedLabel(seedRun)})`, async () => {
        announce(`timers model (${name})`, "TIMERS", seedRun);
        const { seed, numRuns } = seedRun;
        await fc.assert(
          fc.asyncProperty(programArb, (program) => run(program, fresh)),
          { seed, numRuns, ...replayPath("TIMERS") }
        );
      }, 180_000);
  });
}
