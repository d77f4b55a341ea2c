/**
 * Model-based tests of actions on PostgreSQL: the programs of the core's
 * model test (`packages/act/test/model/model.ts`: sequential and concurrent
 * actions by several apps, each with its own snapshot cache, on streams
 * shared by two snapshotting states, checked after every step against the
 * pure fold of the log), plus steps where another connection opens a
 * transaction that holds a write — into a scratch table, or a commit to an
 * unrelated stream — and later commits or rolls it back. A held transaction
 * holds back the stable prefix that position-based reads stop at, which is
 * what makes a cached snapshot look current when it is not. And steps where
 * another connection commits to a stream in a transaction it keeps open
 * while an app acts on that stream, then commits or rolls back; and steps
 * where the store's connections are killed while an action runs.
 *
 * One store (table `model_events`) serves the file; each program gets its
 * own stream-name prefix and fresh apps.
 *
 * Runs the fixed seed, and under CI a fresh one too (see the core's
 * `test/seeds.ts`). Reproduce a failure with the seed fast-check prints:
 * `MODEL_SEED=<seed> npm test -w @act-root/act-pg -- model` (MODEL_RUNS sets the run count,
 * MODEL_SEED=random picks a new seed).
 */
import { InMemoryStore, type Store, store } from "@act-root/act";
import fc from "fast-check";
import { afterAll, beforeAll, describe, it } from "vitest";
import type pg from "pg";
import type { PostgresStore } from "../src/index.js";
import * as q from "../src/sql.js";
import {
  type Held,
  type Program,
  programArb,
  REGRESSIONS,
  runProgram,
  scheduled,
  stats,
} from "../../act/test/model/model.js";
import { announce, replayPath, type SeedRun, seedLabel, seedRuns } from "../../act/test/seeds.js";
import { client, makeStore, sleep, sql } from "./support.js";

// Failed snapshot writes are logged (they are only an optimisation); keep the output readable.
process.env.LOG_LEVEL ??= "fatal";

const TABLE = "model_events";
const SCRATCH = "model_scratch";
/** Names the store's connections, so `kill` terminates those and nothing else. */
const APP_NAME = "act-pg-model";
const runs = seedRuns("MODEL", { seed: 20_240_611, numRuns: 120 }, 30);

let pgStore: PostgresStore;
let run = 0;

/**
 * The store port is process-wide and fixed by its first call, so it gets a
 * switch: every call goes to `current` — the Postgres store, the same behind
 * fast-check's scheduler, or an in-memory store for the comparison.
 */
let current: Store;
const port = new Proxy({} as Store, {
  get(_, key) {
    const member = Reflect.get(current, key);
    return typeof member === "function" ? member.bind(current) : member;
  },
});

beforeAll(async () => {
  pgStore = makeStore({ table: TABLE, applicationName: APP_NAME });
  current = pgStore;
  store(port);
  await pgStore.drop();
  await pgStore.seed();
  await sql(`DROP TABLE IF EXISTS public.${SCRATCH}`);
  await sql(`CREATE TABLE public.${SCRATCH} (x int)`);
});

afterAll(async () => {
  if (process.env.MODEL_STATS) console.log("outcomes:", Object.fromEntries(Object.entries(stats).sort()));
  await sql(`DROP TABLE IF EXISTS public.${SCRATCH}`);
  await pgStore.drop();
  await pgStore.dispose();
});

/**
 * Inserts an event the way a commit does (the id from the transaction id,
 * see `sql.ts`), at `version` of `stream` if the stream is at `version - 1`:
 * a raw statement, so a change in the store's own statement's parameters
 * does not break the test. Returns the row, or undefined when the stream moved.
 */
async function insertEvent(c: pg.Client, stream: string, version: number, message: { name: string; data: unknown }) {
  const events = q.names("public", TABLE).events;
  const { rows } = await c.query<{ id: string; version: number }>(
    `INSERT INTO ${events} (id, stream, version, name, data, meta)
     SELECT pg_current_xact_id()::text::bigint << ${q.COMMIT_BITS}, $1, $2, $3, $4::json, $5::json
     WHERE (SELECT COALESCE(max(version), -1) FROM ${events} WHERE stream = $1) = $2 - 1
     RETURNING id, version`,
    [
      stream,
      version,
      message.name,
      JSON.stringify(message.data),
      JSON.stringify({ correlation: "external", causation: {} }),
    ]
  );
  return rows[0];
}

/** Ends a held transaction and closes its client. */
const ender = (c: pg.Client) => async (how: "commit" | "rollback") => {
  try {
    await c.query(how === "commit" ? "COMMIT" : "ROLLBACK");
  } finally {
    await c.end();
  }
};

/**
 * Opens a transaction on another connection that holds a write: a row in
 * the scratch table, or an event of a stream no program touches.
 */
async function hold(kind: "scratch" | "events", stream: string): Promise<Held> {
  const c = await client();
  await c.query("BEGIN");
  if (kind === "scratch") await c.query(`INSERT INTO public.${SCRATCH} (x) VALUES (1)`);
  else await insertEvent(c, stream, 0, { name: "Added", data: { by: 1, seen: 0 } });
  return { end: ender(c) };
}

/**
 * An external writer: another connection commits `message` to `stream` at
 * `expectedVersion + 1` in a transaction it keeps open until `end`.
 */
async function external(stream: string, message: { name: string; data: unknown }, expectedVersion: number) {
  const c = await client();
  await c.query("BEGIN");
  const row = await insertEvent(c, stream, expectedVersion + 1, message);
  if (!row) {
    await ender(c)("rollback");
    throw new Error(`external writer: "${stream}" is not at v${expectedVersion}`);
  }
  return { id: Number(row.id), version: Number(row.version), end: ender(c) };
}

/**
 * Terminates the store's connections and waits until they are gone (the pool
 * may open new ones meanwhile). With `waitForLock`, first waits — up to
 * 300 ms, and while it returns true (the action still runs) — for one of them
 * to wait on a lock (a commit blocked behind another write).
 */
async function kill(waitForLock?: () => boolean) {
  for (let i = 0; waitForLock?.() && i < 30; i++) {
    const waiting = await sql(
      `SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
      [APP_NAME]
    );
    if (waiting.length) break;
    await sleep(10);
  }
  const killed = (
    await sql<{ pid: number }>(
      // In the select list, so it runs only on the rows the filter keeps.
      `SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`,
      [APP_NAME]
    )
  ).map((r) => r.pid);
  for (let i = 0; i < 200; i++) {
    const alive = await sql(`SELECT 1 FROM pg_stat_activity WHERE pid = ANY($1::int[])`, [killed]);
    if (!alive.length) return;
    await sleep(10);
  }
  throw new Error(`backends ${killed.join(", ")} outlived pg_terminate_backend by 2 s`);
}

const replay = replayPath("MODEL");

/** Known counterexamples run first: the ones that need only one state per stream, or all. */
const examples = (shared: boolean): [Program][] =>
  Object.values(REGRESSIONS)
    .filter((p) => shared || p.steps.every((s) => !("do" in s) || !["mark", "unmark"].includes(s.do.action.kind)))
    .map((p) => [p]);

const check = (shared: boolean, { seed, numRuns }: SeedRun) =>
  fc.assert(
    fc.asyncProperty(programArb({ holds: true, faults: true, shared, maxSteps: 25 }), async (program) => {
      current = pgStore;
      await runProgram(program, { prefix: `pg${run++}-${seed}`, hold, external, kill, stepTimeout: 15_000 });
    }),
    { seed, numRuns, examples: examples(shared), ...replay }
  );

/** The same with every store read and commit started and answered in an order fast-check's scheduler picks. */
const checkScheduled = (shared: boolean, { seed, numRuns }: SeedRun) =>
  fc.assert(
    fc.asyncProperty(
      programArb({ holds: true, faults: true, shared, maxSteps: 20, concurrency: 6 }),
      fc.scheduler(),
      async (program, scheduler) => {
        current = scheduled(pgStore, scheduler);
        try {
          await runProgram(program, {
            prefix: `pgs${run++}-${seed}`,
            hold,
            external,
            kill,
            stepTimeout: 15_000,
            settle: (promise) => scheduler.waitFor(promise),
          });
        } finally {
          current = pgStore;
        }
      }
    ),
    { seed, numRuns: Math.ceil(numRuns / 2), ...replay }
  );

describe("actions against the model (PostgreSQL, with transactions held open by other connections)", () => {
  for (const seedRun of runs)
    describe(seedLabel(seedRun), () => {
      beforeAll(() => announce("actions model (PostgreSQL)", "MODEL", seedRun));
      it("with one state per stream", () => check(false, seedRun), 120_000);
      it("with two snapshotting states sharing the streams", () => check(true, seedRun), 120_000);
      it(
        "with one state per stream, store calls interleaved by the scheduler",
        () => checkScheduled(false, seedRun),
        120_000
      );
      it(
        "with two states sharing the streams, store calls interleaved by the scheduler",
        () => checkScheduled(true, seedRun),
        120_000
      );
    });
});

describe("the stores agree", () => {
  for (const seedRun of runs) {
    const { seed, numRuns } = seedRun;
    it(`a sequential program has the same outcomes, states and logs on PostgreSQL and in memory (${seedLabel(seedRun)})`, () => {
      announce("stores agree (PostgreSQL and in memory)", "MODEL", seedRun);
      return fc.assert(
        fc.asyncProperty(programArb({ concurrent: false, maxSteps: 25 }), async (program) => {
          current = pgStore;
          const onPostgres = await runProgram(program, { prefix: `pgd${run++}-${seed}` });
          current = new InMemoryStore();
          const inMemory = await runProgram(program, { prefix: `pgd${run++}-${seed}` }).finally(
            () => (current = pgStore)
          );
          const at = onPostgres.findIndex((line, i) => line !== inMemory[i]);
          if (at >= 0 || onPostgres.length !== inMemory.length)
            throw new Error(
              `stores disagree at line ${at}:\n  PostgreSQL: ${onPostgres[at]}\n  in memory:  ${inMemory[at]}\n--- PostgreSQL ---\n${onPostgres.join("\n")}\n--- in memory ---\n${inMemory.join("\n")}`
            );
        }),
        { seed, numRuns, ...replay }
      );
    }, 120_000);
  }
});
