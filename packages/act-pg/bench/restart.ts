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
 * and the events read meanwhile. A measurement that passes `RESTART_CAP_MS`
 * (default 180,000) is stopped and printed as "> cap".
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
    .to((e) => ({ target: `invoice-${e.stream}` }))
    .build();
}

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

type Row = { store: string; events: number; fill: number; ms: number | undefined; drains: number; read: number };

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
    await log.commit(`notes-${done % 100}`, messages, { correlation: "fill", causation: {} });
  }
  const fill = performance.now() - filled;
  // The process that ran before: it correlated the whole log.
  const before = worker(() => {});
  for (let after = -1; ; ) {
    const { last_id } = await before.correlate({ after, limit: 10_000 });
    if (last_id <= after) break;
    after = last_id;
  }

  // The new process: a consumer with the default options, and an order right after its first drain.
  let reacted: number | undefined;
  let target = -1;
  const app = worker((id) => {
    if (id === target) reacted ??= performance.now();
  });
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
  const row = {
    store: label,
    events: size,
    fill: Math.round(fill),
    ms: reacted === undefined ? undefined : Math.round(reacted - committed),
    drains: drains - drainsBefore,
    read: counter.read,
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
  console.log("\n| store | events in the log | restart to first reaction | drains | events read |");
  console.log("|---|---:|---:|---:|---:|");
  for (const r of rows)
    console.log(
      `| ${r.store} | ${r.events.toLocaleString("en")} | ${r.ms === undefined ? `> ${CAP.toLocaleString("en")} ms` : `${r.ms.toLocaleString("en")} ms`} | ${r.drains} | ${r.read.toLocaleString("en")} |`
    );
}

await main();
