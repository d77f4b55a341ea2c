/**
 * A migration on a current schema takes no lock on the store's tables: a
 * second process's `seed` (or `migrate` of shared tables) returns while
 * another connection holds the lock a running writer holds — which the
 * DDL's exclusive locks would wait for, holding up every drain queued
 * behind them. A stale or damaged schema is still migrated.
 */
import { disposeAndExit } from "@act-root/act";
import type pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { postgresSharedTenants } from "../src/index.js";
import { client, connectionString, makeStore, sql } from "./support.js";

const SCHEMA = "migrate_tests";
const TABLES = [
  "events",
  "events_watermarks",
  "events_keys",
  "events_discovery",
  "events_timers",
  "events_subject_keys",
  "events_subject_streams",
  "events_archive",
];

let holder: pg.Client;
let watcher: pg.Client;

beforeAll(async () => {
  watcher = await client();
  await sql(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
});
afterEach(async () => {
  await holder?.end();
});
afterAll(async () => {
  await watcher.end();
  await sql(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await disposeAndExit();
});

/** Another connection in a transaction holding what a writer holds on every table: `ROW EXCLUSIVE`. */
async function holdWriterLocks(): Promise<void> {
  holder = await client();
  await holder.query(`BEGIN; LOCK TABLE ${TABLES.map((t) => `${SCHEMA}.${t}`).join(", ")} IN ROW EXCLUSIVE MODE`);
}

/** Relation locks on the schema's tables that some connection waits for. */
const waiting = async () =>
  (
    await watcher.query<{ name: string; mode: string }>(
      `SELECT c.relname AS name, l.mode FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
       WHERE NOT l.granted AND l.locktype = 'relation' AND c.relnamespace = $1::regnamespace`,
      [SCHEMA]
    )
  ).rows;

/**
 * Runs `work` while the holder keeps its locks, and says whether it had to
 * wait for one: if it waits, the holder lets go so it can finish.
 */
async function waitsForLocks(work: () => Promise<unknown>): Promise<{ waited: string[] }> {
  let done = false;
  const waited: string[] = [];
  const running = work().finally(() => {
    done = true;
  });
  while (!done) {
    const found = await waiting();
    if (found.length) {
      waited.push(...found.map((l) => `${l.mode} on ${l.name}`));
      await holder.query("ROLLBACK");
      break;
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  await running;
  return { waited };
}

describe("seed of a store", () => {
  const store = () => makeStore({ schema: SCHEMA, table: "events" });

  it("on a current schema, takes no lock that waits for running writers", async () => {
    const first = store();
    await first.seed();
    await first.dispose();
    await holdWriterLocks();
    const second = store(); // another process starting on the same tables
    expect(await waitsForLocks(() => second.seed())).toEqual({ waited: [] });
    await second.dispose();
  });

  it("migrates a schema a different library version stamped, or one changed by hand", async () => {
    const damages = [
      `COMMENT ON TABLE ${SCHEMA}.events IS 'act-pg schema 0000000000000000 catalog x'`,
      `COMMENT ON TABLE ${SCHEMA}.events IS NULL`,
      `DROP INDEX ${SCHEMA}.events_timers_pending`,
      `ALTER TABLE ${SCHEMA}.events_watermarks DROP COLUMN ahead`,
    ];
    for (const damage of damages) {
      await sql(damage);
      await holdWriterLocks();
      const s = store();
      // The DDL runs: it waits for the writer like any migration.
      const { waited } = await waitsForLocks(() => s.seed());
      expect(waited.length, damage).toBeGreaterThan(0);
      await holder.end();
      // Repaired: the next seed finds it current again.
      await holdWriterLocks();
      expect(await waitsForLocks(() => s.seed()), damage).toEqual({ waited: [] });
      await holder.end();
      await s.dispose();
    }
    const [{ indexes, columns }] = await sql(
      `SELECT (SELECT count(*) FROM pg_indexes WHERE schemaname = $1 AND indexname = 'events_timers_pending')::int AS indexes,
         (SELECT count(*) FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'events_watermarks' AND column_name = 'ahead')::int AS columns`,
      [SCHEMA]
    );
    expect({ indexes, columns }).toEqual({ indexes: 1, columns: 1 });
  });
});

describe("migrate of shared tables", () => {
  it("on current tables, takes no lock that waits for running writers; a dropped policy is put back", async () => {
    const strategy = () => postgresSharedTenants({ connectionString: connectionString(), schema: SCHEMA, max: 2 });
    await sql(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    const first = strategy();
    await first.migrate();
    await first.dispose();
    await holdWriterLocks();
    const second = strategy();
    expect(await waitsForLocks(() => second.migrate())).toEqual({ waited: [] });
    await holder.end();
    await sql(`DROP POLICY act_tenant_rows ON ${SCHEMA}.events_timers`);
    await second.migrate();
    const policies = await sql(
      `SELECT count(*)::int AS n FROM pg_policy WHERE polrelid = '${SCHEMA}.events_timers'::regclass AND polname = 'act_tenant_rows'`
    );
    expect(policies).toEqual([{ n: 1 }]);
    await second.dispose();
  });
});
