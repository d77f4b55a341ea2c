/**
 * Timers through kills on PostgreSQL: the firing processes
 * (`tools/timer-firer.ts`) use the test's table (see `timersChaosSuite` for
 * the run and what it checks).
 */
import { fileURLToPath } from "node:url";
import { timersChaosSuite } from "../../act/test/timers-chaos.suite.js";
import { forkWorker } from "../tools/fork-worker.js";
import { connectionString, makeStore } from "./support.js";

const TABLE = "timer_chaos";
const firer = fileURLToPath(new URL("../tools/timer-firer.ts", import.meta.url));

timersChaosSuite({
  async open() {
    const pg = makeStore({ table: TABLE });
    await pg.drop();
    await pg.seed();
    return pg;
  },
  start: (children, env) => forkWorker(firer, { ...env, DATABASE_URL: connectionString() ?? "", TABLE }, children),
  close: (pg) => pg.drop(),
});
