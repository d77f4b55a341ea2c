/**
 * Timers through kills on a SQLite file: the firing processes
 * (`fixtures/timer-firer.ts`) share the file with the test (see
 * `timersChaosSuite` for the run and what it checks).
 */
import { fileURLToPath } from "node:url";
import { forkWorker } from "../../act/test/fork-worker.js";
import { timersChaosSuite } from "../../act/test/timers-chaos.suite.js";
import { SqliteStore } from "../src/index.js";
import { tempFile } from "./support.js";

const home = {
  cwd: fileURLToPath(new URL("..", import.meta.url)),
  tsconfig: fileURLToPath(new URL("./fixtures/tsconfig.json", import.meta.url)),
};
const firer = fileURLToPath(new URL("./fixtures/timer-firer.ts", import.meta.url));
const file = tempFile("timers-chaos.db");

timersChaosSuite({
  async open() {
    const sqlite = new SqliteStore({ filename: file });
    await sqlite.seed();
    return sqlite;
  },
  start: (children, env) => forkWorker(home, firer, { ...env, FILE: file }, children),
});
