/**
 * Chaos run: worker processes drain one PostgreSQL table while events keep
 * arriving, and the run kills workers with SIGKILL, terminates their
 * database connections, keeps a worker of the previous release (one
 * reaction short) running beside the others, resets a reaction stream in
 * the middle, and — with `deploy` — ships a release that adds a reaction
 * and a projection in a rolling deploy: the new release's workers start
 * while the running ones go on, which are then stopped (SIGTERM); the new
 * reaction shares some streams whose watermarks the running releases keep
 * moving meanwhile. With `backlog`, the log already holds that
 * many events (of a kind no reaction handles) when the workers start, so
 * every start and restart shows what a long log costs before a worker's
 * first reaction. At the end it waits for the workers to catch up and counts:
 *
 * - **lost**: (event, reaction) pairs whose effect was never committed;
 * - **duplicated**: effects committed more than once (each effect is an
 *   idempotent action, so this must be 0 whatever the handlers repeat);
 * - **re-runs**: handler runs beyond the first per pair — what a kill between
 *   a handler and its acknowledgement costs, plus the replay the reset asked
 *   for (at least once is the promise for side effects outside the store);
 * - **old release on a stream it lacks a reaction for**: runs of the old
 *   release on streams that carry `notify` (must be 0);
 * - **projection**: rows of the added projection missing or written twice
 *   (must be 0: its rows and position commit in one transaction);
 * - **first reaction after a start**: per worker started after the first
 *   ones (restarts after a kill, the deploy), the time from its app's start
 *   to its first handler run, p50 and max (other workers share the work, so
 *   a fresh worker may also wait for a stream to be free).
 *
 * Run it for minutes: `npm run chaos -w @act-root/act-pg -- --seconds 300`
 * (`--workers`, `--streams`, `--rate` events/s, `--kill-every`,
 * `--terminate-every` in ms, `--backlog` events, `--no-deploy`). Without
 * `DATABASE_URL` it starts a disposable server. The test suite runs a short version (`test/chaos.test.ts`).
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
  /** Events in the log before the workers start, of a kind no reaction handles (default 0). */
  backlog?: number;
  /** Deploy, at 60 % of the run, a release that adds a reaction and a projection (default false). */
  deploy?: boolean;
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
  /** Rows of the added projection missing (events it never applied), with `deploy`. */
  projectionMissing: number;
  /** Rows of the added projection written more than once, with `deploy`. */
  projectionDuplicated: number;
  /** Workers started after the first ones (restarts, the deploy) that ran a handler, and the start-to-first-run times. */
  restarts: number;
  firstReactionP50Ms: number;
  firstReactionMaxMs: number;
  blocked: number;
  caughtUp: boolean;
  seconds: number;
};

const worker = fileURLToPath(new URL("./chaos-worker.ts", import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the chaos and returns what it counted. */
export async function chaos(options: ChaosOptions): Promise<ChaosFigures> {
  const { connectionString, table = "chaos", millis, log = () => {}, backlog = 0, deploy = false } = options;
  const started = Date.now();
  const db = new pg.Pool({ connectionString, max: 4 });
  db.on("error", () => {});
  const events = new PostgresStore({ connectionString, table, applicationName: "chaos-controller" });
  await events.drop();
  await events.seed();
  await db.query("DROP TABLE IF EXISTS chaos_runs");
  await db.query(
    "CREATE TABLE chaos_runs (event_id bigint NOT NULL, reaction text NOT NULL, pid integer NOT NULL, release text NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())"
  );
  await db.query("DROP TABLE IF EXISTS chaos_totals");
  await db.query("CREATE TABLE chaos_totals (event_id bigint NOT NULL, pid integer NOT NULL)");
  // The long log, in commits of a thousand events: nothing reacts to them.
  for (let filled = 0; filled < backlog; filled += 1_000) {
    const count = Math.min(1_000, backlog - filled);
    const messages = Array.from({ length: count }, (_, i) => ({ name: "Filled", data: { n: filled + i } }));
    await events.commit({
      stream: `backlog-${filled / 1_000}`,
      messages,
      meta: { correlation: "backlog", causation: {} },
    });
  }
  if (backlog) log(`backlog of ${backlog} events committed`);

  const children = new Set<ChildProcess>();
  const spawn = (release: "current" | "old" | "next") =>
    forkWorker(
      worker,
      {
        DATABASE_URL: connectionString ?? "",
        TABLE: table,
        RELEASE: release,
      },
      children
    );
  type Release = "current" | "old" | "next";
  const releases = new Map<ChildProcess, Release>();
  /**
   * When each worker after the first ones was ready — its app started, the
   * process and its TypeScript loaded — by pid, for the first-reaction times.
   */
  const restarted = new Map<number, number>();
  const start = async (release: Release, later = true) => {
    const child = await spawn(release);
    releases.set(child, release);
    if (later && child.pid) restarted.set(child.pid, Date.now());
  };
  await Promise.all(Array.from({ length: options.workers }, () => start("current", false)));
  let deploying = false;

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
      await events.commit({
        stream,
        messages: [{ name: "Queued", data: { n: produced } }],
        meta: {
          correlation: `c-${produced}`,
          causation: {},
        },
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
      if (deploying) continue;
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
    // An operator replays one read model while everything else goes on: on
    // a busy machine the workers may not have registered its stream by half
    // time, so the operator tries again until they have.
    while (!stopping) {
      const reset = await events.reset(["ledger-s-0"]);
      resets += reset.length;
      log(`reset ${reset.join(", ") || "nothing (not registered yet)"}`);
      if (reset.length) break;
      await sleep(100);
    }
  })();
  // The deploy, rolling: the new release's workers start while the running
  // ones go on handling — and moving watermarks past events the new reaction
  // has not run for yet — and the running ones are stopped a moment later.
  const deployer = (async () => {
    if (!deploy) return;
    await sleep(millis * 0.6);
    await straggler;
    deploying = true;
    const running = [...releases.keys()];
    await Promise.all(Array.from({ length: options.workers }, () => start("next")));
    await sleep(Math.min(2_000, millis / 10));
    await Promise.all(
      running.map((child) => {
        releases.delete(child);
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        return exited;
      })
    );
    deploying = false;
    log(`deployed: ${options.workers} workers of the next release started, then ${running.length} stopped`);
  })();

  await sleep(millis);
  stopping = true;
  await Promise.all([producer, straggler, killer, terminator, operator, deployer]);

  // Catch up: every reaction stream at its head, none blocked.
  const settleBy = Date.now() + (options.settleMillis ?? 60_000);
  let caughtUp = false;
  while (Date.now() < settleBy) {
    const rows = await events.reactions();
    const expected = await effects(db, table, deploy);
    if (rows.every((r) => !r.blocked && r.head <= r.at) && expected.missing === 0) {
      caughtUp = true;
      break;
    }
    await sleep(200);
  }
  for (const child of children) child.kill("SIGTERM");
  while (children.size) await sleep(20);

  const figures = await effects(db, table, deploy);
  const totals = deploy ? await projected(db, table) : { missing: 0, duplicated: 0 };
  const { rows: firsts } = await db.query<{ pid: number; first: Date }>(
    "SELECT pid, min(at) AS first FROM chaos_runs GROUP BY pid"
  );
  const waits = firsts
    .filter(({ pid }) => restarted.has(pid))
    .map(({ pid, first }) => first.getTime() - restarted.get(pid)!)
    .sort((a, b) => a - b);
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
    projectionMissing: totals.missing,
    projectionDuplicated: totals.duplicated,
    restarts: waits.length,
    firstReactionP50Ms: waits[Math.floor(waits.length / 2)] ?? 0,
    firstReactionMaxMs: waits[waits.length - 1] ?? 0,
    blocked,
    caughtUp,
    seconds: Math.round((Date.now() - started) / 1000),
  };
}

/** Quotes an identifier (the table name is ours, but never trust a string in SQL). */
const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Expected effects (two per Queued event, three once the release that adds
 * `audit` is deployed: it runs for every Queued event of the log, as a new
 * reaction on new streams does), the ones missing, and the ones committed
 * more than once.
 */
async function effects(db: pg.Pool, table: string, deployed: boolean) {
  const reactions = deployed ? ["ledger", "notify", "audit"] : ["ledger", "notify"];
  const { rows } = await db.query<{ events: string; missing: string; duplicated: string }>(
    `WITH queued AS (SELECT id FROM ${q(table)} WHERE name = 'Queued'),
     pairs AS (SELECT id, r FROM queued CROSS JOIN unnest($1::text[]) AS v(r)),
     done AS (SELECT (data->>'event')::bigint AS id, data->>'reaction' AS r, count(*) AS c
              FROM ${q(table)} WHERE name = 'Recorded' GROUP BY 1, 2)
     SELECT (SELECT count(*) FROM queued) AS events,
       (SELECT count(*) FROM pairs p LEFT JOIN done d USING (id, r) WHERE d.c IS NULL) AS missing,
       (SELECT coalesce(sum(c - 1), 0) FROM done) AS duplicated`,
    [reactions]
  );
  const [row] = rows;
  return {
    events: Number(row.events),
    pairs: Number(row.events) * reactions.length,
    missing: Number(row.missing),
    duplicated: Number(row.duplicated),
  };
}

/** The added projection's rows: Queued events without one, and rows written more than once. */
async function projected(db: pg.Pool, table: string) {
  const { rows } = await db.query<{ missing: string; duplicated: string }>(
    `SELECT (SELECT count(*) FROM ${q(table)} e WHERE e.name = 'Queued'
               AND NOT EXISTS (SELECT 1 FROM chaos_totals t WHERE t.event_id = e.id)) AS missing,
            (SELECT count(*) - count(DISTINCT event_id) FROM chaos_totals) AS duplicated`
  );
  return { missing: Number(rows[0].missing), duplicated: Number(rows[0].duplicated) };
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
      backlog: { type: "string", default: "200000" },
      "no-deploy": { type: "boolean", default: false },
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
      backlog: Number(values.backlog),
      deploy: !values["no-deploy"],
      settleMillis: 120_000,
      log: (line) => console.log(`  ${line}`),
    });
    console.table(figures);
    if (
      figures.lost ||
      figures.duplicated ||
      figures.oldOnForeignStreams ||
      figures.projectionMissing ||
      figures.projectionDuplicated ||
      figures.blocked ||
      !figures.caughtUp
    )
      process.exitCode = 1;
  } finally {
    await server?.stop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) void main();
