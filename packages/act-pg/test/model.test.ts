/**
 * Model-based tests of actions on PostgreSQL: the programs of the core's
 * model test (`packages/act/test/model/model.ts`: sequential and concurrent
 * actions by several apps, each with its own snapshot cache, on streams
 * shared by two snapshotting states, checked after every step against the
 * pure fold of the log), plus steps where another connection opens a
 * transaction that holds a write — into a scratch table, or a commit to an
 * unrelated stream — and later commits or rolls it back. A held transaction
 * holds back the stable prefix that position-based reads stop at, which is
 * what makes a cached snapshot look current when it is not.
 *
 * One store (table `model_events`) serves the file; each program gets its
 * own stream-name prefix and fresh apps.
 *
 * Reproduce a failure with the seed fast-check prints:
 * `MODEL_SEED=<seed> npm test -w @act-root/act-pg -- model` (MODEL_RUNS sets the run count,
 * MODEL_SEED=random picks a new seed).
 */
import { store } from "@act-root/act";
import fc from "fast-check";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { PostgresStore } from "../src/index.js";
import * as q from "../src/sql.js";
import { type Held, programArb, runProgram } from "../../act/test/model/model.js";
import { client, makeStore, sql } from "./support.js";

// Failed snapshot writes are logged (they are only an optimisation); keep the output readable.
process.env.LOG_LEVEL ??= "fatal";

const TABLE = "model_events";
const SCRATCH = "model_scratch";
const seed = process.env.MODEL_SEED === "random" ? Date.now() % 2 ** 31 : Number(process.env.MODEL_SEED ?? 20_240_611);
const numRuns = Number(process.env.MODEL_RUNS ?? 25);

let pgStore: PostgresStore;
let run = 0;

beforeAll(async () => {
  pgStore = makeStore({ table: TABLE });
  store(pgStore);
  await pgStore.drop();
  await pgStore.seed();
  await sql(`DROP TABLE IF EXISTS public.${SCRATCH}`);
  await sql(`CREATE TABLE public.${SCRATCH} (x int)`);
});

afterAll(async () => {
  await sql(`DROP TABLE IF EXISTS public.${SCRATCH}`);
  await pgStore.drop();
  await pgStore.dispose();
});

/**
 * Opens a transaction on another connection that holds a write: a row in
 * the scratch table, or a commit (the store's own statement) to a stream no
 * program touches.
 */
async function hold(kind: "scratch" | "events", stream: string): Promise<Held> {
  const c = await client();
  await c.query("BEGIN");
  if (kind === "scratch") await c.query(`INSERT INTO public.${SCRATCH} (x) VALUES (1)`);
  else
    await c.query(q.commit(q.names("public", TABLE)), [
      stream,
      JSON.stringify([{ name: "Added", data: { by: 1, seen: 0 } }]),
      JSON.stringify({ correlation: "held", causation: {} }),
      -1,
    ]);
  return {
    end: async (how) => {
      try {
        await c.query(how === "commit" ? "COMMIT" : "ROLLBACK");
      } finally {
        await c.end();
      }
    },
  };
}

const check = (shared: boolean) =>
  fc.assert(
    fc.asyncProperty(programArb({ holds: true, shared, maxSteps: 25 }), async (program) => {
      await runProgram(program, { prefix: `pg${run++}-${seed}`, hold, stepTimeout: 15_000 });
    }),
    { seed, numRuns, ...(process.env.MODEL_PATH && { path: process.env.MODEL_PATH }) }
  );

describe("actions against the model (PostgreSQL, with transactions held open by other connections)", () => {
  it("with one state per stream", () => check(false), 120_000);
  it("with two snapshotting states sharing the streams", () => check(true), 120_000);
});
