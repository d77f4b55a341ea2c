/**
 * Starts e2e/servers.ts (Postgres and three inspector servers) before the
 * browser tests, hands their URLs to the tests through the environment, and
 * stops them afterwards.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

let child: ChildProcess | undefined;

export default async function setup() {
  const cwd = fileURLToPath(new URL("..", import.meta.url));
  child = spawn(process.execPath, ["--import", "tsx", "e2e/servers.ts"], {
    cwd,
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, LOG_LEVEL: "fatal", NODE_ENV: "test" },
  });
  const urls = await new Promise<Record<string, string>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the inspector's test servers did not start in 60 s")), 60_000);
    child!.once("exit", (code) => reject(new Error(`the inspector's test servers exited (${code})`)));
    createInterface({ input: child!.stdout! }).once("line", (line) => {
      clearTimeout(timer);
      resolve(JSON.parse(line));
    });
  });
  process.env.INSPECTOR_READONLY_URL = urls.readOnly;
  process.env.INSPECTOR_OPERATIONS_URL = urls.operations;
  process.env.INSPECTOR_APP_URL = urls.app;
  process.env.INSPECTOR_DOWN_URL = urls.down;
  process.env.INSPECTOR_SQLITE_READONLY_URL = urls.sqliteReadOnly;
  process.env.INSPECTOR_SQLITE_OPERATIONS_URL = urls.sqliteOperations;
  process.env.INSPECTOR_SIZES_URL = urls.sizes;
  process.env.INSPECTOR_LINKS = urls.links;
  return async () => {
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child!.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  };
}
