/**
 * Core benchmark (no assertions): actions, loads and drained reactions on the
 * in-memory store, and the cost of personal fields (`personal.ts`). Prints a table and a JSON line. Run: `npm run bench`.
 */
import { z } from "zod";
import { act, disposeAndExit, InMemoryStore, state, store } from "../src/index.js";
import { benchPersonal } from "./personal.js";

const actor = { id: "bench", name: "bench" };

const counter = (snapEvery?: number) => {
  const builder = state("Counter", z.object({ count: z.number() }))
    .init(() => ({ count: 0 }))
    .emits({ Incremented: z.object({ by: z.number() }) })
    .patch({ Incremented: (e, s) => ({ count: s.count + e.data.by }) })
    .on("increment", z.object({ by: z.number() }))
    .emit(({ by }) => ["Incremented", { by }]);
  return snapEvery ? builder.snap((s) => s.patches >= snapEvery).build() : builder.build();
};

const Mirror = state("Mirror", z.object({ count: z.number() }))
  .init(() => ({ count: 0 }))
  .emits({ Mirrored: z.object({ by: z.number() }) })
  .patch({ Mirrored: (e, s) => ({ count: s.count + e.data.by }) })
  .on("mirror", z.object({ by: z.number() }))
  .emit(({ by }) => ["Mirrored", { by }])
  .build();

async function time(run: () => Promise<void>) {
  const start = performance.now();
  await run();
  return (performance.now() - start) / 1000;
}

async function fresh() {
  await disposeAndExit();
  store(new InMemoryStore());
}

const Ledger = state("Ledger", z.object({ total: z.number() }))
  .init(() => ({ total: 0 }))
  .emits({ Posted: z.object({ by: z.number() }) })
  .patch({ Posted: (e, s) => ({ total: s.total + e.data.by }) })
  .on("post", z.object({ by: z.number() }))
  .emit(({ by }) => ["Posted", { by }])
  .build();

/** An app whose reaction posts each increment to `ledger-<stream>`: the resolver names only a target. */
const ledgerApp = () =>
  act()
    .with(counter())
    .with(Ledger)
    .on("Incremented")
    .do(async (event, stream, app) => {
      await app.do("post", { stream, actor }, { by: event.data.by }, { reactingTo: event });
    })
    .to((event) => ({ target: `ledger-${event.stream}` }))
    .build();

const percentile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** Commit-to-handled latency with the running consumer: `rate` commits per second for `count` commits. */
async function latency(rate: number, count: number) {
  await fresh();
  const app = ledgerApp();
  const handled: number[] = [];
  const committedAt = new Map<number, number>();
  app.on("committed", (snapshots) => {
    for (const s of snapshots) if (s.event?.name === "Incremented") committedAt.set(s.event.id, performance.now());
  });
  const seen = new Set<number>();
  // Measure when the ledger's action for an event commits: the reaction's effect is visible.
  app.on("committed", (snapshots) => {
    for (const s of snapshots) {
      const cause = s.event?.meta.causation.event?.id;
      if (s.event?.name === "Posted" && cause !== undefined && !seen.has(cause)) {
        seen.add(cause);
        handled.push(performance.now() - committedAt.get(cause)!);
      }
    }
  });
  app.start();
  const gap = 1000 / rate;
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const due = start + i * gap;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    await app.do("increment", { stream: `l-${i % 20}`, actor }, { by: 1 });
  }
  while (handled.length < count) await new Promise((r) => setTimeout(r, 5));
  await app.stop();
  const sorted = handled.sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
}

async function main() {
  process.env.NODE_ENV ??= "test";
  const results: Record<string, number> = {};

  // Warm the JIT so the first measurement is not penalised.
  await fresh();
  const warm = act().with(counter()).build();
  for (let i = 0; i < 20_000; i++) await warm.do("increment", { stream: `w-${i % 100}`, actor }, { by: 1 });

  await fresh();
  const one = act().with(counter()).build();
  const n1 = 10_000;
  const t1 = await time(async () => {
    for (let i = 0; i < n1; i++) await one.do("increment", { stream: "one", actor }, { by: 1 });
  });
  results["actions/s, 1 stream x 10,000"] = n1 / t1;

  await fresh();
  const many = act().with(counter()).build();
  const t2 = await time(async () => {
    for (let s = 0; s < 1_000; s++)
      for (let i = 0; i < 10; i++) await many.do("increment", { stream: `s-${s}`, actor }, { by: 1 });
  });
  results["actions/s, 1,000 streams x 10"] = 10_000 / t2;
  results["ratio many/one (want <= 2)"] =
    results["actions/s, 1,000 streams x 10"] / results["actions/s, 1 stream x 10,000"];

  for (const snapEvery of [0, 100]) {
    await fresh();
    const State = counter(snapEvery || undefined);
    const app = act().with(State).build();
    for (let i = 0; i < 5_000; i++) await app.do("increment", { stream: "long", actor }, { by: 1 });
    const loads = 200;
    // Timed as an app loads (no callback: a load handed each snapshot makes
    // a state object per event for it to keep); one more load counts the events read.
    const t = await time(async () => {
      for (let i = 0; i < loads; i++) await app.load(State, "long");
    });
    let read = 0;
    await app.load(State, "long", { onSnapshot: () => read++ });
    const label = snapEvery ? "with .snap every 100" : "no snapshots";
    results[`loads/s, 5,000 events, ${label}`] = loads / t;
    results[`events read per load, ${label}`] = read;
  }

  await fresh();
  const reacting = act()
    .with(counter())
    .with(Mirror)
    .on("Incremented")
    .do(async (event, _stream, app) => {
      await app.do("mirror", { stream: `mirror-${event.stream}`, actor }, { by: event.data.by }, { reactingTo: event });
    })
    .build();
  for (let i = 0; i < 1_000; i++) await reacting.do("increment", { stream: `r-${i}`, actor }, { by: 1 });
  let reactions = 0;
  const t5 = await time(async () => {
    for (;;) {
      const { acked } = await reacting.drain({ streamLimit: 100, eventLimit: 10 });
      if (!acked.length) break;
      reactions += acked.length;
    }
  });
  results["reactions/s drained (1,000 events, streamLimit 100)"] = reactions / t5;

  // The workload a new user writes first: default drain options, a resolver
  // that names only a target, 1,000 events over 100 streams.
  await fresh();
  const ledgers = ledgerApp();
  for (let i = 0; i < 1_000; i++) await ledgers.do("increment", { stream: `acc-${i % 100}`, actor }, { by: 1 });
  let cycles = 0;
  let posted = 0;
  ledgers.on("committed", (snapshots) => (posted += snapshots.filter((s) => s.event?.name === "Posted").length));
  const t6 = await time(async () => {
    for (;;) {
      cycles++;
      const { acked } = await ledgers.drain();
      if (!acked.length) break;
    }
  });
  results["reactions/s, defaults, target-only resolver (1,000 events, 100 targets)"] = posted / t6;
  results["drain cycles for it (want <= 1,000 / (10 x 10) + 2 = 12)"] = cycles;

  const idle = await latency(20, 200);
  results["commit→reaction p50 ms, consumer, idle (20 commits/s)"] = idle.p50;
  results["commit→reaction p99 ms, consumer, idle (want < 50)"] = idle.p99;
  const busy = await latency(200, 1_000);
  results["commit→reaction p50 ms, consumer, 200 commits/s"] = busy.p50;
  results["commit→reaction p99 ms, consumer, 200 commits/s"] = busy.p99;
  Object.assign(
    results,
    await benchPersonal(async () => {
      await fresh();
      return store();
    })
  );
  results["peak RSS (MB)"] = process.resourceUsage().maxRSS / 1024;

  const rows = Object.entries(results).map(([metric, value]) => ({
    metric,
    value: Number(value.toFixed(value < 10 ? 2 : 0)),
  }));
  console.log("\n@act-root/act — in-memory store");
  console.table(rows);
  console.log(
    JSON.stringify({
      package: "@act-root/act",
      store: "in-memory",
      node: process.version,
      results: Object.fromEntries(rows.map((r) => [r.metric, r.value])),
    })
  );
  await disposeAndExit();
}

void main();
