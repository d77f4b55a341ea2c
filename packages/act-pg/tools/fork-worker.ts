/**
 * Starts a worker process of the chaos and projection crash runs from this
 * package (see `forkWorker` in the core's tests, which both stores' runs use).
 */
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { forkWorker as fork } from "../../act/test/fork-worker.js";

const home = {
  cwd: fileURLToPath(new URL("..", import.meta.url)),
  tsconfig: fileURLToPath(new URL("../test/fixtures/tsconfig.json", import.meta.url)),
};

/**
 * Forks `script` with `env` added to this process's environment, adds it to
 * `children` until it exits, and resolves once it is ready.
 */
export function forkWorker(
  script: string,
  env: Record<string, string>,
  children: Set<ChildProcess>
): Promise<ChildProcess> {
  return fork(home, script, env, children);
}
