/**
 * The projection figures of the SQLite benchmark: events projected per
 * second into a table of the store's own file, with a handler per event (one
 * upsert each) and with a batched handler (one upsert per stream of the
 * batch), each in the projection's transaction with its position — with the
 * default drain options (the batch grows from `eventLimit` while it stays
 * fast) and with fixed batches of 10 for comparison; and sequential actions
 * with an inline projection (one upsert in the commit's transaction) against
 * the same actions without it. Drops and seeds the store first.
 */
import { act, projection } from "@act-root/act";
import { performance } from "node:perf_hooks";
import { projectionRate } from "../../act/bench/projection-rate.js";
import { Counter } from "../../act/bench/states.js";
import type { Connection, SqliteStore } from "../src/index.js";

const meta = { correlation: "bench", causation: {} };

const upsert = (table: string) =>
  `INSERT INTO ${table} (stream, total) VALUES (?, ?) ON CONFLICT (stream) DO UPDATE SET total = total + excluded.total`;

/** Totals per stream, one upsert per event. */
const perEvent = (table: string) =>
  projection<Connection>(`per-event-${table}`)
    .with(Counter)
    .on("Incremented", (event, db) => {
      db.prepare(upsert(table)).run(event.stream, event.data.by);
    })
    .build();

/** Totals per stream, one upsert per stream of each batch. */
const batched = (table: string) =>
  projection<Connection>(`batched-${table}`)
    .with(Counter)
    .batch(["Incremented"], (events, db) => {
      const sums = new Map<string, number>();
      for (const e of events) sums.set(e.stream, (sums.get(e.stream) ?? 0) + e.data.by);
      const statement = db.prepare(upsert(table));
      for (const [stream, total] of sums) statement.run(stream, total);
    })
    .build();

/** Totals per stream, upserted in each commit's transaction; the statement is prepared per event, as the guides show. */
const inline = (table: string) =>
  projection<Connection>(`inline-${table}`, { inline: true })
    .with(Counter)
    .on("Incremented", (event, db) => {
      db.prepare(upsert(table)).run(event.stream, event.data.by);
    })
    .build();

/**
 * Sequential actions per second without and with an inline projection,
 * 2,000 each over 20 streams after 100 to warm up, in alternating slices of
 * 200 (load from other processes hits both alike), and the median of the
 * slices' ratios (with ÷ without).
 */
async function inlineActions(table: string): Promise<Record<string, number>> {
  const actor = { id: "bench", name: "bench" };
  type Doer = { do: (...args: any[]) => Promise<unknown> };
  const apps: [Doer, Doer] = [act().with(Counter).build(), act().with(Counter).with(inline(table)).build()];
  const run = async (app: Doer, prefix: string, from: number, count: number) => {
    const t = performance.now();
    for (let i = from; i < from + count; i++)
      await app.do("increment", { stream: `${prefix}-${i % 20}`, actor }, { by: 1 });
    return performance.now() - t;
  };
  await run(apps[0], "plain", 0, 100);
  await run(apps[1], "inline", 0, 100);
  const ms = [0, 0];
  const ratios: number[] = [];
  for (let slice = 0; slice < 10; slice++) {
    const a = await run(apps[0], "plain", 100 + slice * 200, 200);
    const b = await run(apps[1], "inline", 100 + slice * 200, 200);
    ms[0] += a;
    ms[1] += b;
    ratios.push(a / b);
  }
  return {
    actions_per_s_without_projection: Math.round(2_000 / (ms[0] / 1000)),
    actions_per_s_inline_projection: Math.round(2_000 / (ms[1] / 1000)),
    actions_inline_ratio_to_without: Number([...ratios].sort((x, y) => x - y)[5].toFixed(2)),
  };
}

/** Runs the projection figures on `sqlite` (the store port's adapter) and `db`, a connection to its file. */
export async function benchProjections(sqlite: SqliteStore, db: Connection): Promise<Record<string, number>> {
  await sqlite.drop();
  await sqlite.seed();
  for (const table of ["bench_pe", "bench_b", "bench_bf"])
    db.exec(`DROP TABLE IF EXISTS ${table}; CREATE TABLE ${table} (stream TEXT PRIMARY KEY, total INTEGER)`);
  // 10,000 increments over 100 streams, 1,000 per commit.
  for (let n = 0; n < 10_000; n += 1_000)
    await sqlite.commit({
      stream: `p-${(n / 1_000) % 100}`,
      messages: Array.from({ length: 1_000 }, (_, i) => ({ name: "Incremented", data: { by: 1 + (i % 3) } })),
      meta,
    });
  db.exec("DROP TABLE IF EXISTS bench_inline; CREATE TABLE bench_inline (stream TEXT PRIMARY KEY, total INTEGER)");
  return {
    ...(await inlineActions("bench_inline")),
    projection_per_event_events_per_s_defaults: Math.round(await projectionRate(Counter, perEvent("bench_pe"), 10_000)),
    projection_batched_events_per_s_defaults: Math.round(await projectionRate(Counter, batched("bench_b"), 10_000)),
    projection_batched_events_per_s_fixed_10: Math.round(
      await projectionRate(Counter, batched("bench_bf"), 10_000, { eventLimit: 10, backlogMillis: 0 })
    ),
  };
}

/** Run directly (`npx tsx bench/projections.ts`): the projection figures alone, on a file of a fresh folder, as JSON. */
async function main() {
  const { store } = await import("@act-root/act");
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const { open } = await import("../src/driver.js");
  const { SqliteStore } = await import("../src/index.js");
  const dir = mkdtempSync(join(tmpdir(), "act-sqlite-projections-"));
  const filename = join(dir, "app.db");
  const sqlite = new SqliteStore({ filename });
  store(sqlite);
  const db = open(filename);
  try {
    console.log(JSON.stringify(await benchProjections(sqlite, db)));
  } finally {
    db.close();
    await store().dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`)
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
