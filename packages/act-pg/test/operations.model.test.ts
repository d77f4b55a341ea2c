import { disposeAndExit, store } from "@act-root/act";
import fc from "fast-check";
import { afterAll, describe, it } from "vitest";
import { programArb, run, runs } from "../../act/test/operations.model.js";
import { announce, replayPath, seedLabel } from "../../act/test/seeds.js";
import type { PostgresStore } from "../src/index.js";
import { makeStore } from "./support.js";

let current: PostgresStore | undefined;

const fresh = async () => {
  await disposeAndExit();
  current = makeStore({ table: "operations_model" });
  store(current);
  await current.drop();
  await current.seed();
  return current;
};

describe("reactions under operations against the model (PostgreSQL)", () => {
  for (const seedRun of runs)
    it(`two releases, resets, unblocks, filtered correlates, undecodable events, failing renewals (${seedLabel(seedRun)})`, async () => {
      announce("operations model (PostgreSQL)", "OPS", seedRun);
      const { seed, numRuns } = seedRun;
      await fc.assert(
        fc.asyncProperty(programArb, (program) => run(program, fresh)),
        { seed, numRuns, ...replayPath("OPS") }
      );
    }, 180_000);
});

afterAll(async () => {
  await current?.drop();
  await disposeAndExit();
});
