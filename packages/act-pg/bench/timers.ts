/**
 * Timers at size on PostgreSQL (see `packages/act/bench/timers.ts` for the
 * figures and the `TIMER_BENCH_TIMERS` and `TIMER_BENCH_DUE` knobs). Uses
 * `DATABASE_URL` when set, otherwise starts a throwaway server with the
 * durable defaults.
 */
import { store } from "@act-root/act";
import { timersBench } from "../../act/bench/timers.js";
import { PostgresStore } from "../src/index.js";
import { type PgServer, startServer } from "../tools/pg-server.js";

async function main() {
  let server: PgServer | undefined;
  let url = process.env.DATABASE_URL;
  if (!url) {
    server = await startServer({ durable: true });
    url = server.url;
  }
  try {
    await timersBench({
      label: "PostgresStore",
      async fresh() {
        const adapter = new PostgresStore({ connectionString: url, table: "timers_bench" });
        await adapter.drop();
        await adapter.seed();
        return store(adapter);
      },
    });
    await store().drop();
    await store().dispose();
  } finally {
    await server?.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
