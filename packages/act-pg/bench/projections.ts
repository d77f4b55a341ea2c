/**
 * The projection figures of the act-pg benchmark: events projected per
 * second into a table of the store's database with a handler per event
 * (one upsert each) and with a batched handler (one bulk upsert per drain),
 * each in the projection's own transaction with its position; and the time
 * a new version of the batched projection takes to rebuild from 100,000
 * events. Drops and seeds the store's table first: run it last.
 */
import { act, projection } from "@act-root/act";
import { projectionRate } from "../../act/bench/projection-rate.js";
import { performance } from "node:perf_hooks";
import type pg from "pg";
import type { PostgresStore } from "../src/index.js";
import { Counter } from "../test/fixtures/states.js";

const meta = { correlation: "bench", causation: {} };

/** Commits `count` increments over 100 streams, 1,000 per commit. */
async function seed(pgStore: PostgresStore, count: number) {
  for (let n = 0; n < count; n += 1_000)
    await pgStore.commit({
      stream: `p-${(n / 1_000) % 100}`,
      messages: Array.from({ length: Math.min(1_000, count - n) }, (_, i) => ({
        name: "Incremented",
        data: { by: 1 + (i % 3) },
      })),
      meta,
    });
}

const upsert = (table: string) =>
  `INSERT INTO ${table} AS t (stream, total) SELECT * FROM unnest($1::text[], $2::bigint[])
   ON CONFLICT (stream) DO UPDATE SET total = t.total + EXCLUDED.total`;

/** Totals per stream, one upsert per event. */
const perEvent = (table: string) =>
  projection<pg.PoolClient>(`per-event-${table}`)
    .with(Counter)
    .on("Incremented", async (event, client) => {
      await client.query(upsert(table), [[event.stream], [event.data.by]]);
    })
    .build();

/** Totals per stream, one bulk upsert per batch. */
const batched = (table: string, version = 1) =>
  projection<pg.PoolClient>(`batched-${table}`, { version })
    .with(Counter)
    .batch(["Incremented"], async (events, client) => {
      const sums = new Map<string, number>();
      for (const e of events) sums.set(e.stream, (sums.get(e.stream) ?? 0) + e.data.by);
      await client.query(upsert(table), [[...sums.keys()], [...sums.values()]]);
    })
    .build();

type Doer = { do: (...args: any[]) => Promise<unknown> };

/**
 * Sequential actions per second of two apps, 2,000 increments each over 20
 * streams after 100 to warm up, in alternating slices of 200 so that load
 * from other processes hits both alike; and the median of the slices'
 * ratios (second ÷ first).
 */
async function actions(first: Doer, second: Doer): Promise<[number, number, number]> {
  const actor = { id: "bench", name: "bench" };
  const run = async (app: Doer, prefix: string, from: number, count: number) => {
    const t = performance.now();
    for (let i = from; i < from + count; i++)
      await app.do("increment", { stream: `${prefix}-${i % 20}`, actor }, { by: 1 });
    return performance.now() - t;
  };
  await run(first, "plain", 0, 100);
  await run(second, "inline", 0, 100);
  const ms = [0, 0];
  const ratios: number[] = [];
  for (let slice = 0; slice < 10; slice++) {
    const a = await run(first, "plain", 100 + slice * 200, 200);
    const b = await run(second, "inline", 100 + slice * 200, 200);
    ms[0] += a;
    ms[1] += b;
    ratios.push(a / b);
  }
  const median = [...ratios].sort((x, y) => x - y)[5];
  return [2_000 / (ms[0] / 1000), 2_000 / (ms[1] / 1000), median];
}

/** Runs the projection figures against `pgStore` (the store port's adapter) and `admin` (a client of the same database). */
export async function benchProjections(pgStore: PostgresStore, admin: pg.Client): Promise<Record<string, number>> {
  await pgStore.drop();
  await pgStore.seed();
  for (const table of ["bench_pe", "bench_b10", "bench_b10f", "bench_b1000", "bench_rebuild"])
    await admin.query(`DROP TABLE IF EXISTS ${table}; CREATE TABLE ${table} (stream text PRIMARY KEY, total bigint)`);
  const results: Record<string, number> = {};
  await seed(pgStore, 10_000);
  // The defaults first: a batch grows from eventLimit (10) while it stays fast.
  results.projection_per_event_events_per_s_defaults = Math.round(
    await projectionRate(Counter, perEvent("bench_pe"), 10_000)
  );
  results.projection_batched_events_per_s_defaults = Math.round(
    await projectionRate(Counter, batched("bench_b10"), 10_000)
  );
  // Fixed batches of 10, as before batch sizes were learned.
  results.projection_batched_events_per_s_fixed_10 = Math.round(
    await projectionRate(Counter, batched("bench_b10f"), 10_000, { eventLimit: 10, backlogMillis: 0 })
  );
  await seed(pgStore, 90_000);
  results.projection_batched_events_per_s_limit_1000 = Math.round(
    await projectionRate(Counter, batched("bench_b1000"), 100_000, { eventLimit: 1_000 })
  );

  // Rebuild: a new version beside the caught-up one, with a running consumer.
  const v1 = batched("bench_rebuild");
  const v2 = batched("bench_rebuild", 2);
  const app = act().with(Counter).with(v1).with(v2).build();
  await app.correlate({ limit: 1_000_000 });
  const t = performance.now();
  app.start({ eventLimit: 1_000, pollMillis: 20 });
  const done = await app.rebuild(v2, { progressMillis: 50 });
  results.projection_rebuild_100k_events_s = Number(((performance.now() - t) / 1000).toFixed(2));
  results.projection_rebuild_events = done.total;
  await app.stop();

  // Inline: what writing the read model inside each action's transaction costs the action.
  await admin.query(
    "DROP TABLE IF EXISTS bench_inline; CREATE TABLE bench_inline (stream text PRIMARY KEY, total bigint)"
  );
  const inline = projection<pg.PoolClient>("bench-inline", { inline: true })
    .with(Counter)
    .on("Incremented", async (event, client) => {
      await client.query(upsert("bench_inline"), [[event.stream], [event.data.by]]);
    })
    .build();
  const [without, inlined, ratio] = await actions(
    act().with(Counter).build(),
    act().with(Counter).with(inline).build()
  );
  results.actions_per_s_without_projection = Math.round(without);
  results.actions_per_s_inline_projection = Math.round(inlined);
  results.actions_inline_ratio_to_without = Number(ratio.toFixed(2));
  for (const table of ["bench_pe", "bench_b10", "bench_b10f", "bench_b1000", "bench_rebuild", "bench_inline"])
    await admin.query(`DROP TABLE ${table}`);
  return results;
}

/** Run directly (`npx tsx bench/projections.ts`): the projection figures alone, as JSON. */
async function main() {
  const { benchDatabase, emptyStore, withClient } = await import("./database.js");
  const { store } = await import("@act-root/act");
  const database = await benchDatabase();
  try {
    await withClient(database.url, async (admin) => {
      const pgStore = (await emptyStore(database.url, "act_projections")) as PostgresStore;
      console.log(JSON.stringify(await benchProjections(pgStore, admin)));
      await pgStore.drop();
      await store().dispose();
    });
  } finally {
    await database.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`)
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
