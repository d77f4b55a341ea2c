/**
 * Competing drainers: separate Node processes drain the same database with
 * the same app. Handlers record start and end per stream in `drain_log`
 * (server clock), and the test checks that no stream is ever handled by two
 * processes at once, that every reaction runs, and that a killed drainer's
 * lease is taken over after it expires with no event lost.
 */
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { PostgresStore } from "../src/index.js";
import { connectionString, makeStore, sleep, sql } from "./support.js";

const script = fileURLToPath(new URL("./fixtures/drainer.ts", import.meta.url));
const cwd = fileURLToPath(new URL("..", import.meta.url));

type Row = { stream: string; event_id: number; pid: number; phase: "start" | "end"; t: number };

let pgStore: PostgresStore;
const children = new Set<ChildProcess>();

/** Starts a drainer process; resolves once it is running. */
function drainer(env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = fork(script, [], {
    cwd,
    execArgv: ["--import", "tsx"],
    env: {
      ...process.env,
      // tsx maps @act-root/act to the core's source, as the in-process tests do.
      TSX_TSCONFIG_PATH: fileURLToPath(new URL("./fixtures/tsconfig.json", import.meta.url)),
      DATABASE_URL: connectionString() ?? "",
      TABLE: "drainers",
      LOG_LEVEL: "fatal",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  children.add(child);
  let output = "";
  child.stderr!.on("data", (d) => (output += d));
  child.stdout!.on("data", (d) => (output += d));
  child.once("exit", () => children.delete(child));
  return new Promise((resolve, reject) => {
    child.once("message", () => resolve(child));
    child.once("exit", (code, signal) =>
      reject(new Error(`drainer exited (${code ?? signal}) before starting: ${output}`))
    );
  });
}

/** Asks a drainer to stop and waits for it to exit. */
async function stop(child: ChildProcess) {
  if (!running(child)) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.send("stop");
  await exited;
  children.delete(child);
}

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

async function kill(child: ChildProcess) {
  if (!running(child)) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await exited;
  children.delete(child);
}

const logRows = () =>
  sql<Row>(
    `SELECT stream, event_id::float8 AS event_id, pid, phase, extract(epoch FROM t)::float8 AS t FROM drain_log ORDER BY t, seq`
  );

/** Waits until every event has an "end" row (or fails after a while). */
async function until(check: () => Promise<boolean>, what: string, millis = 45_000) {
  const deadline = Date.now() + millis;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Commits `perStream` Queued events to each stream, in a few commits each. */
async function queue(streams: string[], perStream: number) {
  const ids = new Map<string, number[]>();
  for (const stream of streams) {
    for (let n = 0; n < perStream; n += 2) {
      const events = await pgStore.commit({
        stream,
        messages: Array.from({ length: Math.min(2, perStream - n) }, (_, i) => ({
          name: "Queued",
          data: { n: n + i },
        })),
        meta: { correlation: stream, causation: {} },
      });
      ids.set(stream, [...(ids.get(stream) ?? []), ...events.map((e) => e.id)]);
    }
  }
  return ids;
}

/**
 * Checks that no stream was handled by two processes at once. A start opens
 * an interval that its end closes; a killed process's open interval closes
 * at the moment it was killed.
 */
function assertNoOverlap(rows: Row[], killed: Map<number, number> = new Map()) {
  const byStream = new Map<string, Row[]>();
  for (const r of rows) byStream.set(r.stream, [...(byStream.get(r.stream) ?? []), r]);
  for (const [stream, list] of byStream) {
    let open: Row | undefined;
    for (const r of list) {
      if (open && killed.has(open.pid) && killed.get(open.pid)! <= r.t) open = undefined;
      if (r.phase === "start") {
        if (open)
          throw new Error(
            `stream ${stream}: pid ${r.pid} started #${r.event_id} while pid ${open.pid} was handling #${open.event_id}`
          );
        open = r;
      } else {
        expect(open?.pid, `end without start on ${stream}`).toBe(r.pid);
        expect(open?.event_id).toBe(r.event_id);
        open = undefined;
      }
    }
  }
}

beforeAll(async () => {
  pgStore = makeStore({ table: "drainers" });
});

beforeEach(async () => {
  await pgStore.drop();
  await pgStore.seed();
  await sql(`DROP TABLE IF EXISTS drain_log`);
  await sql(
    `CREATE TABLE drain_log (seq bigserial, stream text, event_id bigint, pid int, phase text, t timestamptz DEFAULT clock_timestamp())`
  );
});

afterEach(async () => {
  for (const child of children) await kill(child);
});

afterAll(async () => {
  await pgStore.drop();
  await sql(`DROP TABLE IF EXISTS drain_log`);
  await pgStore.dispose();
});

describe("competing drainers in separate processes", () => {
  it("run every reaction exactly once, never handling a stream in two processes at once", async () => {
    const streams = Array.from({ length: 24 }, (_, i) => `job-${i}`);
    const ids = await queue(streams, 8);
    const total = streams.length * 8;
    const procs = await Promise.all([drainer(), drainer(), drainer()]);
    await until(async () => (await logRows()).filter((r) => r.phase === "end").length >= total, "all reactions");
    await Promise.all(procs.map(stop));

    const rows = await logRows();
    const ends = rows.filter((r) => r.phase === "end");
    expect(ends).toHaveLength(total);
    expect(new Set(ends.map((r) => r.event_id)).size).toBe(total); // exactly once
    for (const stream of streams) {
      // In order within each stream.
      expect(ends.filter((r) => r.stream === stream).map((r) => r.event_id)).toEqual(ids.get(stream));
    }
    assertNoOverlap(rows);
    expect(new Set(ends.map((r) => r.pid)).size).toBeGreaterThan(1); // the work was shared
  });

  it("take over a killed drainer's streams after its lease expires, losing no event", async () => {
    const streams = Array.from({ length: 8 }, (_, i) => `job-${i}`);
    const ids = await queue(["victim", ...streams], 6);
    const total = (streams.length + 1) * 6;

    // A second drainer, started but paused, so it cannot take "victim" first.
    const survivor = await drainer({ LEASE_MS: "3000", PAUSED: "1" });
    // A drainer that hangs on "victim" while holding its lease.
    const doomed = await drainer({ HANG_ON: "victim", LEASE_MS: "3000" });
    await until(
      async () => (await logRows()).some((r) => r.stream === "victim" && r.phase === "start"),
      "the victim lease"
    );
    // The second drainer runs meanwhile: it must keep off the leased stream.
    survivor.send("go");
    await sleep(200);
    const doomedPid = doomed.pid!;
    await kill(doomed);
    const [{ t: killedAt }] = await sql<{ t: number }>(`SELECT extract(epoch FROM clock_timestamp())::float8 AS t`);

    await until(async () => {
      const ended = new Set((await logRows()).filter((r) => r.phase === "end").map((r) => r.event_id));
      return [...ids.values()].flat().every((id) => ended.has(id));
    }, "every event handled after the takeover");
    await stop(survivor);

    const rows = await logRows();
    const ends = rows.filter((r) => r.phase === "end");
    // No event lost: each one finished at least once (events the killed
    // process had handled but not acknowledged may run again: at-least-once).
    expect(new Set(ends.map((r) => r.event_id)).size).toBe(total);
    const victim = rows.filter((r) => r.stream === "victim");
    expect(victim[0]).toMatchObject({ pid: doomedPid, phase: "start", event_id: ids.get("victim")![0] });
    const takeover = victim.filter((r) => r.pid === survivor.pid);
    expect(takeover.length).toBeGreaterThan(0);
    // The survivor touched the victim only after the kill, and in order.
    for (const r of takeover) expect(r.t).toBeGreaterThanOrEqual(killedAt);
    expect(takeover.filter((r) => r.phase === "end").map((r) => r.event_id)).toEqual(ids.get("victim"));
    assertNoOverlap(rows, new Map([[doomedPid, killedAt]]));
  });
});
