/**
 * Timers at size on a SqliteStore file (see `packages/act/bench/timers.ts`
 * for the figures and the `TIMER_BENCH_TIMERS` and `TIMER_BENCH_DUE`
 * knobs), in a temporary folder with the default (durable) settings.
 */
import { store } from "@act-root/act";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { timersBench } from "../../act/bench/timers.js";
import { SqliteStore } from "../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "act-sqlite-timers-"));
process.once("exit", () => rmSync(dir, { recursive: true, force: true }));

async function main() {
  await timersBench({
    label: "SqliteStore",
    async fresh() {
      const adapter = new SqliteStore({ filename: join(dir, "timers.db") });
      await adapter.seed();
      return store(adapter);
    },
  });
  await store().dispose();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
