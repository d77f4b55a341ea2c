/**
 * Projection crash run: two worker processes project one PostgreSQL table's
 * events into a read model in the same database while events keep
 * arriving, and the run kills a random worker with SIGKILL at random moments
 * (then starts it again). The workers' handlers pause between their
 * statements, so kills land between the read model's writes and the
 * position's. At the end it waits for the projection to reach the last event
 * and compares the read model with a fold of the log:
 *
 * - **applied twice**: events the read model counted more than once;
 * - **skipped**: events it never counted;
 * - **wrong totals**: streams whose total or count differs from the fold.
 *
 * All three must be 0. Run it for minutes:
 * `npm run projection-crash -w @act-root/act-pg -- --seconds 300` (`--rate`
 * events/s, `--kill-min` and `--kill-max` in ms, `--batch`). Without
 * `DATABASE_URL` it starts a disposable server. The test suite runs a short
 * version (`test/projection-crash.test.ts`).
 */
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { PostgresStore } from "../src/index.js";
import { forkWorker } from "./fork-worker.js";
import { startServer } from "./pg-server.js";

export type CrashOptions = {
  /** Server to use. */
  connectionString?: string;
  /** The events table; the read model's tables are named after it. */
  table?: string;
  /** How long events keep arriving and workers keep dying, in ms. */
  millis: number;
  /** Events committed per second. */
  rate: number;
  /** Shortest and longest pause before each SIGKILL, in ms (picked at random between them). */
  killMin: number;
  killMax: number;
  /** Keep going past `millis` until this many workers were killed (default 0): a slow machine still gets its kills. */
  minKills?: number;
  /** Whether the workers project with a batched handler. */
  batch?: boolean;
  /** How long to wait for the projection to catch up at the end, in ms. */
  settleMillis?: number;
  /** Called with progress lines. */
  log?: (line: string) => void;
};

export type CrashFigures = {
  events: number;
  kills: number;
  appliedTwice: number;
  skipped: number;
  wrongTotals: number;
  caughtUp: boolean;
  seconds: number;
};

const worker = fileURLToPath(new URL("./projection-crash-worker.ts", import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Workers projecting at once: two, so they also compete for the projection's lease. */
const WORKERS = 2;

/** Runs the crash test and returns what it counted. */
export async function projectionCrash(options: CrashOptions): Promise<CrashFigures> {
  const { connectionString, table = "projcrash", millis, log = () => {} } = options;
  if (!/^[a-z_]+$/.test(table)) throw new Error(`table must be lower-case letters and underscores, got "${table}"`);
  const started = Date.now();
  const db = new pg.Pool({ connectionString, max: 2 });
  db.on("error", () => {});
  const events = new PostgresStore({ connectionString, table, applicationName: "projection-crash" });
  await events.drop();
  await events.seed();
  await db.query(`DROP TABLE IF EXISTS ${table}_applied, ${table}_totals`);
  await db.query(`CREATE TABLE ${table}_applied (event_id bigint NOT NULL, pid integer NOT NULL)`);
  await db.query(
    `CREATE TABLE ${table}_totals (stream text PRIMARY KEY, total bigint NOT NULL, events integer NOT NULL)`
  );

  const children = new Set<ChildProcess>();
  const spawn = () =>
    forkWorker(
      worker,
      {
        DATABASE_URL: connectionString ?? "",
        TABLE: table,
        BATCH: options.batch ? "1" : "0",
      },
      children
    );
  for (let i = 0; i < WORKERS; i++) await spawn();

  let kills = 0;
  let produced = 0;
  let stopping = false;
  const producer = (async () => {
    const every = 1_000 / options.rate;
    let next = Date.now();
    while (!stopping) {
      await events.commit({
        stream: `s-${produced % 7}`,
        messages: [{ name: "Incremented", data: { by: 1 + (produced % 5) } }],
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
  const killer = (async () => {
    while (!stopping) {
      await sleep(options.killMin + Math.random() * (options.killMax - options.killMin));
      if (stopping) break;
      const victim = [...children][Math.floor(Math.random() * children.size)];
      if (!victim) continue;
      const exited = new Promise((r) => victim.once("exit", r));
      victim.kill("SIGKILL");
      await exited;
      kills++;
      log(`killed worker ${victim.pid}`);
      await spawn();
    }
  })();
  await sleep(millis);
  while (kills < (options.minKills ?? 0)) await sleep(50);
  stopping = true;
  await Promise.all([producer, killer]);

  // Catch up: the projection's position at the last event.
  const { rows: last } = await db.query<{ id: string }>(`SELECT max(id) AS id FROM ${table}`);
  const end = Number(last[0].id);
  const settleBy = Date.now() + (options.settleMillis ?? 60_000);
  let caughtUp = false;
  while (!caughtUp && Date.now() < settleBy) {
    const position = (await events.reactions()).find((r) => r.stream === "projection:Totals");
    caughtUp = !!position && position.at >= end;
    if (!caughtUp) await sleep(100);
  }
  for (const child of children) child.kill("SIGTERM");
  while (children.size) await sleep(20);

  const { rows } = await db.query<{ events: string; twice: string; skipped: string; wrong: string }>(
    `WITH log AS (SELECT id, stream, (data->>'by')::bigint AS by FROM ${table} WHERE name = 'Incremented'),
     counted AS (SELECT event_id, count(*) AS c FROM ${table}_applied GROUP BY event_id),
     fold AS (SELECT stream, sum(by) AS total, count(*) AS events FROM log GROUP BY stream)
     SELECT (SELECT count(*) FROM log) AS events,
       (SELECT count(*) FROM counted WHERE c > 1) AS twice,
       (SELECT count(*) FROM log l LEFT JOIN counted c ON c.event_id = l.id WHERE c.c IS NULL) AS skipped,
       (SELECT count(*) FROM fold f FULL JOIN ${table}_totals t USING (stream)
          WHERE f.total IS DISTINCT FROM t.total OR f.events IS DISTINCT FROM t.events) AS wrong`
  );
  await events.dispose();
  await db.end();
  return {
    events: Number(rows[0].events),
    kills,
    appliedTwice: Number(rows[0].twice),
    skipped: Number(rows[0].skipped),
    wrongTotals: Number(rows[0].wrong),
    caughtUp,
    seconds: Math.round((Date.now() - started) / 1000),
  };
}

/** The command line: prints the figures as a table. */
async function main() {
  const { values } = parseArgs({
    options: {
      seconds: { type: "string", default: "60" },
      rate: { type: "string", default: "100" },
      "kill-min": { type: "string", default: "200" },
      "kill-max": { type: "string", default: "1500" },
      batch: { type: "boolean", default: false },
    },
  });
  const server = process.env.DATABASE_URL ? undefined : await startServer();
  try {
    const figures = await projectionCrash({
      connectionString: process.env.DATABASE_URL || server!.url,
      millis: Number(values.seconds) * 1_000,
      rate: Number(values.rate),
      killMin: Number(values["kill-min"]),
      killMax: Number(values["kill-max"]),
      batch: values.batch,
      settleMillis: 120_000,
      log: (line) => console.log(`  ${line}`),
    });
    console.table(figures);
    if (figures.appliedTwice || figures.skipped || figures.wrongTotals || !figures.caughtUp) process.exitCode = 1;
  } finally {
    await server?.stop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) void main();
