/**
 * When the next timer is due — what a running consumer asks after each idle
 * drain — is found through the timers table's indexes: the earliest due
 * timer no claim holds past its due time, and the earliest end of the claims
 * that do, never by reading every pending timer. The counts of `app.stats()`
 * are answered by the pending index too, never by reading the timers table.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { at, countScenario, nextDueScenario, scheduleMany } from "../../act/test/timer-plans.suite.js";
import type { PostgresStore } from "../src/index.js";
import * as q from "../src/timer-sql.js";
import { names } from "../src/sql.js";
import { makeStore, sql } from "./support.js";

const TABLE = "timer_plans";
let pg: PostgresStore;

beforeAll(async () => {
  pg = makeStore({ table: TABLE });
  await pg.drop();
  await pg.seed();
});

afterAll(async () => {
  await pg.drop();
  await pg.dispose();
});

it("finds when the next timer is due through its indexes, not by reading every pending timer", async () => {
  await nextDueScenario(pg.timers);
  await sql(`ANALYZE public.${TABLE}_timers`);
  const plan = (await sql(`EXPLAIN ${q.nextTimer(names("public", TABLE)).replaceAll("$1::text[]", "ARRAY['a']")}`))
    .map((r) => r["QUERY PLAN"])
    .join("\n");
  expect(plan).not.toMatch(/Seq Scan/);
  expect(plan).toMatch(new RegExp(`${TABLE}_timers_pending`));
  expect(plan).toMatch(new RegExp(`${TABLE}_timers_claimed`));
});

it("counts the pending and overdue timers through the pending index, not by reading the table", async () => {
  const table = `${TABLE}_count`;
  const store = makeStore({ table });
  await store.drop();
  await store.seed();
  try {
    await countScenario(store.timers);
    // As autovacuum leaves a table that has seen many ends: its visibility map set, so the index answers alone.
    await sql(`VACUUM ANALYZE public.${table}_timers`);
    const plan = (
      await sql(`EXPLAIN ${q.countTimers(names("public", table)).replaceAll("$1::bigint", String(at(49).getTime()))}`)
    )
      .map((r) => r["QUERY PLAN"])
      .join("\n");
    expect(plan).not.toMatch(/Seq Scan/);
    expect(plan.match(new RegExp(`${table}_timers_pending`, "g"))?.length).toBe(2);
    // The overdue ones are a search of the index's start, not a filter over every pending entry.
    expect(plan).toMatch(/Index Cond: \(due <= /);
  } finally {
    await store.drop();
    await store.dispose();
  }
});

it("records an outcome through the primary key in a timers table never analysed, not by reading the pending timers", async () => {
  const table = `${TABLE}_settle`;
  const store = makeStore({ table });
  await store.drop();
  await store.seed();
  try {
    // A new app's table: timers just scheduled, no statistics yet (no ANALYZE here).
    await scheduleMany(store.timers);
    const [claimed] = await store.timers.claim({ now: at(0), by: "p", millis: 1_000, limit: 1, actions: ["a"] });
    const outcome = {
      id: claimed.id,
      holder: "p",
      token: claimed.token,
      at: at(1).getTime(),
      error: null,
      retry_at: null,
    };
    const plan = (
      await sql(
        `EXPLAIN ${q
          .settleTimers(names("public", table))
          .replace("$1::json", `'${JSON.stringify([outcome])}'::json`)
          .replace("$2::text[]", `ARRAY['${claimed.id}']`)}`
      )
    )
      .map((r) => r["QUERY PLAN"])
      .join("\n");
    expect(plan).toMatch(new RegExp(`Index Scan using ${table}_timers_pkey`));
    expect(plan).not.toMatch(/Seq Scan|Bitmap Heap Scan/);
    expect(await store.timers.settle([{ id: claimed.id, by: "p", token: claimed.token, at: at(1) }])).toEqual([
      claimed.id,
    ]);
  } finally {
    await store.drop();
    await store.dispose();
  }
});
