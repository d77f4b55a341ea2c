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
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { forkWorker } from "../tools/fork-worker.js";
import { connectionString, makeStore, sleep } from "./support.js";

const TIMERS = 1_000;
const KILLS = 5;
const TABLE = "timer_chaos";
const children = new Set<ChildProcess>();
const firer = fileURLToPath(new URL("../tools/timer-firer.ts", import.meta.url));

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

const start = () => forkWorker(firer, { DATABASE_URL: connectionString() ?? "", TABLE, LEASE_MS: "1000" }, children);

async function end(child: ChildProcess, signal: "SIGKILL" | "SIGTERM") {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill(signal);
  await exited;
}

afterAll(async () => {
  for (const child of children) await end(child, "SIGKILL");
});

it("fires each of 1,000 timers exactly once through repeated SIGKILLs of the process firing them", async () => {
  const pg = makeStore({ table: TABLE });
  await pg.drop();
  await pg.seed();
  const actor = { id: "clock", name: "Clock" };
  const now = Date.now();
  await pg.timers.schedule(
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
  let child = await start();
  // How many timers were still pending at each kill: the kills must land while timers fire.
  const pendingAtKills: number[] = [];
  for (let kill = 0; kill < KILLS; kill++) {
    await sleep(100 + Math.floor(random() * 300));
    await end(child, "SIGKILL");
    pendingAtKills.push((await pg.timers.count(new Date())).pending);
    child = await start();
  }
  const deadline = Date.now() + 60_000;
  while ((await pg.timers.count(new Date())).pending > 0 && Date.now() < deadline) await sleep(100);
  await end(child, "SIGTERM");

  const fired = new Map<number, number>();
  await pg.query(
    (e) => {
      const { n } = e.data as { n: number };
      fired.set(n, (fired.get(n) ?? 0) + 1);
    },
    { names: ["Queued"] }
  );
  const timers = await pg.timers.list();
  await pg.drop();
  await pg.dispose();
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
