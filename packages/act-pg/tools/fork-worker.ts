/**
 * Starts a worker process of the chaos and projection crash runs: a
 * TypeScript file run with `node --import tsx`, its stderr kept for the
 * error if it dies before saying it is ready (its first IPC message).
 */
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";

const tsconfig = fileURLToPath(new URL("../test/fixtures/tsconfig.json", import.meta.url));
const cwd = fileURLToPath(new URL("..", import.meta.url));

/**
 * Forks `script` with `env` added to this process's environment, adds it to
 * `children` until it exits, and resolves once it is ready.
 */
export function forkWorker(
  script: string,
  env: Record<string, string>,
  children: Set<ChildProcess>
): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = fork(script, [], {
      cwd,
      execArgv: ["--import", "tsx"],
      env: { ...process.env, TSX_TSCONFIG_PATH: tsconfig, LOG_LEVEL: "fatal", ...env },
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    let output = "";
    child.stderr!.on("data", (d) => (output += d));
    children.add(child);
    child.once("exit", () => children.delete(child));
    child.once("message", () => resolve(child));
    child.once("exit", (code, signal) => reject(new Error(`worker exited (${code ?? signal}): ${output}`)));
  });
}
