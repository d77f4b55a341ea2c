/**
 * Several Node processes on one database file: concurrent writers on one
 * stream, competing drainers running the real app, and processes killed with
 * SIGKILL in the middle of a commit and of a drain.
 */
import { type ChildProcess, fork } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteStore } from "../src/index.js";
import { sleep, tempFile } from "./support.js";

const cwd = fileURLToPath(new URL("..", import.meta.url));
const children = new Set<ChildProcess>();
const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

type Message = { landed?: [number, number]; conflict?: boolean; done?: boolean; error?: string };

/** Starts a fixture process; resolves once it has opened the file. */
function spawn(script: string, env: Record<string, string>, onMessage: (m: Message) => void = () => {}) {
  const child = fork(fileURLToPath(new URL(`./fixtures/${script}`, import.meta.url)), [], {
    cwd,
    execArgv: ["--import", "tsx"],
    env: {
      ...process.env,
      // tsx maps @act-root/act to the core's source, as the in-process tests do.
      TSX_TSCONFIG_PATH: fileURLToPath(new URL("./fixtures/tsconfig.json", import.meta.url)),
      LOG_LEVEL: "fatal",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  children.add(child);
  let output = "";
  child.stderr!.on("data", (d) => (output += d));
  child.stdout!.on("data", (d) => (output += d));
  child.on("message", (m) => typeof m === "object" && onMessage(m as Message));
  child.once("exit", () => children.delete(child));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const ready = new Promise<ChildProcess>((resolve, reject) => {
    child.once("message", () => resolve(child));
    child.once("exit", (code, signal) =>
      reject(new Error(`${script} exited (${code ?? signal}) before starting: ${output}`))
    );
  });
  return { child, ready, exited, output: () => output };
}

async function kill(child: ChildProcess) {
  if (!running(child)) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await exited;
}

async function stop(child: ChildProcess) {
  if (!running(child)) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.send("stop");
  await exited;
}

async function until(check: () => boolean | Promise<boolean>, what: string, millis = 45_000) {
  const deadline = Date.now() + millis;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(25);
  }
  throw new Error(`timed out waiting for ${what}`);
}

afterEach(async () => {
  for (const child of [...children]) await kill(child);
});

/** Every event of the file, in id order. */
async function events(file: string) {
  const reader = new SqliteStore({ filename: file });
  await reader.seed();
  const all: Array<{ id: number; stream: string; version: number; meta: { correlation: string } }> = [];
  await reader.query((e) => all.push(e), { with_snaps: true });
  await reader.dispose();
  return all;
}

type LogLine = { phase: string; stream: string; id: number; pid: number; at: number };
const readLog = (log: string): LogLine[] =>
  existsSync(log)
    ? readFileSync(log, "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((line) => {
          const [phase, stream, id, pid, at] = line.split(" ");
          return { phase, stream, id: Number(id), pid: Number(pid), at: Number(at) };
        })
    : [];

describe("writers in separate processes", () => {
  it("commit to one stream: every commit lands or gets a ConcurrencyError, and versions have no gaps", async () => {
    const file = tempFile();
    const landed: Array<[number, number]> = [];
    let conflicts = 0;
    const onMessage = (m: Message) => {
      if (m.landed) landed.push(m.landed);
      if (m.conflict) conflicts++;
    };
    const writers = [0, 1, 2].map(() => spawn("writer.ts", { FILE: file, COMMITS: "150", BATCH: "2" }, onMessage));
    await Promise.all(writers.map((w) => w.ready));
    const codes = await Promise.all(writers.map((w) => w.exited));
    expect(codes, writers.map((w) => w.output()).join("\n")).toEqual([0, 0, 0]);
    expect(landed.length + conflicts).toBe(450);
    const stored = (await events(file)).filter((e) => e.stream === "shared");
    expect(stored.map((e) => e.version)).toEqual(stored.map((_, i) => i));
    expect(stored).toHaveLength(landed.length * 2);
    // Each acknowledged commit is there, whole, at the versions it was told.
    const byVersion = new Map(stored.map((e) => [e.version, e.meta.correlation]));
    for (const [first, last] of landed) expect(byVersion.get(first)).toBe(byVersion.get(last));
    const ids = stored.map((e) => e.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  });

  it("writers killed in the middle of committing lose no acknowledged commit and leave no half commit", async () => {
    const file = tempFile();
    // Three rounds on one file: each writer is killed at an arbitrary point of its commit loop.
    for (let round = 0; round < 3; round++) {
      const landed: Array<[number, number]> = [];
      const writer = spawn(
        "writer.ts",
        { FILE: file, COMMITS: "0", BATCH: "5" },
        (m) => m.landed && landed.push(m.landed)
      );
      await writer.ready;
      await until(() => landed.length >= 100, "100 commits");
      await kill(writer.child);
      const stored = await events(file);
      expect(stored.map((e) => e.version)).toEqual(stored.map((_, i) => i));
      const lastAcknowledged = landed[landed.length - 1][1];
      expect(stored.length).toBeGreaterThanOrEqual(lastAcknowledged + 1);
      // At most the commit in flight when it was killed landed without being acknowledged.
      expect(stored.length).toBeLessThanOrEqual(lastAcknowledged + 1 + 5);
      // Whole commits only: every correlation (one per commit) has its five events.
      const counts = new Map<string, number>();
      for (const e of stored) counts.set(e.meta.correlation, (counts.get(e.meta.correlation) ?? 0) + 1);
      expect([...counts.values()].every((n) => n === 5)).toBe(true);
    }
  });
});

describe("drainers in separate processes", () => {
  /** Queues `perStream` jobs on each of `streams` streams, as the app's `queue` action would. */
  async function queue(file: string, streams: number, perStream: number) {
    const sqlite = new SqliteStore({ filename: file });
    await sqlite.seed();
    const ids: number[] = [];
    for (let n = 0; n < perStream; n++)
      for (let s = 0; s < streams; s++) {
        const [event] = await sqlite.commit({
          stream: `job-${s}`,
          messages: [{ name: "Queued", data: { n } }],
          meta: {
            correlation: `job-${s}-${n}`,
            causation: {},
          },
        });
        ids.push(event.id);
      }
    await sqlite.dispose();
    return ids;
  }

  it("two drainers handle each event exactly once, never one stream at the same time", async () => {
    const file = tempFile();
    const log = `${file}.log`;
    const ids = await queue(file, 12, 15);
    // Both start draining at the same moment, so neither finds the work done.
    const drainers = [
      spawn("drainer.ts", { FILE: file, LOG: log, PAUSED: "1", HANDLER_MS: "5" }),
      spawn("drainer.ts", { FILE: file, LOG: log, PAUSED: "1", HANDLER_MS: "5" }),
    ];
    await Promise.all(drainers.map((d) => d.ready));
    for (const d of drainers) d.child.send("go");
    await until(() => readLog(log).filter((l) => l.phase === "end").length >= ids.length, "every event handled");
    await sleep(300); // anything handled twice would show now
    await Promise.all(drainers.map((d) => stop(d.child)));
    const lines = readLog(log);
    const ends = lines.filter((l) => l.phase === "end");
    expect(ends.map((l) => l.id).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ends.map((l) => l.pid)).size).toBe(2); // both did work
    // Per stream, starts and ends alternate: no two processes on one stream at once.
    const open = new Map<string, LogLine>();
    for (const line of lines) {
      if (line.phase === "start") {
        expect(open.get(line.stream), `${line.stream} started twice`).toBeUndefined();
        open.set(line.stream, line);
      } else {
        expect(open.get(line.stream)).toMatchObject({ id: line.id, pid: line.pid });
        open.delete(line.stream);
      }
    }
    // Events of a stream were handled in order.
    for (let s = 0; s < 12; s++) {
      const handled = ends.filter((l) => l.stream === `job-${s}`).map((l) => l.id);
      expect(handled).toEqual([...handled].sort((a, b) => a - b));
    }
  });

  it("a drainer killed in the middle of a reaction: its lease expires and another process finishes the work", async () => {
    const file = tempFile();
    const log = `${file}.log`;
    const ids = await queue(file, 4, 5);
    const first = spawn("drainer.ts", { FILE: file, LOG: log, HANG_ON: "job-2", LEASE_MS: "3000" });
    await first.ready;
    await until(() => readLog(log).some((l) => l.phase === "start" && l.stream === "job-2"), "the hanging reaction");
    const stuck = readLog(log).find((l) => l.phase === "start" && l.stream === "job-2")!;
    await kill(first.child);
    const second = spawn("drainer.ts", { FILE: file, LOG: log, LEASE_MS: "3000" });
    await second.ready;
    await until(() => {
      const ends = new Set(
        readLog(log)
          .filter((l) => l.phase === "end")
          .map((l) => l.id)
      );
      return ids.every((id) => ends.has(id));
    }, "every event handled after the kill");
    await stop(second.child);
    const lines = readLog(log);
    const retaken = lines.find((l) => l.phase === "start" && l.id === stuck.id && l.pid === second.child.pid)!;
    expect(retaken).toBeDefined();
    // The stuck stream waited for the dead drainer's lease to run out: it was
    // leased for 3 s, shortly before the handler started (the slack is for a
    // slow machine; starting the second process takes well under 2.5 s).
    expect(retaken.at - stuck.at).toBeGreaterThanOrEqual(2_500);
    expect(lines.find((l) => l.phase === "end" && l.id === stuck.id)?.pid).toBe(second.child.pid);
    // Handled at least once: an event runs twice only when the killed drainer
    // finished it without acknowledging it (its drain was still waiting on the
    // stuck reaction), and then once in each process.
    const ended = lines.filter((l) => l.phase === "end");
    const byId = new Map<number, number[]>();
    for (const l of ended) byId.set(l.id, [...(byId.get(l.id) ?? []), l.pid]);
    for (const [id, pids] of byId)
      if (pids.length > 1) expect(pids, `event ${id}`).toEqual([first.child.pid, second.child.pid]);
  });
});
