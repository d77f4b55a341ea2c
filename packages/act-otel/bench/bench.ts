/**
 * Overhead of the instrumentation (no assertions: benchmarks never assert
 * timings). The core benchmark's workloads — W1: actions on one stream, W2:
 * actions on 1,000 streams, W5: reactions drained — each with the
 * instrumentation off, on with OpenTelemetry's no-op providers (the API
 * without an SDK), and on with the SDK: a batch span processor into an
 * in-memory exporter, and a meter provider with a reader. Each way of turning
 * it on runs in a process of its own, against "off" in that same process, a
 * few times each; the medians are kept. Prints a table with ratios to
 * "off" and a JSON line. Run: `npm run bench -w @act-root/act-otel`.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { act, disposeAndExit, InMemoryStore, state, store } from "@act-root/act";
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { z } from "zod";
import { instrument } from "../src/index.js";

const actor = { id: "bench", name: "bench" };
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const Counter = state("Counter", z.object({ count: z.number() }))
  .init(() => ({ count: 0 }))
  .emits({ Incremented: z.object({ by: z.number() }) })
  .patch({ Incremented: (e, s) => ({ count: s.count + e.data.by }) })
  .on("increment", z.object({ by: z.number() }))
  .emit(({ by }) => ["Incremented", { by }])
  .build();

const Mirror = state("Mirror", z.object({ count: z.number() }))
  .init(() => ({ count: 0 }))
  .emits({ Mirrored: z.object({ by: z.number() }) })
  .patch({ Mirrored: (e, s) => ({ count: s.count + e.data.by }) })
  .on("mirror", z.object({ by: z.number() }))
  .emit(({ by }) => ["Mirrored", { by }])
  .build();

const reacting = () =>
  act()
    .with(Counter)
    .with(Mirror)
    .on("Incremented")
    .do(async (event, _stream, app) => {
      await app.do("mirror", { stream: `mirror-${event.stream}`, actor }, { by: event.data.by }, { reactingTo: event });
    })
    .build();

async function fresh() {
  await disposeAndExit();
  store(new InMemoryStore());
}

const seconds = async (run: () => Promise<unknown>) => {
  const start = performance.now();
  await run();
  return (performance.now() - start) / 1000;
};

/** Each workload: a fresh store and app, and what it measures, per second. */
const WORKLOADS: Record<string, (on: (app: any) => void) => Promise<number>> = {
  "W1 actions/s, 1 stream x 10,000": async (on) => {
    await fresh();
    const app = act().with(Counter).build();
    on(app);
    const t = await seconds(async () => {
      for (let i = 0; i < 10_000; i++) await app.do("increment", { stream: "one", actor }, { by: 1 });
    });
    return 10_000 / t;
  },
  "W2 actions/s, 1,000 streams x 10": async (on) => {
    await fresh();
    const app = act().with(Counter).build();
    on(app);
    const t = await seconds(async () => {
      for (let s = 0; s < 1_000; s++)
        for (let i = 0; i < 10; i++) await app.do("increment", { stream: `s-${s}`, actor }, { by: 1 });
    });
    return 10_000 / t;
  },
  "W5 reactions/s drained (1,000 events, streamLimit 100)": async (on) => {
    await fresh();
    const app = reacting();
    for (let i = 0; i < 1_000; i++) await app.do("increment", { stream: `r-${i}`, actor }, { by: 1 });
    on(app);
    let reactions = 0;
    const t = await seconds(async () => {
      for (;;) {
        const { acked } = await app.drain({ streamLimit: 100, eventLimit: 10 });
        if (!acked.length) break;
        reactions += acked.length;
      }
    });
    return reactions / t;
  },
};

/** The two ways to turn it on, each measured against "off" in a process of its own. */
const MODES = ["no-op provider", "SDK, batch processor"] as const;
type Mode = (typeof MODES)[number];

/** Turns the instrumentation on for an app as `mode` says; `after` cleans up after a run. */
function setUp(mode: Mode) {
  let stop = () => {};
  if (mode === "no-op provider")
    return {
      on: (app: any) => {
        stop = instrument(app).stop;
      },
      after: async () => stop(),
      shutdown: async () => {},
    };
  // As a Node SDK set-up does: the AsyncLocalStorage context manager, a batch
  // span processor, and a meter provider with a reader.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(spans)] });
  const reader = new PeriodicExportingMetricReader({
    exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
    exportIntervalMillis: 10_000,
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    on: (app: any) => {
      stop = instrument(app, { tracerProvider, meterProvider }).stop;
    },
    async after() {
      stop();
      await tracerProvider.forceFlush();
      spans.reset();
    },
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * One process: every workload `ROUNDS` times off, then `ROUNDS` times in
 * `mode` (off first: once the SDK's context manager has run, every promise
 * of the process pays for it, off too). Prints the medians as a JSON line.
 */
async function child(mode: Mode) {
  const run = setUp(mode);
  const off = { on: (_app: unknown) => {}, after: async () => {} };
  const samples: Record<string, { off: number[]; on: number[] }> = {};
  for (const [which, how] of [
    ["off", off],
    ["on", run],
  ] as const) {
    // Warm the JIT on this path first.
    await fresh();
    const warm = act().with(Counter).build();
    how.on(warm);
    for (let i = 0; i < 5_000; i++) await warm.do("increment", { stream: `w-${i % 100}`, actor }, { by: 1 });
    await how.after();
    for (let round = 0; round < ROUNDS; round++)
      for (const [workload, measure] of Object.entries(WORKLOADS)) {
        samples[workload] ??= { off: [], on: [] };
        samples[workload][which].push(await measure(how.on));
        await how.after();
      }
  }
  await run.shutdown();
  await disposeAndExit();
  const medians = Object.fromEntries(
    Object.entries(samples).map(([workload, { off, on }]) => [workload, { off: median(off), on: median(on) }])
  );
  console.log(JSON.stringify(medians));
}

/** Runs each mode in a child process and prints its figures against "off" in the same process. */
function main() {
  const rows = [];
  const results: Record<string, Record<string, { off: number; on: number }>> = {};
  for (const mode of MODES) {
    const { stdout, status, stderr } = spawnSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url)],
      {
        env: { ...process.env, NODE_ENV: "test", BENCH_MODE: mode },
        encoding: "utf8",
      }
    );
    if (status !== 0) throw new Error(`${mode}: ${stderr}`);
    const figures = JSON.parse(stdout.trim().split("\n").pop()!) as Record<string, { off: number; on: number }>;
    results[mode] = figures;
    for (const [workload, { off, on }] of Object.entries(figures))
      rows.push({
        mode,
        workload,
        off: Math.round(off),
        on: Math.round(on),
        "on / off": Number((on / off).toFixed(2)),
      });
  }
  console.log(`\n@act-root/act-otel — instrumentation overhead, in-memory store (medians of ${ROUNDS} runs)`);
  console.table(rows);
  console.log(JSON.stringify({ package: "@act-root/act-otel", store: "in-memory", node: process.version, results }));
}

const mode = process.env.BENCH_MODE as Mode | undefined;
if (mode) void child(mode);
else main();
