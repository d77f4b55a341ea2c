import fc from "fast-check";
import { describe, it } from "vitest";
import { disposeAndExit, InMemoryStore, store } from "../src/index.js";
import { programArb, run, runs } from "./operations.model.js";

const fresh = async () => {
  await disposeAndExit();
  return store(new InMemoryStore());
};

describe("reactions under operations against the model (in memory)", () => {
  for (const { seed, numRuns, fresh: isFresh } of runs)
    it(`two releases, resets, unblocks, filtered correlates, undecodable events, failing renewals (seed ${seed}${isFresh ? ", fresh" : ""})`, async () => {
      console.log(`operations model (in memory): seed ${seed}, ${numRuns} runs`);
      await fc.assert(
        fc.asyncProperty(programArb, (program) => run(program, fresh)),
        { seed, numRuns, ...(process.env.OPS_PATH && { path: process.env.OPS_PATH }) }
      );
    }, 180_000);
});
