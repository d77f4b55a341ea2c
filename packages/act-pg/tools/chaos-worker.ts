/**
 * A worker process of the chaos run (`tools/chaos.ts`), started with
 * `node --import tsx`. It runs the app's consumer (`app.start()`) against the
 * table in `TABLE` until it is killed or sent SIGTERM.
 *
 * Three releases of the app exist: `RELEASE=current` has both reactions,
 * `RELEASE=old` lacks `notify` — a worker left over from the previous release
 * during a rolling deploy — and `RELEASE=next`, deployed during the run, adds
 * a reaction (`audit`) and a projection (`Totals`, rows in `chaos_totals`
 * written in the projection's transaction). Each handler records that it
 * ran in `chaos_runs`, then asks for an idempotent action (the effect): the
 * store keeps its key, so the effect is committed once however often the
 * handler runs.
 */
import { act, dispose, projection, state, store } from "@act-root/act";
import pg from "pg";
import { z } from "zod";
import { PostgresStore } from "../src/index.js";
import { Job } from "../test/fixtures/states.js";

const env = process.env;
const connectionString = env.DATABASE_URL || undefined;
const release = env.RELEASE === "old" || env.RELEASE === "next" ? env.RELEASE : "current";
const applicationName = `chaos-worker-${process.pid}`;
const leaseMillis = Number(env.LEASE_MS ?? 1_500);

store(new PostgresStore({ connectionString, table: env.TABLE ?? "chaos", applicationName }));
const runs = new pg.Pool({ connectionString, max: 2, application_name: applicationName });
runs.on("error", () => {});

/** The effect: one event per (event, reaction), committed under an idempotency key. */
const Effect = state("Effect", z.object({ done: z.boolean() }))
  .init(() => ({ done: false }))
  .emits({ Recorded: z.object({ event: z.number(), reaction: z.string() }) })
  .patch({ Recorded: () => ({ done: true }) })
  .on("record", z.object({ event: z.number(), reaction: z.string() }))
  .emit((payload) => ["Recorded", payload])
  .build();

const actor = { id: "chaos", name: "chaos worker" };

/** Records that a handler ran (every run, repeats included). */
const ran = (reaction: string, id: number) =>
  runs.query("INSERT INTO chaos_runs (event_id, reaction, pid, release) VALUES ($1, $2, $3, $4)", [
    id,
    reaction,
    process.pid,
    release,
  ]);

/** The effect's target: one stream per (event, reaction), under an idempotency key. */
const once = (id: number, reaction: string) => ({ stream: `fx-${id}-${reaction}`, actor, idempotencyKey: "once" });

const options = { maxRetries: 50, retryBaseMillis: 20, retryMaxMillis: 200 };
const base = act()
  .with(Job)
  .with(Effect)
  .on("Queued")
  .do(async function ledger(event, _stream, app) {
    await ran("ledger", event.id);
    await app.do("record", once(event.id, "ledger"), { event: event.id, reaction: "ledger" }, { reactingTo: event });
  }, options)
  .to((e) => ({ target: `ledger-${e.stream}`, source: e.stream }));
// `notify` shares the ledger stream of even-numbered sources and has a stream
// of its own for the others: old workers must leave both kinds alone.
const current = base
  .on("Queued")
  .do(async function notify(event, _stream, app) {
    await ran("notify", event.id);
    await app.do("record", once(event.id, "notify"), { event: event.id, reaction: "notify" }, { reactingTo: event });
  }, options)
  .to((e) => ({
    target: Number(e.stream.split("-")[1]) % 2 ? `notify-${e.stream}` : `ledger-${e.stream}`,
    source: e.stream,
  }));
/** The read model `next` adds: one row per event, written in the transaction that moves its position. */
const Totals = projection<pg.PoolClient>("Totals", { maxRetries: 50, retryBaseMillis: 20, retryMaxMillis: 200 })
  .with(Job)
  .on("Queued", async (event, client) => {
    await client.query("INSERT INTO chaos_totals (event_id, pid) VALUES ($1, $2)", [event.id, process.pid]);
  })
  .build();
const app =
  release === "old"
    ? base.build()
    : release === "current"
      ? current.build()
      : current
          .with(Totals)
          .on("Queued")
          .do(async function audit(event, _stream, app) {
            await ran("audit", event.id);
            await app.do(
              "record",
              once(event.id, "audit"),
              { event: event.id, reaction: "audit" },
              { reactingTo: event }
            );
          }, options)
          // Like notify, audit joins the ledger streams of some sources (every
          // third): streams whose watermark the running releases have already
          // moved past events audit must still run for.
          .to((e) => ({
            target: Number(e.stream.split("-")[1]) % 3 ? `audit-${e.stream}` : `ledger-${e.stream}`,
            source: e.stream,
          }))
          .build();

app.start({ leaseMillis, pollMillis: 100 });
dispose(async () => {
  await runs.end();
});
process.send?.("ready");
