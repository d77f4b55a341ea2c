/**
 * Timers through kills: a thousand timers come due within a second while the
 * one process firing them is killed with SIGKILL several times, at seeded
 * moments, and started again. Each timer's action is committed exactly once
 * — its event appears once per timer — and none is lost: every timer ends
 * fired. A kill between a commit and the recording of its outcome leaves the
 * timer claimed; once the claim runs out the next process runs it again, and
 * the idempotency key made of the timer's id returns the first commit.
 */
import type { ChildProcess } from "node:child_process";
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";
import { SqliteStore } from "../src/index.js";
import { sleep, tempFile } from "./support.js";

const TIMERS = 1_000;
const KILLS = 5;
const children = new Set<ChildProcess>();

/** A small seeded generator (mulberry32): the same kill moments on every run. */
function seeded(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Starts the firing process; resolves once its consumer runs. */
function start(file: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL("./fixtures/timer-firer.ts", import.meta.url)), [], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      execArgv: ["--import", "tsx"],
      env: {
        ...process.env,
        TSX_TSCONFIG_PATH: fileURLToPath(new URL("./fixtures/tsconfig.json", import.meta.url)),
        LOG_LEVEL: "fatal",
        FILE: file,
        LEASE_MS: "1000",
      },
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    let output = "";
    child.stderr!.on("data", (d) => (output += d));
    children.add(child);
    child.once("exit", () => children.delete(child));
    child.once("message", () => resolve(child));
    child.once("exit", (code, signal) => reject(new Error(`timer-firer exited (${code ?? signal}): ${output}`)));
  });
}

async function end(child: ChildProcess, signal: "SIGKILL" | "SIGTERM") {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill(signal);
  await exited;
}

afterEach(async () => {
  for (const child of children) await end(child, "SIGKILL");
});

it("fires each of 1,000 timers exactly once through repeated SIGKILLs of the process firing them", async () => {
  const file = tempFile("timers-chaos.db");
  const sqlite = new SqliteStore({ filename: file });
  await sqlite.seed();
  const actor = { id: "clock", name: "Clock" };
  const now = Date.now();
  await sqlite.timers.schedule(
    Array.from({ length: TIMERS }, (_, n) => ({
      id: `t-${n}`,
      action: "queue",
      stream: `job-${n % 50}`,
      actor,
      payload: { n },
      due: new Date(now + (n % 100) * 10), // all due within a second
    }))
  );
  const random = seeded(20261129);
  let child = await start(file);
  // How many timers were still pending at each kill: the kills must land while timers fire.
  const pendingAtKills: number[] = [];
  for (let kill = 0; kill < KILLS; kill++) {
    await sleep(100 + Math.floor(random() * 300));
    await end(child, "SIGKILL");
    pendingAtKills.push((await sqlite.timers.count(new Date())).pending);
    child = await start(file);
  }
  const deadline = Date.now() + 60_000;
  while ((await sqlite.timers.count(new Date())).pending > 0 && Date.now() < deadline) await sleep(100);
  await end(child, "SIGTERM");

  const fired = new Map<number, number>();
  await sqlite.query(
    (e) => {
      const { n } = e.data as { n: number };
      fired.set(n, (fired.get(n) ?? 0) + 1);
    },
    { names: ["Queued"] }
  );
  const timers = await sqlite.timers.list();
  await sqlite.dispose();
  console.log(
    "timers through kills:",
    JSON.stringify({
      pendingAtKills,
      events: [...fired.values()].reduce((a, b) => a + b, 0),
      // Timers claimed more than once: a kill took their first claim, fired or not.
      claimedAgain: timers.filter((t) => t.attempts > 1).length,
    })
  );
  expect(pendingAtKills.filter((pending) => pending > 0 && pending < TIMERS).length).toBeGreaterThanOrEqual(3);
  expect(timers.filter((t) => t.status !== "fired").map((t) => `${t.id} ${t.status}`)).toEqual([]);
  expect(fired.size).toBe(TIMERS);
  expect([...fired].filter(([, times]) => times !== 1)).toEqual([]);
}, 120_000);
