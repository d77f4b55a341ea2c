/**
 * Commit-to-reaction latency with the running consumer (`app.start()`):
 * in one process (the process that commits also reacts), and across two (a
 * worker process, `worker.ts`, reacts to commits made here), with the
 * store's wake-ups and with polling only; each at 20 and at 200 commits per
 * second, p50 and p99 in ms, in the steady state: each case first commits
 * for two seconds at its rate (connections open, code warms up, a cold
 * worker catches up) and reports the worst latency of that start-up apart.
 * In one process it also counts, per reaction,
 * the statements sent through the pool (announcements apart) and the drain
 * cycles (polls); and, with the consumer running, the statements besides the
 * commits themselves that commits of an event no reaction handles cost.
 * Drops and seeds the store's table first.
 *
 * `bench.ts` runs it as part of the act-pg benchmark; on its own
 * (`npx tsx bench/latency.ts [runs]`) it starts a disposable PostgreSQL with
 * the durable defaults, repeats the whole measurement `runs` times (default
 * 1) and prints each run and the medians, so a noisy machine still gives
 * comparable figures.
 */
import { act, store } from "@act-root/act";
import { fork } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { PostgresStore } from "../src/index.js";
import { Counter } from "../test/fixtures/states.js";
import { type PgServer, startServer } from "../tools/pg-server.js";
import { ledgerApp } from "./ledger.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (n: number, digits = 1) => Number(n.toFixed(digits));
const percentile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
const actor = { id: "bench", name: "Bench" };
/** Seconds of commits at the measured rate before the latency is measured (see `benchLatency`). */
const WARM_UP_SECONDS = 2;

/** Runs `step(i)` for i < count at `rate` per second (as close as the event loop allows). */
async function paced(rate: number, count: number, step: (i: number) => Promise<unknown>) {
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const wait = start + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    await step(i);
  }
}

/** Counts the statements sent through any pool while `run` runs: all but announcements, and commits among them. */
async function counting<T>(run: () => Promise<T>) {
  const counts = { statements: 0, commits: 0 };
  const query = pg.Pool.prototype.query;
  pg.Pool.prototype.query = function (this: pg.Pool, ...args: unknown[]) {
    const config = args[0] as string | { text?: string };
    const text = typeof config === "string" ? config : (config?.text ?? "");
    // Announcements sent on their own (a commit may carry one: it counts as the commit it is).
    if (!text.startsWith("SELECT pg_notify")) counts.statements++;
    if (text.includes("INSERT INTO") && text.includes("json_array_elements")) counts.commits++;
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    return { result: await run(), counts };
  } finally {
    pg.Pool.prototype.query = query;
  }
}

/** The latency figures, by name (`latency_<where>_<rate>_per_s_<p50|p99>_ms`). */
export async function benchLatency(pgStore: PostgresStore, url: string): Promise<Record<string, number>> {
  const results: Record<string, number> = {};
  store(pgStore);

  // In this process: from the commit's return to the reaction's commit.
  for (const rate of [20, 200]) {
    await pgStore.drop();
    await pgStore.seed();
    const ledgers = ledgerApp();
    const latencies: number[] = [];
    const committedAt = new Map<number, number>();
    ledgers.on("committed", (snapshots) => {
      for (const s of snapshots) {
        const cause = s.event?.meta.causation.event;
        if (s.event?.name === "Posted" && cause) latencies.push(performance.now() - committedAt.get(cause.id)!);
      }
    });
    let polls = 0;
    const poll = pgStore.poll.bind(pgStore);
    pgStore.poll = (...args) => {
      polls++;
      return poll(...args);
    };
    ledgers.start();
    // Start-up first: two seconds at the same rate, on other streams, while
    // the pool connects and the code warms up. Their worst latency is the
    // start-up figure; the rest is measured in the steady state after it.
    /** Commits `count` increments at the rate over 20 streams named `prefix-n`, until all are handled. */
    const run = async (prefix: string, count: number) => {
      await paced(rate, count, async (i) => {
        const [snap] = await ledgers.do("increment", { stream: `${prefix}-${i % 20}`, actor }, { by: 1 });
        committedAt.set(snap.event!.id, performance.now());
      });
      while (latencies.length < count) await sleep(5);
    };
    await run("warm", rate * WARM_UP_SECONDS);
    results[`latency_one_process_${rate}_per_s_start_up_max_ms`] = round(Math.max(...latencies), 1);
    latencies.length = 0;
    const count = rate === 20 ? 100 : 1_000;
    const { counts } = await counting(async () => {
      polls = 0;
      await run("lat", count);
    });
    await ledgers.stop();
    pgStore.poll = poll;
    results[`statements_per_reaction_one_process_${rate}_per_s`] = round(counts.statements / count, 2);
    results[`drains_per_reaction_one_process_${rate}_per_s`] = round(polls / count, 2);
    const sorted = latencies.sort((a, b) => a - b);
    results[`latency_one_process_${rate}_per_s_p50_ms`] = round(percentile(sorted, 0.5), 1);
    results[`latency_one_process_${rate}_per_s_p99_ms`] = round(percentile(sorted, 0.99), 1);
  }

  // A running consumer while this process commits events no reaction handles.
  {
    await pgStore.drop();
    await pgStore.seed();
    const ledgers = ledgerApp();
    ledgers.start();
    await sleep(1_500); // idle: the poll has backed off
    const { counts } = await counting(() =>
      paced(20, 100, (i) => ledgers.do("post", { stream: `ledger-${i % 10}`, actor }, { by: 1 }))
    );
    await ledgers.stop();
    results.statements_per_unhandled_commit_besides_it = round((counts.statements - counts.commits) / 100, 2);
  }

  // Across processes: a worker process runs the consumer, this one commits.
  for (const mode of ["notify", "polling"] as const) {
    for (const rate of [20, 200]) {
      await pgStore.drop();
      await pgStore.seed();
      const worker = fork(fileURLToPath(new URL("./worker.ts", import.meta.url)), [], {
        execArgv: ["--import", "tsx"],
        env: {
          ...process.env,
          DATABASE_URL: url,
          TABLE: "bench",
          LOG_LEVEL: "fatal",
          ...(mode === "polling" && { POLL_ONLY: "1" }),
        },
      });
      await new Promise((resolve) => worker.once("message", resolve));
      const committer = act().with(Counter).build();
      // Start-up first, as in one process: the worker's worst latency in
      // these two seconds is the start-up figure, then it starts counting anew.
      await paced(rate, rate * WARM_UP_SECONDS, (i) =>
        committer.do("increment", { stream: `warm-${i % 20}`, actor }, { by: 1 })
      );
      await sleep(1_500);
      const warm = new Promise<{ restarted: number[] }>((resolve) =>
        worker.once("message", (m) => resolve(m as never))
      );
      worker.send("restart");
      const { restarted } = await warm;
      results[`latency_two_processes_${mode}_${rate}_per_s_start_up_max_ms`] = round(Math.max(...restarted), 1);
      const count = rate === 20 ? 100 : 1_000;
      await paced(rate, count, (i) => committer.do("increment", { stream: `x-${i % 20}`, actor }, { by: 1 }));
      await sleep(1_500); // let the last reactions land
      const reply = new Promise<{ latencies: number[] }>((resolve) =>
        worker.on("message", (m) => typeof m === "object" && resolve(m as never))
      );
      worker.send("stop");
      const { latencies } = await reply;
      const sorted = latencies.sort((a, b) => a - b);
      results[`latency_two_processes_${mode}_${rate}_per_s_p50_ms`] = round(percentile(sorted, 0.5), 1);
      results[`latency_two_processes_${mode}_${rate}_per_s_p99_ms`] = round(percentile(sorted, 0.99), 1);
      results[`latency_two_processes_${mode}_${rate}_per_s_handled`] = sorted.length;
    }
  }
  return results;
}

/** Run on its own: `npx tsx bench/latency.ts [runs]`. */
async function main() {
  const runs = Number(process.argv[2] ?? 1);
  let server: PgServer | undefined;
  let url = process.env.DATABASE_URL;
  if (!url) {
    process.stderr.write("starting a disposable PostgreSQL (durable settings)…\n");
    server = await startServer({ durable: true });
    url = server.url;
  }
  const pgStore = new PostgresStore({ connectionString: url, table: "bench", max: 10 });
  const all: Record<string, number>[] = [];
  for (let run = 0; run < runs; run++) {
    const figures = await benchLatency(pgStore, url);
    all.push(figures);
    console.log(JSON.stringify({ run, figures }));
  }
  const medians = Object.fromEntries(
    Object.keys(all[0]).map((key) => [key, all.map((f) => f[key]).sort((a, b) => a - b)[Math.floor(runs / 2)]])
  );
  console.log(JSON.stringify({ medians }, null, 2));
  await pgStore.drop();
  await pgStore.dispose();
  await sleep(100);
  await server?.stop();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error) => {
    console.error(error);
    process.exit(1); // the server harness stops a server it started on exit
  });
}
