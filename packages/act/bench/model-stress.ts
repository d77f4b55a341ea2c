/**
 * Stress run of the model-based tests (`test/model/model.ts`): many more
 * random programs than CI runs, with a new random seed per batch, reporting
 * every distinct property that broke with its seed, path and shrunk program.
 *
 *   npm run stress -w @act-root/act                    # in memory (with and without the scheduler), 60 s
 *   npm run stress -w @act-root/act -- --seconds 600   # longer
 *   npm run stress -w @act-root/act -- --pg            # also PostgreSQL (runs the act-pg model test with random seeds)
 *   npm run stress -w @act-root/act -- --runs 2000     # programs per batch (in memory)
 *   npm run stress -w @act-root/act -- --steps 60      # longer programs
 *
 * Exits with 1 when any property broke.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { disposeAndExit, InMemoryStore, store } from "../src/index.js";
import { ModelViolation, programArb, runProgram, scheduled, stats } from "../test/model/model.js";

process.env.LOG_LEVEL ??= "fatal";
process.env.NODE_ENV ??= "test"; // disposeAndExit must not exit between programs

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const seconds = option("seconds", 60);
const runs = option("runs", 500);
const steps = option("steps", 40);
const pg = args.includes("--pg");

/** Distinct failures, by the property that broke. */
const found = new Map<string, { seed: number; path?: string; counterexample: string; message: string }>();
let run = 0;
let programs = 0;
let batches = 0;

function record(label: string, seed: number, details: fc.RunDetails<any>) {
  const error = details.errorInstance;
  const message = error instanceof Error ? error.message : String(error);
  const property = `${label}: ${message.split(":")[0]}`;
  const counterexample = fc.stringify(details.counterexample);
  const known = found.get(property);
  // Keep the smallest counterexample per property.
  if (!known || counterexample.length < known.counterexample.length)
    found.set(property, { seed, path: details.counterexamplePath ?? undefined, counterexample, message });
  if (!known)
    console.log(
      `\n[${new Date().toISOString()}] new failure: ${property} (seed ${seed})\n${message.split("\n--- trace")[0]}`
    );
}

async function memoryBatch(shared: boolean, interleaved: boolean) {
  const seed = Math.floor(Math.random() * 2 ** 31);
  const details = await fc.check(
    fc.asyncProperty(
      programArb({ shared, maxSteps: steps, concurrency: interleaved ? 6 : 3 }),
      fc.scheduler(),
      async (program, scheduler) => {
        programs++;
        await disposeAndExit();
        store(interleaved ? scheduled(new InMemoryStore(), scheduler) : new InMemoryStore());
        await runProgram(program, {
          prefix: `x${run++}`,
          ...(interleaved && { settle: (promise) => scheduler.waitFor(promise) }),
        });
      }
    ),
    { seed, numRuns: runs }
  );
  batches++;
  if (details.failed) {
    if (!(details.errorInstance instanceof ModelViolation)) console.error(details.errorInstance);
    record(`memory${shared ? ", shared" : ""}${interleaved ? ", scheduler" : ""}`, seed, details);
  }
}

function pgBatch() {
  const root = fileURLToPath(new URL("../../..", import.meta.url));
  const result = spawnSync("npx", ["vitest", "run", "--project", "act-pg", "packages/act-pg/test/model.test.ts"], {
    cwd: root,
    env: { ...process.env, MODEL_SEED: "random", MODEL_RUNS: String(Math.max(25, Math.floor(runs / 5))) },
    encoding: "utf8",
  });
  batches++;
  const out = `${result.stdout}\n${result.stderr}`;
  const seeds = [...out.matchAll(/\{ seed: (\d+), path: "([^"]*)"/g)];
  const examples = [...out.matchAll(/Counterexample: (.*)/g)];
  const causes = [...out.matchAll(/Caused by: (?:ModelViolation|Error): ([^\n]*)/g)];
  causes.forEach((cause, i) => {
    const property = `pg: ${cause[1].split(":")[0]}`;
    const counterexample = examples[i]?.[1] ?? "?";
    const known = found.get(property);
    if (!known || counterexample.length < known.counterexample.length)
      found.set(property, { seed: Number(seeds[i]?.[1]), path: seeds[i]?.[2], counterexample, message: cause[1] });
    if (!known)
      console.log(`\n[${new Date().toISOString()}] new failure: ${property} (seed ${seeds[i]?.[1]})\n${cause[1]}`);
  });
  if (result.status !== 0 && !causes.length) console.error(out.slice(-4000));
}

const end = Date.now() + seconds * 1000;
while (Date.now() < end) {
  for (const shared of [false, true]) for (const interleaved of [false, true]) await memoryBatch(shared, interleaved);
  if (pg) pgBatch();
  if (process.stdout.isTTY)
    process.stdout.write(`\r${programs} in-memory programs, ${batches} batches, ${found.size} distinct failures`);
}

console.log(`\n\n${programs} in-memory programs in ${batches} batches (${seconds} s); ${found.size} distinct failures`);
console.log("in-memory outcomes:", Object.fromEntries(Object.entries(stats).sort()));
for (const [property, f] of found)
  console.log(`\n== ${property}\nseed ${f.seed} path ${f.path}\ncounterexample: ${f.counterexample}\n${f.message}`);
process.exitCode = found.size ? 1 : 0;
