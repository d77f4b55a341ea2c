/**
 * A worker process for the cross-process latency benchmark: runs the ledger
 * reaction with a running consumer (`app.start()`) until told to stop, then
 * sends each reaction's commit-to-handled time (ms); told to `restart`, it
 * sends those so far and counts anew. `POLL_ONLY=1`
 * turns off the store's wake-ups, so only polling finds the work.
 */
import { act, store } from "@act-root/act";
import { PostgresStore } from "../src/index.js";
import { Counter } from "../test/fixtures/states.js";
import { Ledger } from "./ledger.js";

const pgStore = new PostgresStore({ connectionString: process.env.DATABASE_URL, table: process.env.TABLE });
if (process.env.POLL_ONLY) (pgStore as { subscribe?: unknown }).subscribe = undefined;
store(pgStore);
const latencies: number[] = [];
const actor = { id: "worker", name: "worker" };
const app = act()
  .with(Counter)
  .with(Ledger)
  .on("Incremented")
  .do(async (event, stream, app) => {
    await app.do("post", { stream, actor }, { by: event.data.by }, { reactingTo: event });
    latencies.push(Date.now() - event.created.getTime());
  })
  .to((event) => ({ target: `ledger-${event.stream}` }))
  .build();
app.start({ pollMillis: Number(process.env.POLL_MS ?? 1_000) });
process.send?.("ready");
process.on("message", async (m) => {
  // The benchmark's start-up phase is over: hand over its latencies, count anew.
  if (m === "restart") {
    process.send?.({ restarted: latencies.splice(0) });
    return;
  }
  if (m !== "stop") return;
  await app.stop();
  process.send?.({ latencies });
  await pgStore.dispose();
  process.disconnect?.();
});
