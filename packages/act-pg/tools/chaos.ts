/**
 * Chaos run: worker processes drain one PostgreSQL table while events keep
 * arriving, and the run kills workers with SIGKILL, terminates their
 * database connections, keeps a worker of the previous release (one
 * reaction short) running beside the others, and resets a reaction stream in
 * the middle. At the end it waits for the workers to catch up and counts:
 *
 * - **lost**: (event, reaction) pairs whose effect was never committed;
 * - **duplicated**: effects committed more than once (each effect is an
 *   idempotent action, so this must be 0 whatever the handlers repeat);
 * - **re-runs**: handler runs beyond the first per pair — what a kill between
 *   a handler and its acknowledgement costs, plus the replay the reset asked
 *   for (at least once is the promise for side effects outside the store);
 * - **old release on a stream it lacks a reaction for**: runs of the old
 *   release on streams that carry `notify` (must be 0).
 *
 * Run it for minutes: `npm run chaos -w @act-root/act-pg -- --seconds 300`
 * (`--workers`, `--streams`, `--rate` events/s, `--kill-every`,
 * `--terminate-every` in ms). Without `DATABASE_URL` it starts a disposable
 * server. The test suite runs a short version (`test/chaos.test.ts`).
 */
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { PostgresStore } from "../src/index.js";
import { forkWorker } from "./fork-worker.js";
import { startServer } from "./pg-server.js";

export type ChaosOptions = {
  /** Server to use. */
  connectionString?: string;
  /** Table (the events table; watermarks and keys tables are named after it). */
  table?: string;
  /** How long events keep arriving and chaos goes on, in ms. */
  millis: number;
  /** Workers of the current release (one more of the old release runs beside them). */
  workers: number;
  /** Source streams the events go to. */
  streams: number;
  /** Events committed per second. */
  rate: number;
  /** A SIGKILL of a random worker every this many ms (0: none). */
  killEvery: number;
  /** A terminated database connection of a random worker every this many ms (0: none). */
  terminateEvery: number;
  /** How long to wait for the workers to catch up at the end, in ms. */
  settleMillis?: number;
  /** Called with progress lines. */
  log?: (line: string) => void;
};

export type ChaosFigures = {
  events: number;
  pairs: number;
  kills: number;
  terminations: number;
  resets: number;
  lost: number;
  duplicated: number;
  reruns: number;
  oldOnForeignStreams: number;
  blocked: number;
  caughtUp: boolean;
  seconds: number;
};

const worker = fileURLToPath(new URL("./chaos-worker.ts", import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the chaos and returns what it counted. */
export async function chaos(options: ChaosOptions): Promise<ChaosFigures> {
  const { connectionString, table = "chaos", millis, log = () => {} } = options;
  const started = Date.now();
  const db = new pg.Pool({ connectionString, max: 4 });
  db.on("error", () => {});
  const events = new PostgresStore({ connectionString, table, applicationName: "chaos-controller" });
  await events.drop();
  await events.seed();
  await db.query("DROP TABLE IF EXISTS chaos_runs");
  await db.query(
    "CREATE TABLE chaos_runs (event_id bigint NOT NULL, reaction text NOT NULL, pid integer NOT NULL, release text NOT NULL)"
  );

  const children = new Set<ChildProcess>();
  const spawn = (release: "current" | "old") =>
    forkWorker(
      worker,
      {
        DATABASE_URL: connectionString ?? "",
        TABLE: table,
        RELEASE: release,
      },
      children
    );
  const releases = new Map<ChildProcess, "current" | "old">();
  const start = async (release: "current" | "old") => releases.set(await spawn(release), release);
  await Promise.all(Array.from({ length: options.workers }, () => start("current")));

  let kills = 0;
  let terminations = 0;
  let resets = 0;
  let produced = 0;
  let stopping = false;
  const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)];

  const producer = (async () => {
    const every = 1_000 / options.rate;
    let next = Date.now();
    while (!stopping) {
      const stream = `s-${produced % options.streams}`;
      await events.commit(stream, [{ name: "Queued", data: { n: produced } }], {
        correlation: `c-${produced}`,
        causation: {},
      });
      produced++;
      next += every;
      await sleep(Math.max(0, next - Date.now()));
    }
  })();
  // A worker of the previous release comes back while the new one runs (a
  // restarted pod of the old deployment, say), once the new release has
  // registered its reactions on the streams.
  const straggler = (async () => {
    await sleep(Math.min(1_000, millis / 4));
    await start("old");
  })();
  const killer = (async () => {
    if (!options.killEvery) return;
    while (!stopping) {
      await sleep(options.killEvery);
      if (stopping) break;
      const victim = pick([...releases.keys()]);
      const release = releases.get(victim)!;
      releases.delete(victim);
      const exited = new Promise((r) => victim.once("exit", r));
      victim.kill("SIGKILL");
      await exited;
      kills++;
      log(`killed worker ${victim.pid} (${release})`);
      await start(release);
    }
  })();
  const terminator = (async () => {
    if (!options.terminateEvery) return;
    while (!stopping) {
      await sleep(options.terminateEvery);
      if (stopping) break;
      const { rows } = await db.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE application_name LIKE 'chaos-worker-%' ORDER BY random() LIMIT 1"
      );
      if (!rows.length) continue;
      await db.query("SELECT pg_terminate_backend($1)", [rows[0].pid]);
      terminations++;
    }
  })();
  const operator = (async () => {
    await sleep(millis / 2);
    // An operator replays one read model while everything else goes on.
    const reset = await events.reset(["ledger-s-0"]);
    resets += reset.length;
    log(`reset ${reset.join(", ") || "nothing (not registered yet)"}`);
  })();

  await sleep(millis);
  stopping = true;
  await Promise.all([producer, straggler, killer, terminator, operator]);

  // Catch up: every reaction stream at its head, none blocked.
  const settleBy = Date.now() + (options.settleMillis ?? 60_000);
  let caughtUp = false;
  while (Date.now() < settleBy) {
    const rows = await events.reactions();
    const expected = await effects(db, table);
    if (rows.every((r) => !r.blocked && r.head <= r.at) && expected.missing === 0) {
      caughtUp = true;
      break;
    }
    await sleep(200);
  }
  for (const child of children) child.kill("SIGTERM");
  while (children.size) await sleep(20);

  const figures = await effects(db, table);
  const { rows: reruns } = await db.query<{ n: string }>(
    "SELECT coalesce(sum(c - 1), 0) AS n FROM (SELECT count(*) AS c FROM chaos_runs GROUP BY event_id, reaction) t"
  );
  const { rows: foreign } = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM chaos_runs r JOIN ${q(table)} e ON e.id = r.event_id
     WHERE r.release = 'old'
       AND CASE WHEN e.stream LIKE 's-%' THEN split_part(e.stream, '-', 2)::bigint % 2 = 0 ELSE false END`
  );
  const blocked = (await events.reactions({ blocked: true })).length;
  await events.dispose();
  await db.end();
  return {
    events: figures.events,
    pairs: figures.pairs,
    kills,
    terminations,
    resets,
    lost: figures.missing,
    duplicated: figures.duplicated,
    reruns: Number(reruns[0].n),
    oldOnForeignStreams: Number(foreign[0].n),
    blocked,
    caughtUp,
    seconds: Math.round((Date.now() - started) / 1000),
  };
}

/** Quotes an identifier (the table name is ours, but never trust a string in SQL). */
const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Expected effects (two per Queued event), the ones missing, and the ones committed more than once. */
async function effects(db: pg.Pool, table: string) {
  const { rows } = await db.query<{ events: string; missing: string; duplicated: string }>(
    `WITH queued AS (SELECT id FROM ${q(table)} WHERE name = 'Queued'),
     pairs AS (SELECT id, r FROM queued CROSS JOIN (VALUES ('ledger'), ('notify')) AS v(r)),
     done AS (SELECT (data->>'event')::bigint AS id, data->>'reaction' AS r, count(*) AS c
              FROM ${q(table)} WHERE name = 'Recorded' GROUP BY 1, 2)
     SELECT (SELECT count(*) FROM queued) AS events,
       (SELECT count(*) FROM pairs p LEFT JOIN done d USING (id, r) WHERE d.c IS NULL) AS missing,
       (SELECT coalesce(sum(c - 1), 0) FROM done) AS duplicated`
  );
  const [row] = rows;
  return {
    events: Number(row.events),
    pairs: Number(row.events) * 2,
    missing: Number(row.missing),
    duplicated: Number(row.duplicated),
  };
}

/** The command line: prints the figures as a table. */
async function main() {
  const { values } = parseArgs({
    options: {
      seconds: { type: "string", default: "60" },
      workers: { type: "string", default: "3" },
      streams: { type: "string", default: "8" },
      rate: { type: "string", default: "40" },
      "kill-every": { type: "string", default: "3000" },
      "terminate-every": { type: "string", default: "2000" },
    },
  });
  const server = process.env.DATABASE_URL ? undefined : await startServer();
  try {
    const figures = await chaos({
      connectionString: process.env.DATABASE_URL || server!.url,
      millis: Number(values.seconds) * 1_000,
      workers: Number(values.workers),
      streams: Number(values.streams),
      rate: Number(values.rate),
      killEvery: Number(values["kill-every"]),
      terminateEvery: Number(values["terminate-every"]),
      settleMillis: 120_000,
      log: (line) => console.log(`  ${line}`),
    });
    console.table(figures);
    if (figures.lost || figures.duplicated || figures.oldOnForeignStreams || figures.blocked || !figures.caughtUp)
      process.exitCode = 1;
  } finally {
    await server?.stop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) void main();
