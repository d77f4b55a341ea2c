/**
 * PostgresStore benchmark (`npm run bench`).
 *
 * Uses `DATABASE_URL` when set; otherwise starts a disposable PostgreSQL with
 * the durable defaults (fsync, synchronous_commit and full_page_writes on),
 * and stops it at the end. Prints a table and the same figures as JSON.
 *
 * Figures: the floor (bare single-row INSERT transactions from one `pg`
 * client), sequential actions over 200 streams, actions with 8 concurrent
 * writers, loading a 5,000-event stream without and with snapshots, reactions
 * drained per second, and SQL statements the server receives per action
 * (counted from the server log with `log_statement = all` on a short run when
 * the benchmark runs its own server; counted at the pool otherwise); CPU
 * per reaction in this process and on the server (its processes' time from
 * `/proc`, when the benchmark runs its own server: see `server-cpu.ts`);
 * commit-to-reaction latency with the running consumer (`latency.ts`); last,
 * projections (`projections.ts`): events projected per second per event and
 * batched, and the rebuild of 100,000 events.
 */
import { act, SNAP_EVENT, store } from "@act-root/act";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { PostgresStore } from "../src/index.js";
import { Counter, Job } from "../test/fixtures/states.js";
import { ledgerApp } from "./ledger.js";
import { benchLatency } from "./latency.js";
import { benchProjections } from "./projections.js";
import { nodeCpuMillis, serverCpuMillis } from "./server-cpu.js";
import { type PgServer, startServer } from "../tools/pg-server.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (n: number, digits = 1) => Number(n.toFixed(digits));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

let reactions = 0;
const app = act()
  .with(Counter)
  .with(Job)
  .on("Queued")
  .do(async function work() {
    reactions++;
  })
  .build();
const actor = { id: "bench", name: "Bench" };
const meta = { correlation: "bench", causation: {} };

async function main() {
  let server: PgServer | undefined;
  let url = process.env.DATABASE_URL;
  if (!url) {
    process.stderr.write("starting a disposable PostgreSQL (durable settings)…\n");
    server = await startServer({ durable: true, settings: { log_line_prefix: "app=%a|" } });
    url = server.url;
  }
  const admin = new pg.Client({ connectionString: url, application_name: "act-bench-admin" });
  admin.on("error", () => {});
  await admin.connect();
  const settings = Object.fromEntries(
    (
      await admin.query(
        `SELECT name, setting FROM pg_settings WHERE name IN ('fsync','synchronous_commit','full_page_writes','server_version')`
      )
    ).rows.map((r) => [r.name, r.setting])
  );

  const pgStore = new PostgresStore({ connectionString: url, table: "bench", max: 10 });
  store(pgStore);
  await pgStore.drop();
  await pgStore.seed();

  // Count what goes through the pools (every store operation is one pool query).
  let poolQueries = 0;
  const query = pg.Pool.prototype.query;
  pg.Pool.prototype.query = function (this: pg.Pool, ...args: unknown[]) {
    poolQueries++;
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;

  const results: Record<string, number | string> = {};

  // 1. Reactions drained per second (first, on a log holding only their events).
  {
    const queue = async (streams: number, perStream: number, prefix: string) => {
      for (let s = 0; s < streams; s++)
        await pgStore.commit({
          stream: `${prefix}-${s}`,
          messages: Array.from({ length: perStream }, (_, n) => ({ name: "Queued", data: { n } })),
          meta,
        });
    };
    const drainAll = async (total: number, options: { streamLimit: number; eventLimit: number }) => {
      const start = reactions;
      const t = performance.now();
      for (let idle = 0; reactions - start < total; ) {
        const { acked } = await app.drain({ ...options, leaseMillis: 10_000 });
        if (!acked.length && ++idle > 100) throw new Error(`drain stalled at ${reactions - start} of ${total}`);
      }
      return (reactions - start) / ((performance.now() - t) / 1000);
    };
    await queue(100, 50, "job");
    results.drain_reactions_per_s_default_limits = round(await drainAll(5000, { streamLimit: 10, eventLimit: 10 }), 0);
    await queue(100, 50, "task");
    results.drain_reactions_per_s_limits_50x50 = round(await drainAll(5000, { streamLimit: 50, eventLimit: 50 }), 0);
  }

  // 2. Floor and sequential actions, measured in alternating slices so that
  // load from other processes on the machine affects both alike.
  //    Floor: bare single-row INSERT transactions (autocommit, one statement,
  //    prepared) on one connection. Actions: `app.do` round-robin over 200 streams.
  {
    await admin.query(`DROP TABLE IF EXISTS bench_bare; CREATE TABLE bench_bare (id bigserial PRIMARY KEY, v integer)`);
    const bare = new pg.Client({ connectionString: url });
    bare.on("error", () => {});
    await bare.connect();
    const insert = (v: number) =>
      bare.query({ name: "bare", text: "INSERT INTO bench_bare (v) VALUES ($1)", values: [v] });
    for (let i = 0; i < 200; i++) await insert(i);
    for (let s = 0; s < 200; s++) await app.do("increment", { stream: `seq-${s}`, actor }, { by: 1 });
    const slices = 10;
    const perSlice = 300;
    let bareMs = 0;
    let actionMs = 0;
    const ratios: number[] = [];
    for (let slice = 0; slice < slices; slice++) {
      let t = performance.now();
      for (let i = 0; i < perSlice; i++) await insert(i);
      const b = performance.now() - t;
      t = performance.now();
      for (let i = 0; i < perSlice; i++)
        await app.do("increment", { stream: `seq-${(slice * perSlice + i) % 200}`, actor }, { by: 1 });
      const a = performance.now() - t;
      bareMs += b;
      actionMs += a;
      ratios.push(b / a);
    }
    await bare.end();
    await admin.query(`DROP TABLE bench_bare`);
    results.bare_insert_tx_per_s = round((slices * perSlice) / (bareMs / 1000), 0);
    results.sequential_actions_per_s = round((slices * perSlice) / (actionMs / 1000), 0);
    // Each slice's ratio compares the two under the same conditions; the median resists bursts of load.
    results.sequential_ratio_to_floor = round(median(ratios), 2);
    results.sequential_ratio_to_floor_overall = round(bareMs / actionMs, 2);
  }

  // 3. Actions with 8 concurrent writers (each on its own 25 streams: no conflicts).
  {
    const writers = 8;
    const perWriter = 500;
    const t = performance.now();
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        for (let i = 0; i < perWriter; i++)
          await app.do("increment", { stream: `par-${w}-${i % 25}`, actor }, { by: 1 });
      })
    );
    results.concurrent_8_actions_per_s = round((writers * perWriter) / ((performance.now() - t) / 1000), 0);
  }

  // 4. Loading a 5,000-event stream, without and with snapshots.
  {
    for (let b = 0; b < 10; b++)
      await pgStore.commit({
        stream: "long",
        messages: Array.from({ length: 500 }, () => ({ name: "Incremented", data: { by: 1 } })),
        meta,
      });
    // Same history, with a snapshot after every 100 events (what `.snap(s => s.patches >= 100)` writes).
    for (let b = 0; b < 50; b++)
      await pgStore.commit({
        stream: "long-snap",
        messages: [
          ...Array.from({ length: 100 }, () => ({ name: "Incremented", data: { by: 1 } })),
          // A snapshot as the app writes it: tagged with the definition that wrote it.
          { name: SNAP_EVENT, data: { of: Counter.version, state: { count: (b + 1) * 100 } } },
        ],
        meta,
      });
    await pgStore.commit({
      stream: "long-snap",
      messages: Array.from({ length: 20 }, () => ({ name: "Incremented", data: { by: 1 } })),
      meta,
    });
    await admin.query(`ANALYZE public.bench`);
    const time = async (stream: string, expected: number, runs: number) => {
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t = performance.now();
        const { state: s } = await app.load(Counter, stream);
        times.push(performance.now() - t);
        if (s.count !== expected) throw new Error(`load of ${stream}: count ${s.count}, expected ${expected}`);
      }
      return { median: median(times.slice(3)), best: Math.min(...times) };
    };
    const full = await time("long", 5000, 23);
    const snap = await time("long-snap", 5020, 103);
    results.load_5000_ms = round(full.median, 2);
    results.load_5000_from_snapshot_ms = round(snap.median, 2);
  }

  // 5. Statements per action, counted by the server on a short run.
  {
    const n = 200;
    for (let s = 0; s < 20; s++) await app.do("increment", { stream: `count-${s}`, actor }, { by: 1 });
    const beforePool = poolQueries;
    let logStart = 0;
    const counted =
      server && (await admin.query(`SELECT rolsuper FROM pg_roles WHERE rolname = current_user`)).rows[0]?.rolsuper;
    if (server && counted) {
      await admin.query(`ALTER SYSTEM SET log_statement = 'all'`);
      await admin.query(`SELECT pg_reload_conf()`);
      await sleep(300);
      logStart = statSync(server.logFile).size;
    }
    for (let i = 0; i < n; i++) await app.do("increment", { stream: `count-${i % 20}`, actor }, { by: 1 });
    results.pool_queries_per_action = round((poolQueries - beforePool) / n, 2);
    if (server && counted) {
      await sleep(300);
      const log = readFileSync(server.logFile, "utf8").slice(logStart);
      await admin.query(`ALTER SYSTEM RESET log_statement`);
      await admin.query(`SELECT pg_reload_conf()`);
      const statements = log
        .split("\n")
        .filter((l) => l.startsWith("app=act-pg|") && /LOG:\s+(statement|execute)/.test(l)).length;
      results.server_statements_per_action = round(statements / n, 2);
    } else results.server_statements_per_action = "n/a (external server: see pool count)";
  }

  // 6. The workload a new user writes first: default drain options, a
  // resolver that names only a target, 1,000 events over 100 streams, each
  // reaction an action on `ledger-<stream>`. One smaller run warms the JIT up
  // (the drain's code runs here for the first time with this app), then the
  // median of three runs on fresh tables is reported.
  {
    const run = async (events: number) => {
      await pgStore.drop();
      await pgStore.seed();
      const ledgers = ledgerApp();
      for (let i = 0; i < events; i++) await ledgers.do("increment", { stream: `acc-${i % 100}`, actor }, { by: 1 });
      let posted = 0;
      ledgers.on("committed", (snapshots) => (posted += snapshots.filter((s) => s.event?.name === "Posted").length));
      let cycles = 0;
      const cpu = { node: nodeCpuMillis(), server: server && serverCpuMillis(join(server.dir, "data")) };
      const t = performance.now();
      for (;;) {
        cycles++;
        const { acked } = await ledgers.drain();
        if (!acked.length) break;
      }
      const seconds = (performance.now() - t) / 1000;
      const node = (nodeCpuMillis() - cpu.node) / posted;
      const serverNow = server && serverCpuMillis(join(server.dir, "data"));
      const onServer =
        cpu.server !== undefined && serverNow !== undefined ? (serverNow - cpu.server) / posted : undefined;
      if (posted !== events) throw new Error(`ledger workload: ${posted} of ${events} reactions ran`);
      return { perSecond: posted / seconds, cycles, node, onServer };
    };
    await run(300);
    const runs = [await run(1_000), await run(1_000), await run(1_000)];
    results.ledger_reactions_per_s = round(median(runs.map((r) => r.perSecond)), 0);
    results.ledger_drain_cycles = Math.max(...runs.map((r) => r.cycles));
    // CPU per reaction, as the drains spend it: this process, and the server's processes (read from /proc).
    results.ledger_cpu_ms_per_reaction_node = round(median(runs.map((r) => r.node)), 3);
    if (runs.every((r) => r.onServer !== undefined)) {
      results.ledger_cpu_ms_per_reaction_server = round(median(runs.map((r) => r.onServer!)), 3);
      results.ledger_cpu_ms_per_reaction = round(median(runs.map((r) => r.node + r.onServer!)), 3);
    }
  }

  // 7. Commit-to-reaction latency with the running consumer, in one process and across two.
  Object.assign(results, await benchLatency(pgStore, url));

  // Last: it empties the store's table.
  Object.assign(results, await benchProjections(pgStore, admin));

  await pgStore.drop();
  await pgStore.dispose();
  await admin.end();
  await sleep(100);
  await server?.stop();

  const floor = results.bare_insert_tx_per_s as number;
  const rows: Array<[string, string, string, string]> = [
    ["bare single-row INSERT tx/s (floor)", `${floor}`, "1.00", "—"],
    [
      "sequential actions/s (200 streams)",
      `${results.sequential_actions_per_s}`,
      `${results.sequential_ratio_to_floor}`,
      "≥ 0.45 × floor (ref 178, Emmett 235); ÷ floor = median of 10 interleaved slices",
    ],
    [
      "actions/s, 8 concurrent writers",
      `${results.concurrent_8_actions_per_s}`,
      `${round((results.concurrent_8_actions_per_s as number) / floor, 2)}`,
      "(ref 453, Emmett 461)",
    ],
    ["load 5,000-event stream (ms, median)", `${results.load_5000_ms}`, "", "< 60 ms (ref 210, Emmett 79)"],
    ["load 5,000 events from snapshot (ms, median)", `${results.load_5000_from_snapshot_ms}`, "", "< 3 ms (ref 5.2)"],
    [
      "reactions drained/s (default limits 10×10)",
      `${results.drain_reactions_per_s_default_limits}`,
      `${round((results.drain_reactions_per_s_default_limits as number) / floor, 2)}`,
      "≥ 1,000 (ref 224)",
    ],
    [
      "reactions drained/s (limits 50×50)",
      `${results.drain_reactions_per_s_limits_50x50}`,
      `${round((results.drain_reactions_per_s_limits_50x50 as number) / floor, 2)}`,
      "≥ 1,000 (ref 224)",
    ],
    ["SQL statements per action (server log)", `${results.server_statements_per_action}`, "", "≤ 2 (ref 5, Emmett 4)"],
    ["store queries per action (pool count)", `${results.pool_queries_per_action}`, "", "≤ 2"],
    [
      "reactions/s, defaults, target-only resolver (1,000 events, 100 targets; median of 3)",
      `${results.ledger_reactions_per_s}`,
      `${round((results.ledger_reactions_per_s as number) / floor, 2)}`,
      "≥ 2,000 (ref 520, Emmett 335)",
    ],
    ["drain cycles for it", `${results.ledger_drain_cycles}`, "", "≤ 1,000 / (10 × 10) + 2 = 12"],
    [
      "CPU ms per reaction for it: node + server = total (median of 3)",
      results.ledger_cpu_ms_per_reaction === undefined
        ? `${results.ledger_cpu_ms_per_reaction_node} + n/a (external server)`
        : `${results.ledger_cpu_ms_per_reaction_node} + ${results.ledger_cpu_ms_per_reaction_server} = ${results.ledger_cpu_ms_per_reaction}`,
      "",
      "≤ 0.5",
    ],
    [
      "events projected/s, default options: handler per event / batched (10,000-event backlog)",
      `${results.projection_per_event_events_per_s_defaults} / ${results.projection_batched_events_per_s_defaults}`,
      "",
      "≥ 5,000 / ≥ 10,000",
    ],
    [
      "events projected/s, batched: fixed batches of 10 / eventLimit 1,000 (100,000 events)",
      `${results.projection_batched_events_per_s_fixed_10} / ${results.projection_batched_events_per_s_limit_1000}`,
      "",
      "",
    ],
    [
      `rebuild of a new projection version from ${results.projection_rebuild_events} events (s)`,
      `${results.projection_rebuild_100k_events_s}`,
      "",
      "",
    ],
    [
      "actions/s, one at a time: no projection / inline projection (one upsert)",
      `${results.actions_per_s_without_projection} / ${results.actions_per_s_inline_projection}`,
      `${round((results.actions_per_s_inline_projection as number) / floor, 2)}`,
      `inline ÷ none = ${results.actions_inline_ratio_to_without} (median of 10 interleaved slices; ≥ 0.8)`,
    ],
    ...[20, 200].flatMap(
      (rate): Array<[string, string, string, string]> => [
        [
          `commit→reaction p50/p99 ms (start-up worst), one process, ${rate}/s`,
          `${results[`latency_one_process_${rate}_per_s_p50_ms`]} / ${results[`latency_one_process_${rate}_per_s_p99_ms`]} (${results[`latency_one_process_${rate}_per_s_start_up_max_ms`]})`,
          "",
          "p99 < 20 ms (steady state)",
        ],
        ...(["notify", "polling"] as const).map((mode): [string, string, string, string] => [
          `commit→reaction p50/p99 ms (start-up worst), two processes, ${mode}, ${rate}/s`,
          `${results[`latency_two_processes_${mode}_${rate}_per_s_p50_ms`]} / ${results[`latency_two_processes_${mode}_${rate}_per_s_p99_ms`]} (${results[`latency_two_processes_${mode}_${rate}_per_s_start_up_max_ms`]})`,
          "",
          mode === "notify" ? "p99 < 50 ms (steady state)" : "",
        ]),
      ]
    ),
  ];
  const width = rows.reduce((w, r) => r.map((c, i) => Math.max(w[i], c.length)), [6, 5, 8, 6]);
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(width[i])).join(" | ");
  console.log(
    `\nPostgresStore benchmark — PostgreSQL ${settings.server_version}, fsync=${settings.fsync}, synchronous_commit=${settings.synchronous_commit}, full_page_writes=${settings.full_page_writes}${server ? " (disposable server)" : " (DATABASE_URL)"}\n`
  );
  console.log(line(["figure", "value", "÷ floor", "target / reference"]));
  console.log(width.map((w) => "-".repeat(w)).join("-|-"));
  for (const r of rows) console.log(line(r));
  console.log(`\n${JSON.stringify({ postgres: { settings, ...results } }, null, 2)}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1); // the server harness stops a server it started on exit
});
