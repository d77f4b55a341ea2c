import { describe, expect, it } from "vitest";
import { replayPath, seedLabel, seedRuns } from "./seeds.js";

const fixed = { seed: 1234, numRuns: 50 };

describe("the seeds a model-based test runs with", () => {
  it("are the fixed seed alone outside CI", () => {
    expect(seedRuns("M", fixed, 10, {})).toEqual([{ seed: 1234, numRuns: 50, fresh: false }]);
    expect(seedRuns("M", fixed, 10, { CI: "false" })).toEqual([{ seed: 1234, numRuns: 50, fresh: false }]);
  });

  it("add a fresh seed under CI, different between runs, with its own number of programs", () => {
    const [first, fresh] = seedRuns("M", fixed, 10, { CI: "true" });
    expect(first).toEqual({ seed: 1234, numRuns: 50, fresh: false });
    expect(fresh).toMatchObject({ numRuns: 10, fresh: true });
    expect(Number.isInteger(fresh!.seed) && fresh!.seed >= 0 && fresh!.seed < 2 ** 31).toBe(true);
    const seen = new Set(Array.from({ length: 20 }, () => seedRuns("M", fixed, 10, { CI: "true" })[1]!.seed));
    expect(seen.size).toBeGreaterThan(1);
  });

  it("replay exactly the seed, runs and path given, without a fresh seed even under CI", () => {
    const env = { CI: "true", M_SEED: "987", M_RUNS: "3", M_PATH: "4:1:0" };
    expect(seedRuns("M", fixed, 10, env)).toEqual([{ seed: 987, numRuns: 3, fresh: false }]);
    expect(replayPath("M", env)).toEqual({ path: "4:1:0" });
    expect(replayPath("M", {})).toEqual({});
  });

  it("pick a fresh seed for `<PREFIX>_SEED=random`, marked fresh so it is printed with how to replay it", () => {
    const [run, ...rest] = seedRuns("M", fixed, 10, { M_SEED: "random" });
    expect(run).toMatchObject({ numRuns: 50, fresh: true });
    expect(rest).toEqual([]);
    expect(seedLabel(run!)).toBe(`seed ${run!.seed}, fresh`);
    expect(seedLabel({ seed: 5, numRuns: 1, fresh: false })).toBe("seed 5");
  });
});
