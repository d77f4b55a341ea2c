/**
 * A worker process of the projection crash run (`tools/projection-crash.ts`),
 * started with `node --import tsx`. It projects `Incremented` events into two
 * tables of the store's database — a running total per stream and a row per
 * application of an event — through the transaction `PostgresStore.project`
 * hands it, with pauses between its statements so that a SIGKILL lands
 * between the read model's writes and the position's as often as anywhere
 * else. `BATCH=1` projects each drain's events with one batched handler.
 */
import { act, dispose, projection, store } from "@act-root/act";
import type pg from "pg";
import { PostgresStore } from "../src/index.js";
import { Counter } from "../test/fixtures/states.js";

const env = process.env;
const table = env.TABLE ?? "projcrash";
const applicationName = `projection-worker-${process.pid}`;
store(new PostgresStore({ connectionString: env.DATABASE_URL || undefined, table, applicationName }));

const pause = () => new Promise((r) => setTimeout(r, Math.random() * 4));
type Incremented = { id: number; stream: string; data: { by: number } };

/** Applies one event: records the application, pauses, adds to the stream's total. */
async function apply(client: pg.PoolClient, event: Incremented) {
  await client.query(`INSERT INTO ${table}_applied (event_id, pid) VALUES ($1, $2)`, [event.id, process.pid]);
  await pause();
  await client.query(
    `INSERT INTO ${table}_totals AS t (stream, total, events) VALUES ($1, $2, 1)
     ON CONFLICT (stream) DO UPDATE SET total = t.total + EXCLUDED.total, events = t.events + 1`,
    [event.stream, event.data.by]
  );
}

const totals = projection<pg.PoolClient>("Totals").with(Counter);
const Totals =
  env.BATCH === "1"
    ? totals
        .batch(["Incremented"], async (events, client) => {
          for (const event of events) await apply(client, event);
          await pause();
        })
        .build()
    : totals.on("Incremented", (event, client) => apply(client, event)).build();

const app = act().with(Counter).with(Totals).build();
app.start({ leaseMillis: Number(env.LEASE_MS ?? 1_500), pollMillis: 50, eventLimit: 25 });
dispose();
process.send?.("ready");
