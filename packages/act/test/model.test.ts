/**
 * Model-based tests of actions on the in-memory store: random programs of
 * sequential and concurrent actions by several apps (each with its own
 * snapshot cache) on a few streams shared by two snapshotting states,
 * checked after every step against the pure fold of the log. See
 * `test/model/model.ts` for the model and the properties.
 *
 * Runs the fixed seed, and under CI a fresh one too (see `seeds.ts`).
 * Reproduce a failure with the seed (and path) fast-check prints:
 * `MODEL_SEED=<seed> npx vitest run --project act packages/act/test/model.test.ts`,
 * or run many more programs with `npm run stress -w @act-root/act`.
 */
import fc from "fast-check";
import { beforeAll, describe, it } from "vitest";
import { disposeAndExit, InMemoryStore, store } from "../src/index.js";
import { type Program, programArb, REGRESSIONS, runProgram, scheduled } from "./model/model.js";
import { announce, replayPath, type SeedRun, seedLabel, seedRuns } from "./seeds.js";

// Failed snapshot writes are logged (they are only an optimisation); keep the output readable.
process.env.LOG_LEVEL ??= "fatal";

const runs = seedRuns("MODEL", { seed: 20_240_611, numRuns: 400 }, 100);

let run = 0;

/** Known counterexamples run first: the ones that need only one state per stream, or all. */
const examples = (shared: boolean): [Program][] =>
  Object.values(REGRESSIONS)
    .filter((p) => shared || p.steps.every((s) => !("do" in s) || !["mark", "unmark"].includes(s.do.action.kind)))
    .map((p) => [p]);

/** Runs `numRuns` random programs, each on a fresh store with fresh apps. */
const check = (shared: boolean, { seed, numRuns }: SeedRun) =>
  fc.assert(
    fc.asyncProperty(programArb({ shared }), async (program) => {
      // A fresh store per program, as a new process would have (runProgram builds fresh apps).
      await disposeAndExit();
      store(new InMemoryStore());
      await runProgram(program, { prefix: `m${run++}` });
    }),
    { seed, numRuns, examples: examples(shared), ...replayPath("MODEL") }
  );

/**
 * The same, with every store read and commit started and answered in an
 * order fast-check's scheduler picks (and shrinks, and replays from the seed):
 * the interleavings a real database produces between concurrent actions.
 */
const checkScheduled = (shared: boolean, { seed, numRuns }: SeedRun) =>
  fc.assert(
    fc.asyncProperty(
      programArb({ shared, maxSteps: 20, concurrency: 6 }),
      fc.scheduler(),
      async (program, scheduler) => {
        await disposeAndExit();
        store(scheduled(new InMemoryStore(), scheduler));
        await runProgram(program, { prefix: `m${run++}`, settle: (promise) => scheduler.waitFor(promise) });
      }
    ),
    { seed, numRuns, ...replayPath("MODEL") }
  );

describe("actions against the model (in memory): the log, the states, the snapshots and the errors stay true to the fold of the events", () => {
  for (const seedRun of runs)
    describe(seedLabel(seedRun), () => {
      beforeAll(() => announce("actions model (in memory)", "MODEL", seedRun));
      it("with one state per stream", () => check(false, seedRun));
      it("with two snapshotting states sharing the streams", () => check(true, seedRun));
      it("with one state per stream, store calls interleaved by the scheduler", () => checkScheduled(false, seedRun));
      it("with two snapshotting states sharing the streams, store calls interleaved by the scheduler", () =>
        checkScheduled(true, seedRun));
    });
});
