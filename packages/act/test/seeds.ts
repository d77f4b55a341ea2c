/**
 * The seeds a property or model-based test runs with. Always its fixed seed
 * (the same programs on every machine, so a regression shows up
 * everywhere); under `CI` also one fresh random seed, so CI keeps exploring
 * programs the fixed seed never generates. Each run's seed is printed: replay
 * a failure with `<PREFIX>_SEED=<seed>` (and `<PREFIX>_PATH=<path>` from
 * fast-check's report to go straight to the shrunk case). `<PREFIX>_RUNS`
 * sets the number of programs; `<PREFIX>_SEED=random` picks a fresh seed
 * instead of the fixed one.
 */

/** One run of a property: its seed, how many programs, and whether the seed is fresh. */
export type SeedRun = { seed: number; numRuns: number; fresh: boolean };

const randomSeed = () => Math.floor(Math.random() * 2 ** 31);

/**
 * The runs for the test whose environment variables start with `prefix`.
 *
 * @param prefix - e.g. `MODEL` for `MODEL_SEED`, `MODEL_RUNS`, `MODEL_PATH`
 * @param fixed - the seed and number of programs every run replays
 * @param freshRuns - how many programs the CI-only fresh seed runs
 * @param env - the environment (the process's by default)
 */
export function seedRuns(
  prefix: string,
  fixed: { seed: number; numRuns: number },
  freshRuns: number,
  env: Record<string, string | undefined> = process.env
): SeedRun[] {
  const chosen = env[`${prefix}_SEED`];
  const numRuns = Number(env[`${prefix}_RUNS`] ?? fixed.numRuns);
  const first: SeedRun =
    chosen === "random"
      ? { seed: randomSeed(), numRuns, fresh: true }
      : { seed: Number(chosen ?? fixed.seed), numRuns, fresh: false };
  const ci = Boolean(env.CI) && env.CI !== "false";
  return ci && !chosen ? [first, { seed: randomSeed(), numRuns: freshRuns, fresh: true }] : [first];
}

/** fast-check's replay path for the test (`<PREFIX>_PATH`), when given. */
export const replayPath = (prefix: string, env: Record<string, string | undefined> = process.env) =>
  env[`${prefix}_PATH`] ? { path: env[`${prefix}_PATH`] as string } : {};

/** The run's part of a test title: its seed, and whether it is fresh. */
export const seedLabel = (run: SeedRun) => `seed ${run.seed}${run.fresh ? ", fresh" : ""}`;

/** Prints the run's seed, with how to replay it when it is fresh. */
export function announce(name: string, prefix: string, run: SeedRun): void {
  const replay = run.fresh ? ` (fresh; replay with ${prefix}_SEED=${run.seed})` : "";
  console.log(`${name}: seed ${run.seed}, ${run.numRuns} runs${replay}`);
}
