/**
 * Model-based test of a rolling deploy, for every store. Release N has one
 * reaction, `r1`, on a reaction stream per source stream. Release N+1 adds
 * `r2` on the same reaction streams as `r1` (the case where a stream's
 * single watermark is shared), `r3` on one stream every event reacts into,
 * and a projection. Random programs interleave commits, correlation and
 * drains of both releases' processes (alone or two at once), restarts of
 * any process, and the moment the first N+1 process starts; release N's
 * processes keep running to the end, as they do in a rolling deploy. Then
 * release N+1 runs alone until nothing is pending. The model is trivial:
 *
 * - `r1`, `r2`, `r3` and the projection each ran for every event, whenever
 *   it was committed — before or after N+1 started, and whichever release
 *   moved the watermark first: exactly once, except `r1` and `r2` when two
 *   drains ran at once (a batch in flight on a stream that `r2` joins is
 *   not recorded, and runs again);
 * - `r2`, `r3` and the projection only in release N+1;
 * - no two handlers ever ran on one reaction stream at the same time.
 *
 * The seed is printed; reproduce a failure with `DEPLOY_SEED=<seed>` (and
 * `DEPLOY_PATH=<path>` from fast-check's report to go straight to the
 * shrunk case), and run more cases with `DEPLOY_RUNS=<n>`.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { act, projection, type Store, store } from "../src/index.js";
import { Source } from "./fixtures/source.js";
import { announce, replayPath, seedLabel, seedRuns } from "./seeds.js";

process.env.LOG_LEVEL ??= "fatal";

/** The runs of the property: the fixed seed (or `DEPLOY_SEED`), and in CI also a fresh one, printed. */
const runs = seedRuns("DEPLOY", { seed: 20_261_128, numRuns: 8 }, 4);

type Release = "old" | "new";
type Step =
  | { kind: "commit"; stream: number; count: number }
  | { kind: "drain" | "correlate" | "restart"; release: Release; process: number }
  | { kind: "both"; process: number }
  | { kind: "deploy" };

/** A program: what happens, in order. Steps of release N+1 before `deploy` are skipped. */
export type Program = { steps: Step[]; eventLimit: number };

const processes = fc.integer({ min: 0, max: 1 });
const release = fc.constantFrom<Release>("old", "new");

export const programArb: fc.Arbitrary<Program> = fc.record({
  steps: fc.array(
    fc.oneof(
      fc.record({
        kind: fc.constant("commit" as const),
        stream: fc.integer({ min: 0, max: 2 }),
        count: fc.integer({ min: 1, max: 3 }),
      }),
      fc.record({
        kind: fc.constantFrom("drain" as const, "correlate" as const, "restart" as const),
        release,
        process: processes,
      }),
      fc.record({ kind: fc.constant("both" as const), process: processes }),
      fc.record({ kind: fc.constant("deploy" as const) })
    ),
    { minLength: 4, maxLength: 30 }
  ),
  eventLimit: fc.integer({ min: 1, max: 3 }),
});

/** Runs one program on the store `fresh` puts on the port, and checks it against the model. */
export async function run(program: Program, fresh: () => Promise<Store>): Promise<void> {
  await fresh();
  const log = store();
  const ran: Array<{ pair: string; by: Release }> = [];
  const running = new Map<string, string>();
  const overlaps: string[] = [];

  const handler = (reaction: string, by: Release) =>
    async function react(event: { id: number }, target: string) {
      const pair = `${event.id}:${reaction}`;
      if (running.has(target)) overlaps.push(`${pair} started on ${target} while ${running.get(target)} ran`);
      running.set(target, pair);
      try {
        await Promise.resolve();
        ran.push({ pair, by });
      } finally {
        running.delete(target);
      }
    };
  const own = (e: { stream: string }) => ({ target: `t-${e.stream}`, source: e.stream });
  const build = (by: Release) => {
    if (by === "old") return act().with(Source).on("Happened").do(handler("r1", by), { name: "r1" }).to(own).build();
    const Count = projection("Count")
      .with(Source)
      .on("Happened", (event) => {
        ran.push({ pair: `${event.id}:projection`, by });
      })
      .build();
    return act()
      .with(Source)
      .with(Count)
      .on("Happened")
      .do(handler("r1", by), { name: "r1" })
      .to(own)
      .on("Happened")
      .do(handler("r2", by), { name: "r2" })
      .to(own)
      .on("Happened")
      .do(handler("r3", by), { name: "r3" })
      .to(() => ({ target: "all" }))
      .build();
  };
  type App = ReturnType<typeof build>;
  const apps: Record<Release, App[]> = { old: [build("old"), build("old")], new: [] };
  const drainOptions = { eventLimit: program.eventLimit, streamLimit: 4, leaseMillis: 60_000 };
  const committed: number[] = [];
  let key = 0;

  const app = (by: Release, process: number): App | undefined => apps[by][process % Math.max(1, apps[by].length)];
  for (const step of program.steps) {
    if (step.kind === "commit") {
      for (let i = 0; i < step.count; i++) {
        const [snap] = await build("old").do(
          "happen",
          { stream: `s-${step.stream}`, actor: { id: "a", name: "a" } },
          {
            key: key++,
          }
        );
        committed.push(snap.event!.id);
      }
    } else if (step.kind === "deploy") {
      if (!apps.new.length) apps.new = [build("new"), build("new")];
    } else if (step.kind === "restart") {
      if (apps[step.release].length) apps[step.release][step.process] = build(step.release);
    } else if (step.kind === "both") {
      // An old and a new process at once, where both run.
      await Promise.all([app("old", step.process)?.drain(drainOptions), app("new", step.process)?.drain(drainOptions)]);
    } else {
      const target = app(step.release, step.process);
      if (step.kind === "drain") await target?.drain(drainOptions);
      else await target?.correlate();
    }
  }

  // Release N+1 alone, until discovery reached the end of the log and no stream has work.
  if (!apps.new.length) apps.new = [build("new")];
  const last = apps.new[0];
  for (let i = 0; i < 500; i++) {
    const { behind } = await last.correlate();
    await last.drain(drainOptions);
    const pending = (await log.reactions()).some((r) => !r.blocked && r.head > r.at);
    if (!behind && !pending) break;
  }

  expect(overlaps).toEqual([]);
  expect((await log.reactions({ blocked: true })).map((r) => r.stream)).toEqual([]);
  // Two drains at once: a reaction that joins a stream while a batch of it is
  // in flight moves the watermark back under a new token, and that batch's
  // progress is not recorded — its events run again (at least once). Streams
  // no reaction joins late are exact whatever runs at once.
  const concurrent = program.steps.some((step) => step.kind === "both");
  for (const reaction of ["r1", "r2", "r3", "projection"]) {
    const shared = reaction === "r1" || reaction === "r2";
    for (const id of committed) {
      const runs = ran.filter((r) => r.pair === `${id}:${reaction}`);
      if (shared && concurrent) expect(runs.length, `event #${id}: ${reaction} ran`).toBeGreaterThanOrEqual(1);
      else expect(runs.length, `event #${id}: ${reaction} ran exactly once`).toBe(1);
      if (reaction !== "r1") expect(runs[0].by, `event #${id}: ${reaction} only in release N+1`).toBe("new");
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
export function deployModelSuite(name: string, fresh: () => Promise<Store>): void {
  describe(`a rolling deploy that adds reactions and a projection, against the model (${name})`, () => {
    for (const seedRun of runs)
      it(`two releases interleaving commits, correlation, drains and restarts (${seedLabel(seedRun)})`, async () => {
        announce(`deploy model (${name})`, "DEPLOY", seedRun);
        const { seed, numRuns } = seedRun;
        await fc.assert(
          fc.asyncProperty(programArb, (program) => run(program, fresh)),
          { seed, numRuns, ...replayPath("DEPLOY") }
        );
      }, 180_000);
  });
}
