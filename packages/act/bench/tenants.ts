/**
 * Tenants at scale — the shared body of the tenant benchmarks of act-sqlite
 * (a file per tenant) and act-pg (a schema per tenant): each count of
 * tenants runs in a process of its own, so its memory is its own.
 *
 * - `load`: adds N tenants (creating each store), starts the tenants'
 *   consumer, commits 2,000 actions (at least 2 per tenant) from 8 writers
 *   spread over the tenants and waits until every one was reacted to. Then
 *   commits one more action per tenant with the consumer stopped, for the
 *   restart. Reports the time to add the tenants, the commit rate, the
 *   connections (or file descriptors) open, and the process's RSS.
 * - `restart`: a new process adds the same N tenants without seeding
 *   (`{ seed: false }`), starts the consumer and times the first reaction
 *   and the moment every tenant's pending action was reacted to.
 * - `fairness` (one run): tenant A holds a backlog of 100,000 events, B
 *   commits one; reports how long B waited for its reaction and how much of
 *   A's backlog was still left then.
 */
import { act, type Store, type TenantStores } from "@act-root/act";
import { fork } from "node:child_process";
import { readdirSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { Counter } from "./states.js";

const actor = { id: "bench", name: "Bench" };
const round = (n: number, digits = 0) => Number(n.toFixed(digits));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What a tenant benchmark gives: its strategy, and how to count what it keeps open. */
export type ScaleProbe = {
  /** The strategy under test (called once per process). */
  strategy: () => TenantStores;
  /** Connections (PostgreSQL) or file descriptors (SQLite) this process holds open. */
  opened: () => Promise<number>;
};

/** One count's figures. */
export type ScaleRow = {
  tenants: number;
  addMillis: number;
  commitsPerSecond: number;
  opened: number;
  rssMiB: number;
  firstReactionMillis: number;
  allReactedMillis: number;
};

/** File descriptors this process holds (Linux). */
export const openFiles = async (): Promise<number> => readdirSync("/proc/self/fd").length;

function model(strategy: TenantStores, handled: { count: number; first?: number }) {
  return act()
    .with(Counter)
    .on("Incremented")
    .do(async function count() {
      handled.count++;
      handled.first ??= performance.now();
    })
    .buildTenants({ store: strategy });
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`);

async function until(done: () => boolean, timeoutMillis = 300_000) {
  const end = Date.now() + timeoutMillis;
  while (!done()) {
    if (Date.now() > end) throw new Error("timed out");
    await sleep(2);
  }
}

/** The `load` run of one process (see the file's notes). */
async function load(probe: ScaleProbe, n: number) {
  const handled = { count: 0 } as { count: number; first?: number };
  const tenants = model(probe.strategy(), handled);
  let t = performance.now();
  for (const id of ids(n)) await tenants.add(id);
  const addMillis = performance.now() - t;
  tenants.start();
  const commits = Math.max(2_000, 2 * n);
  let next = 0;
  t = performance.now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < commits) {
        const i = next++;
        await tenants.app(`t${i % n}`).do("increment", { stream: `s-${i % 50}`, actor }, { by: 1 });
      }
    })
  );
  const commitsPerSecond = commits / ((performance.now() - t) / 1000);
  await until(() => handled.count >= commits);
  const opened = await probe.opened();
  // After a full collection, so the figure is what the tenants hold, not garbage.
  (globalThis as { gc?: () => void }).gc?.();
  const rssMiB = process.memoryUsage().rss / 2 ** 20;
  await tenants.stop();
  for (const id of ids(n)) await tenants.app(id).do("increment", { stream: "pending", actor }, { by: 1 });
  await tenants.dispose();
  return { addMillis, commitsPerSecond, opened, rssMiB };
}

/** The `restart` run of one process (see the file's notes). */
async function restart(probe: ScaleProbe, n: number) {
  const handled = { count: 0 } as { count: number; first?: number };
  const t = performance.now();
  const tenants = model(probe.strategy(), handled);
  for (const id of ids(n)) await tenants.add(id, { seed: false });
  tenants.start();
  await until(() => handled.count >= n);
  const all = performance.now() - t;
  await tenants.dispose();
  return { firstReactionMillis: (handled.first ?? Number.NaN) - t, allReactedMillis: all };
}

/** The `fairness` run (see the file's notes). */
async function fairness(probe: ScaleProbe, backlog: number) {
  const handled = { count: 0 } as { count: number; first?: number };
  let aHandled = 0;
  let bReactedAt = 0;
  let aLeft = 0;
  const tenants = act()
    .with(Counter)
    .on("Incremented")
    .do(async function count(event) {
      if (event.stream.startsWith("a-")) aHandled++;
      else {
        bReactedAt = performance.now();
        aLeft = backlog - aHandled;
      }
      handled.count++;
    })
    .buildTenants({ store: probe.strategy() });
  const a = await tenants.add("a");
  const b = await tenants.add("b");
  const meta = { correlation: "backlog", causation: {} };
  const streams = 100;
  for (let s = 0; s < streams; s++) {
    const messages = Array.from({ length: backlog / streams }, () => ({ name: "Incremented", data: { by: 1 } }));
    await (a.store as Store).commit({ stream: `a-${s}`, messages, meta });
  }
  tenants.start();
  await until(() => aHandled > 0);
  const committed = performance.now();
  await b.do("increment", { stream: "b-1", actor }, { by: 1 });
  await until(() => bReactedAt > 0);
  const bWaitedMillis = bReactedAt - committed;
  const t = performance.now();
  await until(() => handled.count >= backlog + 1, 600_000);
  const aDrainMillis = performance.now() - t + bWaitedMillis;
  await tenants.remove("a");
  await tenants.remove("b");
  await tenants.dispose();
  return { backlog, bWaitedMillis, aLeftWhenBReacted: aLeft, aDrainSeconds: aDrainMillis / 1000 };
}

/**
 * In a child process: runs the mode its arguments name and sends the result
 * to the parent. Returns false in the parent process, which goes on.
 */
export async function child(probe: ScaleProbe): Promise<boolean> {
  const at = process.argv.indexOf("--tenants-child");
  if (at < 0) return false;
  const mode = process.argv[at + 1];
  const n = Number(process.argv[at + 2]);
  const result =
    mode === "load" ? await load(probe, n) : mode === "restart" ? await restart(probe, n) : await fairness(probe, n);
  // Exits once the parent has the result, whatever handles a library keeps.
  process.send?.(result, () => process.exit(0));
  return true;
}

/** Runs one mode in a child process of `script`, with `env`. */
function run(script: string, env: NodeJS.ProcessEnv, mode: string, n: number): Promise<any> {
  return new Promise((resolve, reject) => {
    const worker = fork(script, ["--tenants-child", mode, String(n)], {
      env: { ...process.env, ...env },
      execArgv: ["--import", "tsx", "--expose-gc"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    let result: unknown;
    worker.on("message", (message) => (result = message));
    worker.on("exit", (code) =>
      code === 0 && result ? resolve(result) : reject(new Error(`${mode} ${n}: exit ${code}`))
    );
  });
}

/**
 * The parent: for each count, a `load` process then a `restart` process
 * (with `prepare` run before each count, to start from empty), then the
 * fairness run. Returns the rows and prints a table titled `title`.
 */
export async function scale(
  title: string,
  script: string,
  env: NodeJS.ProcessEnv,
  counts: readonly number[],
  prepare: () => Promise<void>,
  openedLabel: string,
  backlog = 100_000
) {
  const rows: ScaleRow[] = [];
  for (const n of counts) {
    await prepare();
    const loaded = await run(script, env, "load", n);
    const restarted = await run(script, env, "restart", n);
    rows.push({ tenants: n, ...loaded, ...restarted });
  }
  await prepare();
  const fair = await run(script, env, "fairness", backlog);
  console.log(`\n${title}\n`);
  console.log(
    "| tenants | add all (ms) | commits/s | " +
      openedLabel +
      " | RSS (MiB) | RSS per tenant (KiB) | restart → first reaction (ms) | restart → every tenant reacted (ms) |"
  );
  console.log("|---:|---:|---:|---:|---:|---:|---:|---:|");
  const base = rows[0]?.rssMiB ?? 0;
  for (const r of rows)
    console.log(
      `| ${r.tenants} | ${round(r.addMillis)} | ${round(r.commitsPerSecond)} | ${r.opened} | ${round(r.rssMiB, 1)} | ${
        r.tenants > 1 ? round(((r.rssMiB - base) * 1024) / (r.tenants - 1)) : "—"
      } | ${round(r.firstReactionMillis)} | ${round(r.allReactedMillis)} |`
    );
  console.log(
    `\nFairness: tenant A held a backlog of ${fair.backlog.toLocaleString("en")} events; B's new event was reacted to after ${round(
      fair.bWaitedMillis
    )} ms, with ${fair.aLeftWhenBReacted.toLocaleString("en")} of A's events still to go (A drained in ${round(fair.aDrainSeconds, 1)} s).`
  );
  console.log(JSON.stringify({ rows, fairness: fair }));
  return { rows, fairness: fair };
}
