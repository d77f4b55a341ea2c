/**
 * Faults: backends terminated during a commit and during a drain, and a
 * server restart during a run of actions. Callers get a clear error for the
 * failed call, the pool recovers without restarting anything, and the log
 * never holds a partial commit.
 */
import { act, ConcurrencyError, state, store } from "@act-root/act";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { PostgresStore } from "../src/index.js";
import { type PgServer, startServer } from "../tools/pg-server.js";
import { client, makeStore, sleep, sql } from "./support.js";

const LOST = /PostgresStore .* (lost its database connection|could not reach the database)/;
const APP_NAME = "act-pg-faults";

const Pair = state("Pair", z.object({ count: z.number() }))
  .init(() => ({ count: 0 }))
  .emits({ Left: z.object({ i: z.number() }), Right: z.object({ i: z.number() }) })
  .patch({ Left: (_, s) => ({ count: s.count + 1 }), Right: (_, s) => ({ count: s.count + 1 }) })
  // Every action commits two events: a partial commit would show as an odd count.
  .on("pair", z.object({ i: z.number() }))
  .emit(({ i }) => [
    ["Left", { i }],
    ["Right", { i }],
  ])
  .build();

const handled: number[] = [];
let terminateOnce = false;
const app = act()
  .with(Pair)
  .on("Left")
  .do(async function record(event) {
    handled.push(event.id);
    if (terminateOnce) {
      terminateOnce = false;
      fault = (await blockAckThenTerminate(event.stream)).done;
    }
  })
  .build();
const actor = { id: "u", name: "U" };

/**
 * Locks the stream's watermark row so the drain's ack waits on it, then
 * terminates the store's backends while the ack is in flight.
 */
async function blockAckThenTerminate(stream: string) {
  const locker = await client();
  await locker.query("BEGIN");
  await locker.query(`SELECT 1 FROM public.faults_watermarks WHERE stream = $1 FOR UPDATE`, [stream]);
  const done = (async () => {
    await waitForLockWait();
    await terminateStoreBackends();
    await locker.query("ROLLBACK");
    await locker.end();
  })();
  return { done };
}

/** Waits until one of the store's backends waits on a lock. */
async function waitForLockWait() {
  for (let i = 0; i < 250; i++) {
    const waiting = await sql(
      `SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
      [APP_NAME]
    );
    if (waiting.length) return;
    await sleep(20);
  }
  throw new Error("the store never waited on the lock");
}

let fault: Promise<void> | undefined;

const terminateStoreBackends = () =>
  sql(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`,
    [APP_NAME]
  );

let pgStore: PostgresStore;

beforeAll(async () => {
  pgStore = makeStore({ table: "faults", applicationName: APP_NAME });
  store(pgStore);
  await pgStore.drop();
  await pgStore.seed();
});

afterAll(async () => {
  await pgStore.drop();
  await pgStore.dispose();
});

describe("pg_terminate_backend", () => {
  it("during a commit: a clear error, nothing committed, the next commit works", async () => {
    // Hold the stream's version 0 in an open transaction so the store's commit waits on the unique index.
    const holder = await client();
    await holder.query("BEGIN");
    await holder.query(
      `INSERT INTO public.faults (id, stream, version, name, data, meta) VALUES (pg_current_xact_id()::text::bigint << 16, 'held', 0, 'Left', '{}', '{}')`
    );
    const pending = pgStore.commit({
      stream: "held",
      messages: [
        { name: "Left", data: { i: 1 } },
        { name: "Right", data: { i: 1 } },
      ],
      meta: { correlation: "x", causation: {} },
      expectedVersion: -1,
    });
    const failed = pending.catch((e) => e);
    // Wait until the store's backend is blocked, then terminate it.
    await waitForLockWait();
    await terminateStoreBackends();
    const error = await failed;
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toMatch(LOST);
    expect(error.message).toMatch(/applied entirely or not at all/);
    await holder.query("ROLLBACK");
    await holder.end();
    expect(await pgStore.query(() => {}, { stream: "held" })).toBe(0);
    const committed = await pgStore.commit({
      stream: "held",
      messages: [
        { name: "Left", data: { i: 2 } },
        { name: "Right", data: { i: 2 } },
      ],
      meta: { correlation: "y", causation: {} },
      expectedVersion: -1,
    });
    expect(committed.map((e) => e.version)).toEqual([0, 1]);
  });

  it("during a drain: the drain fails with a clear error, later drains finish the job", async () => {
    for (let i = 0; i < 10; i++) await app.do("pair", { stream: `d-${i % 3}`, actor }, { i });
    const expected = (await app.queryArray({ names: ["Left"] })).map((e) => e.id);
    terminateOnce = true;
    // Caught up: each stream's watermark at its last event the reaction
    // handles (a drain reads no further than that: the "Right" events after it
    // route nowhere).
    const heads = new Map<string, number>();
    for (const e of await app.queryArray({ names: ["Left"] })) heads.set(e.stream, e.id);
    const caughtUp = async () => {
      const rows = await sql(`SELECT stream, at::float8 AS at FROM public.faults_watermarks`);
      return rows.length === heads.size && rows.every((r) => r.at === heads.get(r.stream));
    };
    const errors: Error[] = [];
    for (let round = 0; round < 200 && !(await caughtUp()); round++) {
      try {
        const { leased } = await app.drain({ leaseMillis: 300 });
        if (!leased.length) await sleep(50); // a lease of a failed drain must expire first
      } catch (error) {
        errors.push(error as Error);
      }
    }
    expect(terminateOnce).toBe(false);
    await fault;
    // The drain whose ack was cut off failed with a clear error (and the next
    // call may meet another connection that was killed while idle)…
    expect(errors[0]?.message).toMatch(/PostgresStore ack lost its database connection/);
    for (const error of errors) expect(error.message).toMatch(LOST);
    // …and the pool recovered: every reaction ran (at least once: an unacknowledged one runs again).
    expect(new Set(handled)).toEqual(new Set(expected));
    expect(await caughtUp()).toBe(true);
  });
});

describe("server restart during a run of actions", () => {
  let server: PgServer;
  let own: PostgresStore;

  beforeAll(async () => {
    // A server of its own, so restarting it disturbs no other test.
    server = await startServer();
    own = makeStore({ connectionString: server.url, table: "restart", connectionTimeoutMillis: 3000 });
    await own.seed();
  });

  afterAll(async () => {
    await own?.dispose();
    await sleep(100); // let the pool's sockets close before the server goes away
    await server?.stop();
  });

  it("fails the calls in flight clearly, recovers by itself, and leaves no partial commit", async () => {
    const pairs = async (i: number) => {
      // What Act does for an action: read the stream, commit with the version read.
      const stream = `r-${i % 5}`;
      let version = -1;
      await own.query((e) => (version = e.version), { stream, backward: true, limit: 1 });
      await own.commit({
        stream,
        messages: [
          { name: "Left", data: { i } },
          { name: "Right", data: { i } },
        ],
        meta: { correlation: `c-${i}`, causation: {} },
        expectedVersion: version,
      });
    };
    const outcomes: Array<"ok" | Error> = [];
    let restarted = false;
    const restart = (async () => {
      while (outcomes.length < 50) await sleep(5);
      await server.restart();
      restarted = true;
    })();
    let i = 0;
    // Keep acting through the restart, until enough actions succeeded after it.
    while (!restarted || outcomes.slice(-50).some((o) => o !== "ok")) {
      try {
        await pairs(i++);
        outcomes.push("ok");
      } catch (error) {
        outcomes.push(error as Error);
        await sleep(20);
      }
      if (i > 5000) throw new Error("the pool did not recover after the restart");
    }
    await restart;
    const failures = outcomes.filter((o): o is Error => o !== "ok");
    expect(failures.length).toBeGreaterThan(0);
    for (const failure of failures) {
      expect(failure).not.toBeInstanceOf(ConcurrencyError);
      expect(failure.message).toMatch(LOST);
    }
    // No partial commit: each action's correlation holds both events or none, versions are dense.
    const perCorrelation = new Map<string, number>();
    const perStream = new Map<string, number[]>();
    await own.query((e) => {
      perCorrelation.set(e.meta.correlation, (perCorrelation.get(e.meta.correlation) ?? 0) + 1);
      perStream.set(e.stream, [...(perStream.get(e.stream) ?? []), e.version]);
    });
    for (const count of perCorrelation.values()) expect(count).toBe(2);
    for (const versions of perStream.values()) expect(versions).toEqual(versions.map((_, v) => v));
    const successes = outcomes.filter((o) => o === "ok").length;
    // Every success is in the log; a failed commit may have been applied (its reply was lost) — whole.
    expect(perCorrelation.size).toBeGreaterThanOrEqual(successes);
    expect(perCorrelation.size).toBeLessThanOrEqual(successes + failures.length);
  });
});
