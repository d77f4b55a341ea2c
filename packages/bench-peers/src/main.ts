/**
 * Peer benchmark (`npm run bench -w @act-root/bench-peers`, or `npm run bench`
 * at the root): Act, the reference library and Emmett on the same workloads,
 * in memory, on PostgreSQL and on SQLite, printed side by side with ratios.
 *
 * Each library runs on each store in a process of its own, one after the
 * other, in `--rounds N` rounds (default 2) that alternate the order; each
 * figure is the library's best round, so a burst of load from other
 * processes on the machine hurts no library more than another. PostgreSQL is the server `DATABASE_URL` names, or else a disposable
 * server started with the durable defaults (fsync, synchronous_commit and
 * full_page_writes on) and removed at the end. SQLite runs on a new file in a
 * temporary folder for each library and round, with each library's default
 * durability (both write-ahead log and synchronous FULL). Emmett's SQLite
 * store is installed on request (`npm run setup:sqlite`, see
 * `subjects/emmett-sqlite.ts`). `--memory`, `--postgres` or `--sqlite` (any
 * of them together) runs only those.
 */
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, freemem, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { type PgServer, startServer } from "../../act-pg/tools/pg-server.js";
import { missing as emmettSqliteMissing } from "./subjects/emmett-sqlite.js";
import { type Figure, type Figures, WORKLOADS } from "./workloads.js";

const require = createRequire(import.meta.url);
const own = require("../package.json") as { devDependencies: Record<string, string> };
/** The exact version a dev dependency is pinned to (`npm:name@x.y.z` aliases included). */
const pinned = (name: string) => own.devDependencies[name].replace(/^npm:.*@/, "");

type Kind = keyof typeof WORKLOADS;
/** A library; `postgres` and `sqlite` say why it has no figures on that store, when it has none. */
type Column = { id: string; label: string; postgres?: string; sqlite?: string };
const COLUMNS: Column[] = [
  { id: "act", label: `Act ${(require("@act-root/act/package.json") as { version: string }).version}` },
  {
    id: "reference-1",
    label: `ref ${pinned("reference-act-1")}`,
    postgres: "no PostgreSQL store of the 1.x line on the registry (act-pg 0.4.6 implements the 0.5 store port)",
    sqlite: "no SQLite store on the registry",
  },
  { id: "reference-0", label: `ref ${pinned("@rotorsoft/act")}`, sqlite: "no SQLite store on the registry" },
  { id: "emmett", label: `Emmett ${pinned("@event-driven-io/emmett")}`, sqlite: emmettSqliteMissing() },
];

/** The better of two figures for a workload (a failure loses to any figure). */
function best(a: Figure | undefined, b: Figure | undefined, higher: boolean): Figure | undefined {
  if (!a || "na" in a) return b && !("na" in b) ? b : (a ?? b);
  if (!b || "na" in b) return a;
  return (higher ? b.value > a.value : b.value < a.value) ? b : a;
}

/** Folds one round's results into the best so far. */
function merge(kind: Kind, before: Figures | { error: string } | undefined, round: Figures | { error: string }) {
  if (!before || "error" in before) return round;
  if ("error" in round) return before;
  const merged: Figures = {};
  for (const w of WORKLOADS[kind]) {
    const f = best(before[w.id], round[w.id], w.higher);
    if (f) merged[w.id] = f;
  }
  return merged;
}

/** Runs one library on one store in a child process and returns its figures (or why it has none). */
function measure(column: Column, kind: Kind, where: Record<string, string>): Promise<Figures | { error: string }> {
  const none = kind === "memory" ? undefined : column[kind];
  if (none) return Promise.resolve({ error: none });
  return new Promise((resolve) => {
    const child = fork(fileURLToPath(new URL("./run.ts", import.meta.url)), [column.id, kind, column.label], {
      execArgv: ["--import", "tsx"],
      env: { ...process.env, NODE_ENV: "test", LOG_LEVEL: "fatal", ...where },
      stdio: ["ignore", "ignore", "inherit", "ipc"],
    });
    let reply: Figures | { error: string } = { error: "the run ended without figures" };
    child.on("message", (m: { figures?: Figures; error?: string }) => (reply = m.figures ?? { error: m.error ?? "?" }));
    child.on("exit", () => resolve(reply));
  });
}

const format = (figure: Figure | undefined) => {
  if (!figure) return "n/a";
  if ("na" in figure) return "n/a";
  const v = figure.value;
  return v >= 100 ? Math.round(v).toLocaleString("en-US") : v.toFixed(v >= 10 ? 1 : 2);
};

/** How many times better Act's figure is than the peer's (> 1: Act is faster). */
const ratio = (act: Figure | undefined, peer: Figure | undefined, higher: boolean) => {
  if (!act || !peer || "na" in act || "na" in peer) return "";
  const r = higher ? act.value / peer.value : peer.value / act.value;
  return `${r >= 10 ? Math.round(r) : r.toFixed(r >= 1 ? 1 : 2)}×`;
};

function table(kind: Kind, results: Map<string, Figures | { error: string }>) {
  const peers = COLUMNS.filter((c) => c.id !== "act");
  const header = ["workload", ...COLUMNS.map((c) => c.label), ...peers.map((p) => `Act ÷ ${p.label}`)];
  const rows = WORKLOADS[kind].map((w) => {
    const get = (id: string) => {
      const r = results.get(id);
      return r && !("error" in r) ? (r[w.id] as Figure | undefined) : undefined;
    };
    return [
      w.label,
      ...COLUMNS.map((c) => format(get(c.id))),
      ...peers.map((p) => ratio(get("act"), get(p.id), w.higher)),
    ];
  });
  const width = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(width[i]) : c.padStart(width[i]))).join(" | ");
  console.log(line(header));
  console.log(width.map((w) => "-".repeat(w)).join("-|-"));
  for (const r of rows) console.log(line(r));
  // Every "n/a" with its reason, and every figure taken differently from the others.
  const notes = new Set<string>();
  for (const c of COLUMNS) {
    const r = results.get(c.id);
    if (!r) continue;
    if ("error" in r) notes.add(`${c.label}: n/a — ${r.error}`);
    else
      for (const [id, f] of Object.entries(r)) {
        const workload = WORKLOADS[kind].find((w) => w.id === id)?.label;
        if ("na" in f) notes.add(`${c.label}, ${workload}: n/a — ${f.na}`);
        else if (f.note) notes.add(`${c.label}, ${workload}: ${f.note}`);
      }
  }
  for (const n of notes) console.log(`  ${n}`);
}

async function main() {
  const args = process.argv.slice(2);
  const only = args.filter((a) => a === "--memory" || a === "--postgres" || a === "--sqlite");
  const kinds = (["memory", "postgres", "sqlite"] as const).filter((k) => !only.length || only.includes(`--${k}`));
  const folder = mkdtempSync(join(tmpdir(), "bench-peers-"));
  process.once("exit", () => rmSync(folder, { recursive: true, force: true }));
  let files = 0;
  const at = args.indexOf("--rounds");
  const rounds = at >= 0 ? Math.max(1, Number(args[at + 1]) || 1) : 2;
  const loads: number[][] = [loadavg()];
  const all: Record<string, Record<string, Figures | { error: string }>> = {};
  let server: PgServer | undefined;
  let postgresVersion = "";
  let settings: Record<string, string> = {};

  for (const kind of kinds) {
    let url: string | undefined;
    if (kind === "postgres") {
      url = process.env.DATABASE_URL;
      if (!url) {
        process.stderr.write("starting a disposable PostgreSQL (durable settings)…\n");
        server = await startServer({ durable: true });
        url = server.url;
      }
      const client = new pg.Client({ connectionString: url });
      client.on("error", () => {});
      await client.connect();
      const rows = (
        await client.query(
          `SELECT name, setting FROM pg_settings WHERE name IN ('server_version','fsync','synchronous_commit','full_page_writes')`
        )
      ).rows;
      settings = Object.fromEntries(rows.map((r: { name: string; setting: string }) => [r.name, r.setting]));
      postgresVersion = settings.server_version;
      await client.end();
    }
    const results = new Map<string, Figures | { error: string }>();
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 ? [...COLUMNS].reverse() : COLUMNS;
      for (const column of order) {
        process.stderr.write(`${kind}, round ${round + 1} of ${rounds}: ${column.label}…\n`);
        const where: Record<string, string> =
          kind === "postgres"
            ? { DATABASE_URL: url! }
            : kind === "sqlite"
              ? { SQLITE_FILE: join(folder, `${files++}.db`) }
              : {};
        results.set(column.id, merge(kind, results.get(column.id), await measure(column, kind, where)));
        loads.push(loadavg());
      }
    }
    all[kind] = Object.fromEntries(results);
    console.log(
      kind === "memory"
        ? "\nIn memory (each library's in-memory store)"
        : kind === "sqlite"
          ? `\nSQLite, a file per library (write-ahead log, synchronous FULL; Act through libsql, Emmett through sqlite3)`
          : `\nPostgreSQL ${postgresVersion} (fsync=${settings.fsync}, synchronous_commit=${settings.synchronous_commit}, full_page_writes=${settings.full_page_writes}${server ? ", disposable server" : ", DATABASE_URL"})`
    );
    table(kind, results);
  }
  await server?.stop();

  const load = loads.map((l) => l[0]);
  const machine = {
    date: new Date().toISOString(),
    rounds,
    cpu: cpus()[0]?.model ?? "?",
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    freeGiB: Math.round(freemem() / 2 ** 30),
    node: process.version,
    postgres: postgresVersion || undefined,
    load1min: { min: Math.min(...load), max: Math.max(...load) },
  };
  console.log(
    `\n${machine.date}, best of ${rounds} round${rounds > 1 ? "s" : ""} — ${machine.cores} × ${machine.cpu}, ${machine.memoryGiB} GiB RAM, Node ${machine.node}` +
      `${machine.postgres ? `, PostgreSQL ${machine.postgres}` : ""}; 1-minute load average ${machine.load1min.min.toFixed(2)}–${machine.load1min.max.toFixed(2)} during the run`
  );
  console.log(
    `ref = the reference library (@rotorsoft/act; on PostgreSQL ${pinned("@rotorsoft/act")} with @rotorsoft/act-pg ${pinned("@rotorsoft/act-pg")}).\n` +
      "Act ÷ X: how many times Act's figure beats X's (above 1: Act is faster; rates are divided, times inverted)."
  );
  console.log(JSON.stringify({ machine, results: all }));
}

main().catch((error) => {
  console.error(error);
  process.exit(1); // the server harness stops a server it started on exit
});
