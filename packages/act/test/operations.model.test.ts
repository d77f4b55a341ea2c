import fc from "fast-check";
import { describe, it } from "vitest";
import { disposeAndExit, InMemoryStore, store } from "../src/index.js";
import { programArb, run, runs } from "./operations.model.js";
import { announce, replayPath, seedLabel } from "./seeds.js";

const fresh = async () => {
  await disposeAndExit();
  return store(new InMemoryStore());
};

describe("reactions under operations against the model (in memory)", () => {
  for (const seedRun of runs)
    it(`two releases, resets, unblocks, filtered correlates, undecodable events, failing renewals (${seedLabel(seedRun)})`, async () => {
      announce("operations model (in memory)", "OPS", seedRun);
      const { seed, numRuns } = seedRun;
      await fc.assert(
        fc.asyncProperty(programArb, (program) => run(program, fresh)),
        { seed, numRuns, ...replayPath("OPS") }
      );
    }, 180_000);
});
