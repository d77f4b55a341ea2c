/**
 * SqliteStore benchmark (`npm run bench`). Prints a table and the same
 * figures as JSON. Every figure is measured in this run, on files in a
 * temporary directory, so compare ratios rather than absolutes across
 * machines.
 *
 * 1. Sequential commits through the store against the floor: the same
 *    driver and pragmas committing one row per `BEGIN IMMEDIATE; INSERT;
 *    COMMIT` into a table of the same shape — in both sync modes.
 * 2. 8 writers in 2 processes on one file.
 * 3. Loading a 5,000-event stream, without and with snapshots.
 * 4. W5: 1,000 reactions over 100 target streams with the default drain
 *    options and a resolver that names only a target, durable sync.
 * 5. Projections into a table of the store's file, with the default drain
 *    options, and actions with an inline projection against actions without
 *    (see projections.ts).
 * 6. Commits and loads of a 5,000-event stream with and without personal
 *    fields (see act/bench/personal.ts).
 */
import { act, SNAP_EVENT, store } from "@act-root/act";
import Database from "libsql";
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { open } from "../src/driver.js";
import { SqliteStore } from "../src/index.js";
import { benchProjections } from "./projections.js";
import { Counter, Ledger } from "../../act/bench/states.js";
import { benchPersonal } from "../../act/bench/personal.js";

const dir = mkdtempSync(join(tmpdir(), "act-sqlite-bench-"));
process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const file = () => join(dir, `${files++}.db`);
const round = (n: number, digits = 0) => Number(n.toFixed(digits));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const meta = { correlation: "bench", causation: {} };
const actor = { id: "bench", name: "Bench" };
type Sync = "FULL" | "NORMAL";

/** The floor: one row per transaction with the raw driver, the store's pragmas and table shape. */
function floor(sync: Sync, n: number): number {
  const db = new Database(file());
  db.exec(`PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = ${sync};`);
  db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, stream TEXT NOT NULL, version INTEGER NOT NULL,
    name TEXT NOT NULL, data TEXT NOT NULL, meta TEXT NOT NULL, created INTEGER NOT NULL);
    CREATE UNIQUE INDEX t_sv ON t (stream, version);`);
  const begin = db.prepare("BEGIN IMMEDIATE");
  const insert = db.prepare("INSERT INTO t (stream, version, name, data, meta, created) VALUES (?, ?, ?, ?, ?, ?)");
  const commit = db.prepare("COMMIT");
  const metaText = JSON.stringify(meta);
  const t = performance.now();
  for (let i = 0; i < n; i++) {
    begin.run();
    insert.run([`s-${i % 200}`, Math.floor(i / 200), "Incremented", '{"by":1}', metaText, Date.now()]);
    commit.run();
  }
  const perSecond = n / ((performance.now() - t) / 1000);
  db.close();
  return perSecond;
}

/** Sequential commits of one event through the store, over 200 streams, with the expected version. */
async function commits(sync: Sync, n: number): Promise<number> {
  const s = new SqliteStore({ filename: file(), synchronous: sync });
  await s.seed();
  const versions = new Map<string, number>();
  const t = performance.now();
  for (let i = 0; i < n; i++) {
    const stream = `s-${i % 200}`;
    const [e] = await s.commit({
      stream,
      messages: [{ name: "Incremented", data: { by: 1 } }],
      meta,
      expectedVersion: versions.get(stream) ?? -1,
    });
    versions.set(stream, e.version);
  }
  const perSecond = n / ((performance.now() - t) / 1000);
  await s.dispose();
  return perSecond;
}

/** 8 writers in 2 processes (4 each) on one file. */
async function writers(perWriter: number) {
  const filename = file();
  const seeded = new SqliteStore({ filename });
  await seeded.seed();
  await seeded.dispose();
  const script = fileURLToPath(new URL("./writer.ts", import.meta.url));
  const children = [0, 1].map(() =>
    fork(script, [], {
      execArgv: ["--import", "tsx"],
      env: { ...process.env, FILE: filename, WRITERS: "4", PER_WRITER: String(perWriter) },
    })
  );
  await Promise.all(children.map((c) => new Promise((r) => c.once("message", r))));
  const done = children.map(
    (c) =>
      new Promise<{ commits: number; busy: number }>((r) =>
        c.on("message", (m) => typeof m === "object" && r(m as never))
      )
  );
  const t = performance.now();
  for (const c of children) c.send("go");
  const results = await Promise.all(done);
  const seconds = (performance.now() - t) / 1000;
  return {
    perSecond: results.reduce((sum, r) => sum + r.commits, 0) / seconds,
    busy: results.reduce((sum, r) => sum + r.busy, 0),
  };
}

async function main() {
  const results: Record<string, number | string> = {};
  const runs = 3;
  for (const [sync, n] of [
    ["FULL", 2_000],
    ["NORMAL", 10_000],
  ] as const) {
    // Alternate floor and store runs so a slow moment of the disk hits both.
    const floors: number[] = [];
    const stores: number[] = [];
    for (let r = 0; r < runs; r++) {
      floors.push(floor(sync, n));
      stores.push(await commits(sync, n));
    }
    results[`floor_${sync}_tx_per_s`] = round(median(floors));
    results[`store_${sync}_commits_per_s`] = round(median(stores));
    results[`store_${sync}_ratio_to_floor`] = round(median(stores) / median(floors), 2);
  }

  const w = await writers(500);
  results.writers_8_in_2_processes_commits_per_s = round(w.perSecond);
  results.writers_8_in_2_processes_busy_errors = w.busy;

  // The app runs on one durable file from here on.
  const appFile = file();
  const sqlite = new SqliteStore({ filename: appFile });
  store(sqlite);
  await sqlite.seed();
  {
    for (let b = 0; b < 10; b++)
      await sqlite.commit({
        stream: "long",
        messages: Array.from({ length: 500 }, () => ({ name: "Incremented", data: { by: 1 } })),
        meta,
      });
    // Same history, with a snapshot after every 100 events (what `.snap(s => s.patches >= 100)` writes).
    for (let b = 0; b < 50; b++)
      await sqlite.commit({
        stream: "long-snap",
        messages: [
          ...Array.from({ length: 100 }, () => ({ name: "Incremented", data: { by: 1 } })),
          { name: SNAP_EVENT, data: { of: Counter.version, state: { count: (b + 1) * 100 } } },
        ],
        meta,
      });
    await sqlite.commit({
      stream: "long-snap",
      messages: Array.from({ length: 20 }, () => ({ name: "Incremented", data: { by: 1 } })),
      meta,
    });
    const app = act().with(Counter).build();
    const time = async (stream: string, expected: number, times: number) => {
      const ms: number[] = [];
      for (let i = 0; i < times; i++) {
        const t = performance.now();
        const { state } = await app.load(Counter, stream);
        ms.push(performance.now() - t);
        if (state.count !== expected) throw new Error(`load of ${stream}: ${state.count}, expected ${expected}`);
      }
      return median(ms.slice(3));
    };
    results.load_5000_ms = round(await time("long", 5000, 23), 2);
    results.load_5000_from_snapshot_ms = round(await time("long-snap", 5020, 103), 3);
  }

  // W5: the workload a new user writes first (see act-pg's benchmark).
  {
    const run = async (events: number) => {
      await sqlite.drop();
      await sqlite.seed();
      const ledgers = act()
        .with(Counter)
        .with(Ledger)
        .on("Incremented")
        .do(async (event, stream, app) => {
          await app.do("post", { stream, actor }, { by: event.data.by }, { reactingTo: event });
        })
        .to((event) => ({ target: `ledger-${event.stream}` }))
        .build();
      for (let i = 0; i < events; i++) await ledgers.do("increment", { stream: `acc-${i % 100}`, actor }, { by: 1 });
      let posted = 0;
      ledgers.on("committed", (snapshots) => (posted += snapshots.filter((s) => s.event?.name === "Posted").length));
      const t = performance.now();
      for (;;) {
        const { acked } = await ledgers.drain();
        if (!acked.length) break;
      }
      if (posted !== events) throw new Error(`W5: ${posted} of ${events} reactions ran`);
      return posted / ((performance.now() - t) / 1000);
    };
    await run(300); // warms the JIT up
    results.w5_reactions_per_s_durable = round(median([await run(1_000), await run(1_000), await run(1_000)]));
  }

  // Projections into a table of the store's file (empties the store first).
  {
    const db = open(appFile);
    Object.assign(results, await benchProjections(sqlite, db));
    db.close();
  }
  await sqlite.dispose();

  // Personal fields: one file per measurement, durable sync (the store's default).
  const personal = await benchPersonal(async () => {
    const fresh = new SqliteStore({ filename: file() });
    await fresh.seed();
    return fresh;
  });
  for (const [metric, value] of Object.entries(personal)) results[metric] = round(value);

  const rows: Array<[string, string]> = [
    ["floor, synchronous=FULL (tx/s)", `${results.floor_FULL_tx_per_s}`],
    [
      "store commits/s, FULL",
      `${results.store_FULL_commits_per_s} (${results.store_FULL_ratio_to_floor} of floor; target ≥ 0.7)`,
    ],
    ["floor, synchronous=NORMAL (tx/s)", `${results.floor_NORMAL_tx_per_s}`],
    [
      "store commits/s, NORMAL",
      `${results.store_NORMAL_commits_per_s} (${results.store_NORMAL_ratio_to_floor} of floor; target ≥ 0.7)`,
    ],
    [
      "8 writers in 2 processes, FULL (commits/s)",
      `${results.writers_8_in_2_processes_commits_per_s} (busy errors: ${results.writers_8_in_2_processes_busy_errors})`,
    ],
    ["load 5,000 events (ms)", `${results.load_5000_ms}`],
    ["load 5,020 events, 20 after the last snapshot (ms)", `${results.load_5000_from_snapshot_ms}`],
    ["W5 reactions/s, FULL (target ≥ 3,000)", `${results.w5_reactions_per_s_durable}`],
    [
      "events projected/s, default options: handler per event / batched (target ≥ 5,000 / ≥ 10,000)",
      `${results.projection_per_event_events_per_s_defaults} / ${results.projection_batched_events_per_s_defaults}`,
    ],
    ["events projected/s, batched in fixed batches of 10", `${results.projection_batched_events_per_s_fixed_10}`],
    [
      "actions/s, one at a time, FULL: no projection / inline projection (one upsert)",
      `${results.actions_per_s_without_projection} / ${results.actions_per_s_inline_projection} (inline ÷ none = ${results.actions_inline_ratio_to_without}, median of 10 interleaved slices; target ≥ 0.8)`,
    ],
    ...Object.keys(personal).map((metric): [string, string] => [`${metric}, FULL`, `${results[metric]}`]),
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  console.log(`SqliteStore benchmark (libsql, WAL; medians of ${runs} runs where repeated)`);
  for (const [k, v] of rows) console.log(`${k.padEnd(width)}  ${v}`);
  console.log(JSON.stringify(results));
}

void main();
