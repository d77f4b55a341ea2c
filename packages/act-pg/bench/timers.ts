/**
 * Timers at size on PostgreSQL (see `packages/act/bench/timers.ts` for the
 * figures and the `TIMER_BENCH_TIMERS` and `TIMER_BENCH_DUE` knobs). Uses
 * `DATABASE_URL` when set, otherwise starts a throwaway server with the
 * durable defaults.
 */
import { store } from "@act-root/act";
import { timersBench } from "../../act/bench/timers.js";
import { benchDatabase, emptyStore } from "./database.js";

async function main() {
  const database = await benchDatabase();
  try {
    await timersBench({ label: "PostgresStore", fresh: () => emptyStore(database.url, "timers_bench") });
    await store().drop();
    await store().dispose();
  } finally {
    await database.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
