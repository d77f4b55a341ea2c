/**
 * Restart to first reaction: how long a process that starts on a long log
 * takes to run the reaction to an event committed right after its first
 * drain, in memory and on PostgreSQL (`npm run bench:restart -w @act-root/act-pg`).
 *
 * For each log length: commit that many events (none of them reacted to, a
 * thousand per commit), let a first process correlate the whole log (as a
 * worker that ran before would have), then start a new app with the running
 * consumer (`app.start()`, default options), wait for its first drain,
 * commit one order and time until its reaction runs. Also counts the drains
 * and the events read meanwhile; `RESTART_REPEAT` restarts (default 20) on
 * the same log give the p50 and p99. Then, on that log:
 *
 * - **serverless**: a cold app (no consumer) runs the serverless recipe of
 *   the scaling guide once (drain while it acknowledges or discovery is
 *   behind) after an order is committed: the time to the order's reaction
 *   and the drains it took;
 * - **backfill**: a release that adds a reaction to every event of the log
 *   starts its consumer; the time until that reaction's discovery reaches
 *   the end of the log (events/s) and until it has handled them all, and
 *   the reaction times of orders committed every 200 ms meanwhile — the
 *   others' new work, which the backfill must not delay. The log's notes
 *   are spread over 100 streams, a thousand events per commit, so the new
 *   reaction (resolved to a target per notes stream, with no `source`)
 *   backfills 100 streams that share reads of the log.
 *
 * A measurement that passes `RESTART_CAP_MS` (default 180,000) is stopped
 * and printed as "> cap".
 *
 * `RESTART_SIZES` (default `10000,100000,1000000`) and `RESTART_STORES`
 * (`memory,postgres`) choose what runs; `DATABASE_URL` a server (otherwise a
 * disposable one with the durable defaults). The script imports nothing but
 * the public API, so it runs unchanged on an older checkout of the
 * repository to compare.
 */
import { act, disposeAndExit, InMemoryStore, type Store, state, store } from "@act-root/act";
import { performance } from "node:perf_hooks";
import { z } from "zod";
import { PostgresStore } from "../src/index.js";
import { type PgServer, startServer } from "../tools/pg-server.js";

process.env.LOG_LEVEL ??= "fatal";

const SIZES = (process.env.RESTART_SIZES ?? "10000,100000,1000000").split(",").map(Number);
const STORES = (process.env.RESTART_STORES ?? "memory,postgres").split(",");
const CAP = Number(process.env.RESTART_CAP_MS ?? 180_000);
const REPEAT = Number(process.env.RESTART_REPEAT ?? 20);
const actor = { id: "bench", name: "bench" };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const Shop = state("Shop", z.object({ orders: z.number() }))
  .init(() => ({ orders: 0 }))
  .emits({ Placed: z.object({ sku: z.string() }), Noted: z.object({ text: z.string() }) })
  .patch({ Placed: (_, s) => ({ orders: s.orders + 1 }), Noted: () => ({}) })
  .on("place", z.object({ sku: z.string() }))
  .emit(({ sku }) => ["Placed", { sku }])
  .build();

/** A worker's app: invoices each order on a stream of its own, and says when it ran. */
function worker(ran: (id: number) => void) {
  return act()
    .with(Shop)
    .on("Placed")
    .do(async function invoice(e) {
      ran(e.id);
    })
    .to((e) => ({ target: `invoice-${e.stream}` }));
}

/** The next release: it also audits every note of the log, on a stream per notes stream. */
function auditing(ran: (id: number) => void, audited: () => void) {
  return worker(ran)
    .on("Noted")
    .do(async function audit() {
      audited();
    })
    .to((e) => ({ target: `audit-${e.stream}` }))
    .build();
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

/** Counts the events the store hands out from now on. */
function countReads(log: Store): { read: number; stop: () => void } {
  const query = log.query;
  const counter = {
    read: 0,
    stop: () => {
      log.query = query;
    },
  };
  log.query = ((callback: (event: never) => void, q?: object) =>
    query.call(
      log,
      (event) => {
        counter.read++;
        callback(event as never);
      },
      q
    )) as Store["query"];
  return counter;
}

type Row = {
  store: string;
  events: number;
  fill: number;
  /** Restart to first reaction: each restart's time (undefined past the cap), drains and events read. */
  restarts: Array<{ ms: number | undefined; drains: number; read: number }>;
  serverless: { ms: number | undefined; drains: number };
  backfill: {
    discoveredMs: number | undefined;
    handledMs: number | undefined;
    /** Orders committed during the backfill, each order's reaction time, and those never answered. */
    orders: number;
    newWork: number[];
    unanswered: number;
  };
};

/** Starts a consumer, commits an order right after its first drain, and times the order's reaction. */
async function restart(log: Store) {
  let reacted: number | undefined;
  let target = -1;
  const app = worker((id) => {
    if (id === target) reacted ??= performance.now();
  }).build();
  let drains = 0;
  const drain = app.drain.bind(app);
  let first: () => void = () => {};
  const firstDrain = new Promise<void>((resolve) => {
    first = resolve;
  });
  app.drain = async (options) => {
    try {
      return await drain(options);
    } finally {
      drains++;
      if (drains === 1) first();
    }
  };
  app.start();
  await firstDrain;
  const counter = countReads(log);
  const drainsBefore = drains;
  const committed = performance.now();
  const [placed] = await app.do("place", { stream: "order-1", actor }, { sku: "a" });
  target = placed.event!.id;
  while (reacted === undefined && performance.now() - committed < CAP) await sleep(5);
  counter.stop();
  await app.stop();
  return {
    ms: reacted === undefined ? undefined : Math.round(reacted - committed),
    drains: drains - drainsBefore,
    read: counter.read,
  };
}

/** A cold serverless invocation: the scaling guide's loop, once, after an order was committed. */
async function serverless() {
  let reacted: number | undefined;
  let target = -1;
  const app = worker((id) => {
    if (id === target) reacted ??= performance.now();
  }).build();
  const [placed] = await app.do("place", { stream: "order-2", actor }, { sku: "b" });
  target = placed.event!.id;
  const started = performance.now();
  let drains = 0;
  let drained: Awaited<ReturnType<typeof app.drain>>;
  do {
    drained = await app.drain({ streamLimit: 20, eventLimit: 50, leaseMillis: 15_000 });
    drains++;
  } while (
    reacted === undefined &&
    (drained.acked.length || (await app.correlate()).behind) &&
    performance.now() - started < CAP
  );
  return { ms: reacted === undefined ? undefined : Math.round(reacted - started), drains };
}

/**
 * The release adding a reaction to every note: its backfill's pace, and the
 * others' new work meanwhile — an order every 200 ms until the backfill is
 * handled, each order's reaction time taken.
 */
async function backfill(log: Store, size: number) {
  const placed = new Map<number, number>();
  const waits: number[] = [];
  let audited = 0;
  const app = auditing(
    (id) => {
      const at = placed.get(id);
      if (at === undefined) return;
      waits.push(performance.now() - at);
      placed.delete(id);
    },
    () => audited++
  );
  // The end of the log before the release starts: its discovery is done past it.
  let end = -1;
  await log.query((event) => (end = event.id), { backward: true, limit: 1 });
  const started = performance.now();
  app.start();
  let discoveredMs: number | undefined;
  let handledMs: number | undefined;
  let order = 0;
  let next = started;
  while (performance.now() - started < CAP) {
    if (performance.now() >= next) {
      const [committed] = await app.do("place", { stream: `order-b${order++}`, actor }, { sku: "c" });
      placed.set(committed.event!.id, performance.now());
      next += 200;
    }
    if (discoveredMs === undefined) {
      const at = (await log.discovered(["Noted/audit"])).get("Noted/audit") ?? -1;
      if (at >= end) discoveredMs = Math.round(performance.now() - started);
    }
    if (audited >= size) {
      handledMs = Math.round(performance.now() - started);
      break;
    }
    await sleep(50);
  }
  // The orders still waiting when the backfill ended get their reaction now.
  const drained = performance.now();
  while (placed.size && performance.now() - drained < 5_000) await sleep(5);
  await app.stop();
  return { discoveredMs, handledMs, orders: order, newWork: waits.map(Math.round), unanswered: placed.size };
}

async function measure(label: string, make: () => Promise<Store>, size: number): Promise<Row> {
  await disposeAndExit();
  const log = await make();
  store(log);
  const filled = performance.now();
  for (let done = 0; done < size; done += 1_000) {
    const messages = Array.from({ length: Math.min(1_000, size - done) }, (_, i) => ({
      name: "Noted",
      data: { text: `${done + i}` },
    }));
    await log.commit({
      stream: `notes-${(done / 1_000) % 100}`,
      messages,
      meta: { correlation: "fill", causation: {} },
    });
  }
  const fill = performance.now() - filled;
  // The process that ran before: it correlated the whole log.
  const before = worker(() => {}).build();
  for (let after = -1; ; ) {
    const { lastId } = await before.correlate({ after, limit: 10_000 });
    if (lastId <= after) break;
    after = lastId;
  }
  const restarts = [];
  for (let i = 0; i < REPEAT; i++) restarts.push(await restart(log));
  const row: Row = {
    store: label,
    events: size,
    fill: Math.round(fill),
    restarts,
    serverless: await serverless(),
    backfill: await backfill(log, size),
  };
  console.log(JSON.stringify(row));
  await log.drop?.();
  return row;
}

async function main() {
  const rows: Row[] = [];
  let server: PgServer | undefined;
  let url = process.env.DATABASE_URL;
  try {
    for (const size of SIZES) {
      if (STORES.includes("memory")) rows.push(await measure("memory", async () => new InMemoryStore(), size));
      if (STORES.includes("postgres")) {
        if (!url) {
          server = await startServer({ durable: true });
          url = server.url;
        }
        const connectionString = url;
        rows.push(
          await measure(
            "postgres",
            async () => {
              const pg = new PostgresStore({ connectionString, table: "bench_restart" });
              await pg.drop();
              await pg.seed();
              return pg;
            },
            size
          )
        );
      }
    }
  } finally {
    await disposeAndExit();
    await server?.stop();
  }
  const ms = (v: number | undefined) =>
    v === undefined ? `> ${CAP.toLocaleString("en")} ms` : `${v.toLocaleString("en")} ms`;
  console.log(
    "\n| store | events in the log | restart to first reaction p50 / p99 (n) | serverless first invocation | backfill: discovered (events/s) | backfill: handled (events/s) | new work during the backfill: p50 / p99 / max (orders) |"
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    const times = r.restarts.map((x) => x.ms ?? Number.POSITIVE_INFINITY);
    const rate = r.backfill.discoveredMs ? Math.round(r.events / (r.backfill.discoveredMs / 1000)) : undefined;
    const handled = r.backfill.handledMs ? Math.round(r.events / (r.backfill.handledMs / 1000)) : undefined;
    const waits = r.backfill.newWork;
    const unanswered = r.backfill.unanswered ? `, ${r.backfill.unanswered} unanswered` : "";
    console.log(
      `| ${r.store} | ${r.events.toLocaleString("en")} | ${ms(quantile(times, 0.5))} / ${ms(quantile(times, 0.99))} (${times.length}) | ${ms(r.serverless.ms)} in ${r.serverless.drains} drain(s) | ${ms(r.backfill.discoveredMs)} (${rate?.toLocaleString("en") ?? "-"}/s) | ${ms(r.backfill.handledMs)} (${handled?.toLocaleString("en") ?? "-"}/s) | ${ms(quantile(waits, 0.5))} / ${ms(quantile(waits, 0.99))} / ${ms(Math.max(...waits))} (${waits.length}${unanswered}) |`
    );
  }
}

await main();
