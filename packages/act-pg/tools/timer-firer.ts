/**
 * A process that fires timers, for the timers' kill test
 * (`test/timers-chaos.test.ts`), run with `node --import tsx`: the app's
 * consumer (`app.start()`) on the table `TABLE` of `DATABASE_URL`, whose
 * only action — `queue`, emitting `Queued` — is what the test's timers run.
 * Claims last `LEASE_MS`, so a killed process's claims free soon. Says
 * "ready" once started; runs until killed or sent SIGTERM.
 */
import { act, store } from "@act-root/act";
import { PostgresStore } from "../src/index.js";
import { Job } from "../test/fixtures/states.js";

store(
  new PostgresStore({
    connectionString: process.env.DATABASE_URL || undefined,
    table: process.env.TABLE ?? "timer_chaos",
    applicationName: `timer-firer-${process.pid}`,
  })
);
act()
  .with(Job)
  .build()
  .start({ leaseMillis: Number(process.env.LEASE_MS ?? 1_000), pollMillis: 50 });
process.send?.("ready");
