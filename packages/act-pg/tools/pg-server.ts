/**
 * A disposable PostgreSQL server for the tests and the benchmark.
 *
 * Uses the server binaries of the machine (Debian's `postgresql-15`, found
 * with `pg_config --bindir` or under `/usr/lib/postgresql/<n>/bin`). The data
 * directory is a fresh temporary folder, the server listens on 127.0.0.1 on a
 * free port with its socket in that folder, and it is removed on `stop()`.
 * Every connection, over TCP or the socket, must give the `postgres` role's
 * password: a random one per server, in `url`. Other local users and
 * processes cannot log in by merely reaching the port.
 * PostgreSQL refuses to run as root, so when this process is root the server
 * runs as the `postgres` OS user (created if missing).
 */
import { type ChildProcess, execFile, execFileSync, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Server settings: `durable` keeps fsync and synchronous commit (benchmarks); off by default for speed. */
export type ServerOptions = {
  /** Keep PostgreSQL's durable defaults (fsync, synchronous_commit, full_page_writes). */
  durable?: boolean;
  /** Extra `-c name=value` settings. */
  settings?: Record<string, string | number>;
};

/** A running disposable server. */
export type PgServer = {
  /** `postgres://postgres:<password>@127.0.0.1:<port>/postgres` */
  url: string;
  /** The `postgres` role's password (random per server; also in `url`). */
  password: string;
  host: string;
  port: number;
  /** Temporary folder holding `data/`, the socket and `server.log`. */
  dir: string;
  /** The server log file. */
  logFile: string;
  /** Stops the server (fast shutdown) and removes its folder. */
  stop(): Promise<void>;
  /** Stops (fast) and starts the server again on the same port and data. */
  restart(): Promise<void>;
  /** Stops the server without removing its data (use `start` to bring it back). */
  halt(): Promise<void>;
  /** Starts a halted server. */
  start(): Promise<void>;
};

/**
 * A detached shell that stops the server and removes its folder once this
 * process is gone without having done so. `pg_ctl` starts the server in a
 * session of its own, so a signal to this process's group does not reach it,
 * and a process ended by a signal or SIGKILL (a test run stopped because
 * another suite failed) runs no exit handler: without this the server would
 * keep running, holding its memory and port, after every stopped run.
 */
function watchOwner(pgCtl: string, data: string, dir: string): ChildProcess {
  const [cmd, argv] = command(pgCtl, ["-D", data, "-m", "immediate", "-w", "stop"]);
  const script =
    'owner=$1; dir=$2; shift 2; while kill -0 "$owner" 2>/dev/null; do sleep 1; done; "$@" >/dev/null 2>&1; rm -rf -- "$dir"';
  const child = spawn("sh", ["-c", script, "act-pg-watchdog", String(process.pid), dir, cmd, ...argv], {
    detached: true,
    stdio: "ignore",
    // Not the test run's folder: whoever stops a run by the processes that
    // work in its folder must not take the watchdog with it, or the server
    // it guards outlives the run.
    cwd: "/",
  });
  child.unref();
  return child;
}

/** The folder with `initdb`, `pg_ctl` and `postgres`. */
export function findBinDir(): string {
  const candidates: string[] = [];
  try {
    candidates.push(execFileSync("pg_config", ["--bindir"], { encoding: "utf8" }).trim());
  } catch {
    // pg_config not installed: look in Debian's standard place.
  }
  const root = "/usr/lib/postgresql";
  if (existsSync(root))
    for (const v of readdirSync(root).sort((a, b) => Number(b) - Number(a))) candidates.push(join(root, v, "bin"));
  const found = candidates.find((dir) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl")));
  if (!found)
    throw new Error(
      "No PostgreSQL server binaries found (initdb, pg_ctl). Install Debian's postgresql-15 package " +
        "(apt-get install postgresql-15) or set DATABASE_URL to an existing server."
    );
  return found;
}

/** A TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0;

/** The command line for a server binary, as `postgres` when we are root. */
const command = (bin: string, args: string[]): [string, string[]] =>
  isRoot() ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];

/** Runs a server binary, as `postgres` when we are root (without blocking the event loop). */
function run(bin: string, args: string[], what: string): Promise<string> {
  const [cmd, argv] = command(bin, args);
  return new Promise((resolve, reject) => {
    execFile(cmd, argv as string[], { encoding: "utf8", timeout: 120_000 }, (error, stdout, stderr) => {
      if (error)
        reject(new Error(`${what} failed (${error.code ?? error.signal}): ${stderr || stdout || error.message}`));
      else resolve(stdout);
    });
  });
}

/** Makes sure the `postgres` OS user exists when we run as root. */
function ensureUser() {
  if (!isRoot()) return;
  if (spawnSync("id", ["-u", "postgres"]).status === 0) return;
  const made = spawnSync("useradd", ["--system", "--user-group", "--no-create-home", "postgres"], { encoding: "utf8" });
  if (made.status !== 0) throw new Error(`cannot create the postgres OS user: ${made.stderr}`);
}

/** Owner ids of the `postgres` user. */
function postgresIds(): { uid: number; gid: number } {
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  return { uid, gid };
}

/**
 * Creates a data directory and starts a server on a free port.
 *
 * @param options - durability and extra settings
 */
export async function startServer(options: ServerOptions = {}): Promise<PgServer> {
  const bin = findBinDir();
  ensureUser();
  const dir = mkdtempSync(join(tmpdir(), "act-pg-"));
  const owner = isRoot() ? postgresIds() : undefined;
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const data = join(dir, "data");
  const logFile = join(dir, "server.log");
  // Hex: safe in a URL as it is. initdb reads it from a file the server's
  // user can read (not from the command line, which `ps` shows).
  const password = randomBytes(24).toString("hex");
  const pwFile = join(dir, "password");
  writeFileSync(pwFile, `${password}\n`, { mode: 0o600 });
  if (owner) chownSync(pwFile, owner.uid, owner.gid);
  try {
    await run(
      join(bin, "initdb"),
      [
        "-D",
        data,
        "-U",
        "postgres",
        "--auth=scram-sha-256",
        `--pwfile=${pwFile}`,
        "-E",
        "UTF8",
        "--locale=C",
        "--no-sync",
      ],
      "initdb"
    );
  } finally {
    rmSync(pwFile, { force: true });
  }
  const port = await freePort();
  const settings: Record<string, string | number> = {
    listen_addresses: "127.0.0.1",
    port,
    unix_socket_directories: dir,
    max_connections: 200,
    ...(options.durable ? {} : { fsync: "off", synchronous_commit: "off", full_page_writes: "off" }),
    ...options.settings,
  };
  // pg_ctl hands these to a shell: quote every value.
  const opts = Object.entries(settings)
    .map(([k, v]) => {
      if (String(v).includes("'")) throw new Error(`setting ${k}: single quotes are not supported`);
      return `-c ${k}='${v}'`;
    })
    .join(" ");
  const pgCtl = join(bin, "pg_ctl");
  const start = async () =>
    void (await run(pgCtl, ["-D", data, "-l", logFile, "-o", opts, "-w", "-t", "60", "start"], "pg_ctl start"));
  const halt = async () => void (await run(pgCtl, ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"], "pg_ctl stop"));
  try {
    await start();
  } catch (error) {
    const log = existsSync(logFile) ? readFileSync(logFile, "utf8") : "";
    await halt().catch(() => {}); // it may be up even though pg_ctl gave up waiting
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${(error as Error).message}\n${log}`);
  }
  let stopped = false;
  const watchdog = watchOwner(pgCtl, data, dir);
  // If this process ends without calling stop() (a crash, a forgotten stop),
  // do not leave a server running: stop it synchronously on exit.
  const onExit = () => {
    if (stopped) return;
    stopped = true;
    watchdog.kill();
    const [cmd, argv] = command(pgCtl, ["-D", data, "-m", "immediate", "-w", "stop"]);
    spawnSync(cmd, argv, { timeout: 30_000 });
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", onExit);
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    password,
    host: "127.0.0.1",
    port,
    dir,
    logFile,
    async restart() {
      await halt();
      await start();
    },
    halt,
    start,
    async stop() {
      if (stopped) return;
      stopped = true;
      process.off("exit", onExit);
      watchdog.kill();
      try {
        await halt();
      } catch {
        // already stopped (e.g. halted by a test)
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
