/**
 * CPU time spent by a disposable PostgreSQL server, read from `/proc` (Linux
 * only): the postmaster's own time, the time of the backends it has already
 * reaped (its children's time), and the time of every live child (backends,
 * the WAL writer, the checkpointer…). What a workload costs the server is the
 * difference between two readings around it; with `process.cpuUsage()` for
 * the Node side, the two add up to the CPU one unit of work takes on a
 * machine where both run.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Clock ticks per second of `/proc/<pid>/stat` times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** Fields 14–17 of `/proc/<pid>/stat` (utime, stime, cutime, cstime) and field 4 (ppid), after the command. */
function stat(pid: number): { ppid: number; own: number; children: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command, in parentheses, may hold spaces: fields are counted after its closing one.
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    const n = (i: number) => Number(fields[i - 3]);
    return { ppid: n(4), own: n(14) + n(15), children: n(16) + n(17) };
  } catch {
    return undefined; // the process ended meanwhile
  }
}

/**
 * Milliseconds of CPU the server under `dataDir` has used so far, or
 * `undefined` when it cannot be read (not Linux, or no such server).
 */
export function serverCpuMillis(dataDir: string): number | undefined {
  const pidFile = join(dataDir, "postmaster.pid");
  if (!existsSync(pidFile) || !existsSync("/proc/self/stat")) return undefined;
  const postmaster = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  const root = stat(postmaster);
  if (!root) return undefined;
  let ticks = root.own + root.children;
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === postmaster) continue;
    const child = stat(pid);
    if (child?.ppid === postmaster) ticks += child.own;
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** Milliseconds of CPU this Node process has used so far (user and system). */
export function nodeCpuMillis(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
