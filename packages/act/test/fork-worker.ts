/**
 * Starts a worker process of the stores' crash and kill runs: a TypeScript
 * file run with `node --import tsx`, its stderr kept for the error if it
 * dies before saying it is ready (its first IPC message).
 */
import { type ChildProcess, fork } from "node:child_process";

/** Where a package runs its workers from. */
export type WorkerHome = {
  /** The package folder: the worker's working directory. */
  readonly cwd: string;
  /** The tsconfig `tsx` compiles the worker with. */
  readonly tsconfig: string;
};

/**
 * Forks `script` from `home` with `env` added to this process's environment,
 * adds it to `children` until it exits, and resolves once it is ready.
 */
export function forkWorker(
  home: WorkerHome,
  script: string,
  env: Record<string, string>,
  children: Set<ChildProcess>
): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = fork(script, [], {
      cwd: home.cwd,
      execArgv: ["--import", "tsx"],
      env: { ...process.env, TSX_TSCONFIG_PATH: home.tsconfig, LOG_LEVEL: "fatal", ...env },
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

/** Ends `child` with `signal` and waits for it to exit (at once if it has). */
export async function endWorker(child: ChildProcess, signal: "SIGKILL" | "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill(signal);
  await exited;
}
