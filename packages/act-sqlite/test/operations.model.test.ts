import { disposeAndExit, store } from "@act-root/act";
import fc from "fast-check";
import { afterAll, describe, it } from "vitest";
import { programArb, run, runs } from "../../act/test/operations.model.js";
import { announce, replayPath, seedLabel } from "../../act/test/seeds.js";
import { SqliteStore } from "../src/index.js";
import { tempFile } from "./support.js";

const fresh = async () => {
  await disposeAndExit();
  const sqlite = new SqliteStore({ filename: tempFile() });
  store(sqlite);
  await sqlite.seed();
  return sqlite;
};

describe("reactions under operations against the model (SQLite)", () => {
  for (const seedRun of runs)
    it(`two releases, resets, unblocks, filtered correlates, undecodable events, failing renewals (${seedLabel(seedRun)})`, async () => {
      announce("operations model (SQLite)", "OPS", seedRun);
      const { seed, numRuns } = seedRun;
      await fc.assert(
        fc.asyncProperty(programArb, (program) => run(program, fresh)),
        { seed, numRuns, ...replayPath("OPS") }
      );
    }, 180_000);
});

afterAll(async () => {
  await disposeAndExit();
});
