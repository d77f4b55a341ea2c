/**
 * Model-based test of reactions under operations, for every store: random
 * logs (with events an old release wrote that no schema decodes) drained at
 * once by two releases of an app — the current one with two reactions and an
 * old one without the second — while an operator resets and unblocks
 * streams, someone runs filtered correlates, and lease renewals fail with
 * errors. The model is trivial:
 *
 * - every (event, reaction) pair whose target stream no reset touched runs
 *   exactly once, except that a run whose lease was lost (its signal
 *   aborted: a renewal failed or was refused, or the deadline passed while
 *   the machine was starved) may be repeated — once per such run, never
 *   more, so every repeat was announced to the run it repeats; one whose
 *   target was reset runs at least once after the last reset (a reset
 *   replays on purpose), and never by the old release when it is the
 *   reaction the old release lacks;
 * - an event no schema decodes blocks the target stream of each reaction it
 *   routes to, with a reason naming the event, and nothing after it on that
 *   stream runs; every other stream finishes;
 * - no two handlers ever run on one target stream at the same time.
 *
 * The seed is printed; reproduce a failure with `OPS_SEED=<seed>` (and
 * `OPS_PATH=<path>` from fast-check's report to go straight to the shrunk
 * case), and run more cases with `OPS_RUNS=<n>`.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { act, type Lease, type Store, sleep, store } from "../src/index.js";
import { Source } from "./fixtures/source.js";
import { announce, replayPath, seedLabel, seedRuns } from "./seeds.js";

process.env.LOG_LEVEL ??= "fatal";

/** The runs of the property: the fixed seed (or `OPS_SEED`), and in CI also a fresh one, printed. */
const runs = seedRuns("OPS", { seed: 20_261_125, numRuns: 6 }, 4);

type Op = { after: number; kind: "reset" | "unblock" | "correlate" | "renewals-fail" | "renewals-ok"; stream: number };

export type Program = {
  /** Each event: its stream (0–2) and whether an old release wrote it in a shape no schema decodes. */
  events: Array<{ stream: number; bad: boolean }>;
  /** What the operator and the environment do, each after `after` drain rounds. */
  ops: Op[];
  leaseMillis: number;
  delays: number[];
};

export const programArb: fc.Arbitrary<Program> = fc.record({
  events: fc.array(
    fc.record({ stream: fc.integer({ min: 0, max: 2 }), bad: fc.integer({ min: 0, max: 9 }).map((n) => n < 2) }),
    {
      minLength: 1,
      maxLength: 8,
    }
  ),
  ops: fc.array(
    fc.record({
      after: fc.integer({ min: 0, max: 6 }),
      kind: fc.constantFrom("reset", "unblock", "correlate", "renewals-fail", "renewals-ok"),
      stream: fc.integer({ min: 0, max: 2 }),
    }),
    { maxLength: 5 }
  ),
  leaseMillis: fc.integer({ min: 150, max: 300 }),
  delays: fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 16, maxLength: 16 }),
});

/** Runs one program on the store `fresh` puts on the port, and checks it against the model. */
export async function run(program: Program, fresh: () => Promise<Store>): Promise<void> {
  await fresh();
  const log = store();
  const lease = log.lease.bind(log);
  let renewalsFail = false;
  log.lease = async (leases: Lease[], millis: number) => {
    if (renewalsFail && millis > 0 && leases.some((l) => l.token !== undefined)) throw new Error("pool busy");
    return lease(leases, millis);
  };

  type Run = { pair: string; target: string; started: number; by: string; lost: () => boolean };
  const completed: Run[] = [];
  const running = new Map<string, string>();
  const overlaps: string[] = [];
  let clock = 0;
  const resets = new Map<string, number>(); // target → clock of its last reset

  const handler = (reaction: "r1" | "r2", release: string) =>
    async function react(
      event: { id: number; data: { key: number } },
      target: string,
      _app: unknown,
      { signal }: { signal: AbortSignal }
    ) {
      const pair = `${event.id}:${reaction}`;
      if (running.has(target)) overlaps.push(`${pair} started on ${target} while ${running.get(target)} ran`);
      running.set(target, pair);
      const started = ++clock;
      try {
        await sleep(program.delays[(event.data.key * 2 + (reaction === "r1" ? 0 : 1)) % program.delays.length]);
        // Read at the end of the test: the lease may be lost after the handler
        // returned and before its progress was stored, which repeats it too.
        completed.push({ pair, target, started, by: release, lost: () => signal.aborted });
      } finally {
        running.delete(target);
      }
    };
  const options = { maxRetries: 1, retryBaseMillis: 1, retryMaxMillis: 2 };
  const current = act()
    .with(Source)
    .on("Happened")
    .do(handler("r1", "current"), { ...options, name: "r1" })
    .to((e) => ({ target: `t-${e.stream}`, source: e.stream }))
    .on("Happened")
    .do(handler("r2", "current"), { ...options, name: "r2" })
    .to((e) => ({ target: `u-${e.stream}`, source: e.stream }))
    .build();
  const old = act()
    .with(Source)
    .on("Happened")
    .do(handler("r1", "old"), { ...options, name: "r1" })
    .to((e) => ({ target: `t-${e.stream}`, source: e.stream }))
    .build();

  const events: Array<{ id: number; stream: string; bad: boolean }> = [];
  for (const [key, { stream, bad }] of program.events.entries()) {
    const name = `s-${stream}`;
    // Written straight to the store: a bad one is what an old release wrote, in a shape no schema knows.
    const data = bad ? { legacy: key } : { key };
    const [committed] = await log.commit({
      stream: name,
      messages: [{ name: "Happened", data }],
      meta: {
        correlation: `c-${key}`,
        causation: {},
      },
    });
    events.push({ id: committed.id, stream: name, bad });
  }

  const drainOptions = { leaseMillis: program.leaseMillis, eventLimit: 3, streamLimit: 4 };
  const ops = [...program.ops].sort((a, b) => a.after - b.after);
  let round = 0;
  const apply = async (op: Op) => {
    const s = `s-${op.stream}`;
    if (op.kind === "reset") {
      await current.reset(`t-${s}`, `u-${s}`);
      resets.set(`t-${s}`, ++clock);
      resets.set(`u-${s}`, clock);
    } else if (op.kind === "unblock") await current.unblock(`t-${s}`, `u-${s}`);
    else if (op.kind === "correlate") await old.correlate({ stream: s });
    else renewalsFail = op.kind === "renewals-fail";
  };
  const drainers = [current, old, current].map(async (app) => {
    for (let i = 0; i < 40; i++) {
      await app.drain(drainOptions);
      await sleep(2);
    }
  });
  const operator = (async () => {
    for (const op of ops) {
      while (round < op.after) {
        await sleep(program.leaseMillis / 4);
        round++;
      }
      await apply(op);
    }
    renewalsFail = false;
  })();
  await Promise.all([...drainers, operator]);
  renewalsFail = false;
  // Let a release that was unblocked or reset finish, with no operator in the way.
  const pending = async () => (await log.reactions()).some((r) => !r.blocked && r.head > r.at);
  for (let i = 0; i < 60 && (await pending()); i++) {
    await current.drain(drainOptions);
    await sleep(program.leaseMillis / 3);
  }
  const deadline = Date.now() + 5_000;
  while (running.size && Date.now() < deadline) await sleep(5);
  log.lease = lease;

  expect(overlaps).toEqual([]);
  const blocked = new Map((await log.reactions({ blocked: true })).map((r) => [r.stream, r]));
  for (const reaction of ["r1", "r2"] as const) {
    const prefix = reaction === "r1" ? "t" : "u";
    const byTarget = new Map<string, typeof events>();
    for (const e of events) {
      const target = `${prefix}-${e.stream}`;
      byTarget.set(target, [...(byTarget.get(target) ?? []), e]);
    }
    for (const [target, list] of byTarget) {
      const firstBad = list.find((e) => e.bad);
      if (firstBad) {
        expect(blocked.get(target)?.error, `${target} blocked on #${firstBad.id}`).toMatch(
          new RegExp(`#${firstBad.id} on stream "${target}"`)
        );
      } else expect(blocked.has(target), `${target} not blocked`).toBe(false);
      const reset = resets.get(target);
      for (const e of list) {
        if (firstBad && e.id >= firstBad.id) {
          expect(
            completed.filter((c) => c.pair === `${e.id}:${reaction}`),
            `nothing at or after #${firstBad.id} on ${target}`
          ).toEqual([]);
          continue;
        }
        const runs = completed.filter((c) => c.pair === `${e.id}:${reaction}` && c.target === target);
        if (reaction === "r2")
          expect(
            runs.every((c) => c.by === "current"),
            `${target}: r2 only by the release that has it`
          ).toBe(true);
        if (reset === undefined) {
          const announced = runs.filter((c) => c.lost()).length;
          expect(runs.length, `${e.id}:${reaction} on ${target} at least once`).toBeGreaterThanOrEqual(1);
          expect(
            runs.length,
            `${e.id}:${reaction} on ${target} exactly once, or again only after a run whose lease was lost (${announced} lost)`
          ).toBeLessThanOrEqual(1 + announced);
        } else
          expect(
            runs.filter((c) => c.started > reset).length,
            `${e.id}:${reaction} again after the reset`
          ).toBeGreaterThanOrEqual(1);
      }
    }
  }
}

/**
 * The model-based test for one store: the fixed seed's runs (and under CI a
 * fresh seed, printed).
 *
 * @param name - names the store in the test titles and the printed seed
 * @param fresh - puts an empty store of its kind on the store port
 */
export function operationsModelSuite(name: string, fresh: () => Promise<Store>): void {
  describe(`reactions under operations against the model (${name})`, () => {
    for (const seedRun of runs)
      it(`two releases, resets, unblocks, filtered correlates, undecodable events, failing renewals (${seedLabel(seedRun)})`, async () => {
        announce(`operations model (${name})`, "OPS", seedRun);
        const { seed, numRuns } = seedRun;
        await fc.assert(
          fc.asyncProperty(programArb, (program) => run(program, fresh)),
          { seed, numRuns, ...replayPath("OPS") }
        );
      }, 180_000);
  });
}
