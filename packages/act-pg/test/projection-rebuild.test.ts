/**
 * Projections on Postgres: the read model in the store's database, rebuilt
 * into a new version over 100,000 events while writes go on and readers
 * keep reading through a view that switches over in one statement.
 */
import { act, type Projection, projection, store } from "@act-root/act";
import type pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { PostgresStore } from "../src/index.js";
import { Counter } from "./fixtures/states.js";
import { makeStore, sleep, sql } from "./support.js";

const TABLE = "rebuild";
let pgStore: PostgresStore;

beforeAll(async () => {
  pgStore = makeStore({ table: TABLE });
  store(pgStore);
  await pgStore.drop();
  await pgStore.seed();
  await sql("DROP VIEW IF EXISTS rebuild_totals");
  await sql("DROP TABLE IF EXISTS rebuild_v1, rebuild_v2");
  await sql("CREATE TABLE rebuild_v1 (stream text PRIMARY KEY, total bigint NOT NULL)");
  await sql("CREATE TABLE rebuild_v2 (stream text PRIMARY KEY, total bigint NOT NULL)");
  await sql("CREATE VIEW rebuild_totals AS SELECT * FROM rebuild_v1");
});
afterAll(async () => {
  await pgStore.drop();
  await pgStore.dispose();
  await sql("DROP VIEW IF EXISTS rebuild_totals");
  await sql("DROP TABLE IF EXISTS rebuild_v1, rebuild_v2");
});

/** Totals per stream, one bulk upsert per batch, in `table`. */
const totals = (version: number, table: string): Projection<any, pg.PoolClient> =>
  projection<pg.PoolClient>("Totals", { version })
    .with(Counter)
    .batch(["Incremented"], async (events, client) => {
      const sums = new Map<string, number>();
      for (const e of events) sums.set(e.stream, (sums.get(e.stream) ?? 0) + e.data.by);
      await client.query(
        `INSERT INTO ${table} AS t (stream, total) SELECT * FROM unnest($1::text[], $2::bigint[])
         ON CONFLICT (stream) DO UPDATE SET total = t.total + EXCLUDED.total`,
        [[...sums.keys()], [...sums.values()]]
      );
    })
    .build();

const fold = async () =>
  Object.fromEntries(
    (
      await sql<{ stream: string; total: string }>(
        `SELECT stream, sum((data->>'by')::bigint)::text AS total FROM ${TABLE} WHERE name = 'Incremented' GROUP BY stream`
      )
    ).map((r) => [r.stream, Number(r.total)])
  );
const read = async (from: string) =>
  Object.fromEntries(
    (await sql<{ stream: string; total: string }>(`SELECT stream, total::text FROM ${from}`)).map((r) => [
      r.stream,
      Number(r.total),
    ])
  );
const sumOf = (rows: Record<string, number>) => Object.values(rows).reduce((a, b) => a + b, 0);

it("rebuilds 100,000 events into a new version while writes go on, then switches readers over at once", async () => {
  const meta = { correlation: "seed", causation: {} };
  for (let s = 0; s < 100; s++)
    await pgStore.commit({
      stream: `c-${s}`,
      messages: Array.from({ length: 1_000 }, (_, i) => ({ name: "Incremented", data: { by: 1 + (i % 3) } })),
      meta,
    });
  const V1 = totals(1, "rebuild_v1");
  const V2 = totals(2, "rebuild_v2");
  const drain = { eventLimit: 2_000, pollMillis: 50 };
  const live = act().with(Counter).with(V1).build();
  live.start(drain);
  await live.projected(V1, (await live.query({ backward: true, limit: 1 })).last!.id, { timeoutMillis: 55_000 });
  const before = sumOf(await read("rebuild_totals"));
  expect(before).toBe(sumOf(await fold()));

  // Writes go on, and readers keep reading the view, during the whole rebuild.
  let writing = true;
  const writer = (async () => {
    for (let n = 0; writing; n++) {
      await live.do("increment", { stream: `c-${n % 100}`, actor: { id: "w", name: "writer" } }, { by: 1 });
      await sleep(5);
    }
  })();
  const seen: number[] = [];
  const reader = (async () => {
    while (writing) {
      seen.push(sumOf(await read("rebuild_totals")));
      await sleep(20);
    }
  })();

  const next = act().with(Counter).with(V1).with(V2).build();
  next.start(drain);
  const progress: number[] = [];
  const done = await next.rebuild(V2, {
    progressMillis: 250,
    onProgress: ({ projected }) => progress.push(projected),
    switchOver: () => sql("CREATE OR REPLACE VIEW rebuild_totals AS SELECT * FROM rebuild_v2"),
  });
  await sleep(300); // readers on the new version while writes still go on
  writing = false;
  await Promise.all([writer, reader]);

  expect(done).toMatchObject({ done: true, stream: "projection:Totals:v2" });
  expect(done.total).toBeGreaterThanOrEqual(100_000);
  expect(done.projected).toBe(done.total);
  expect(progress.length).toBeGreaterThan(1);
  expect(progress).toEqual([...progress].sort((a, b) => a - b)); // progress only goes forward
  // No reader ever saw a half-built read model: never less than before the rebuild started.
  expect(seen.length).toBeGreaterThan(5);
  expect(Math.min(...seen)).toBeGreaterThanOrEqual(before);

  const last = (await next.query({ backward: true, limit: 1 })).last!.id;
  await next.projected(V2, last, { timeoutMillis: 30_000 });
  await next.projected(V1, last, { timeoutMillis: 30_000 });
  await Promise.all([live.stop(), next.stop()]);
  const expected = await fold();
  expect(await read("rebuild_totals")).toEqual(expected);
  expect(await read("rebuild_v1")).toEqual(expected);
}, 120_000);
