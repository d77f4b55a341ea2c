/**
 * Overhead of the instrumentation (no assertions: benchmarks never assert
 * timings). The core benchmark's workloads — W1: actions on one stream, W2:
 * actions on 1,000 streams, W5: reactions drained — each with the
 * instrumentation off, on with OpenTelemetry's no-op providers (the API
 * without an SDK), and on with the SDK: a batch span processor into an
 * in-memory exporter, and a meter provider with a reader. Each is run a few
 * times, alternating, and the median is kept. Prints a table with ratios to
 * "off" and a JSON line. Run: `npm run bench -w @act-root/act-otel`.
 */
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
import { type InstrumentOptions, instrument } from "../src/index.js";

const actor = { id: "bench", name: "bench" };
const ROUNDS = 3;

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
      await app.do("mirror", { stream: `mirror-${event.stream}`, actor }, { by: event.data.by }, event);
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

/** The three ways to run: how each turns the instrumentation on for an app, and how it cleans up after a run. */
function modes() {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(spans)] });
  const reader = new PeriodicExportingMetricReader({
    exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
    exportIntervalMillis: 10_000,
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  let stop = () => {};
  const with_ = (options?: InstrumentOptions) => (app: any) => {
    stop = instrument(app, options).stop;
  };
  return {
    list: {
      off: () => {},
      "no-op provider": with_(),
      "SDK, batch processor": with_({ tracerProvider, meterProvider }),
    } as Record<string, (app: any) => void>,
    async after() {
      stop();
      stop = () => {};
      await tracerProvider.forceFlush();
      spans.reset();
    },
    spans: () => spans.getFinishedSpans().length,
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

async function main() {
  process.env.NODE_ENV ??= "test";
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const run = modes();

  // Warm the JIT on every path first, so no mode pays for it.
  for (const on of Object.values(run.list)) {
    await fresh();
    const warm = act().with(Counter).build();
    on(warm);
    for (let i = 0; i < 5_000; i++) await warm.do("increment", { stream: `w-${i % 100}`, actor }, { by: 1 });
    await run.after();
  }

  const rows: Array<Record<string, string | number>> = [];
  const results: Record<string, Record<string, number>> = {};
  for (const [workload, measure] of Object.entries(WORKLOADS)) {
    const samples: Record<string, number[]> = {};
    for (let round = 0; round < ROUNDS; round++)
      for (const [mode, on] of Object.entries(run.list)) {
        samples[mode] = [...(samples[mode] ?? []), await measure(on)];
        await run.after();
      }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const figures = Object.fromEntries(Object.entries(samples).map(([mode, xs]) => [mode, median(xs)]));
    results[workload] = figures;
    const off = figures.off;
    rows.push({
      workload,
      ...Object.fromEntries(Object.entries(figures).map(([mode, value]) => [mode, Math.round(value)])),
      "no-op / off": Number((figures["no-op provider"] / off).toFixed(2)),
      "SDK / off": Number((figures["SDK, batch processor"] / off).toFixed(2)),
    });
  }
  await run.shutdown();

  console.log(`\n@act-root/act-otel — instrumentation overhead, in-memory store (median of ${ROUNDS})`);
  console.table(rows);
  console.log(JSON.stringify({ package: "@act-root/act-otel", store: "in-memory", node: process.version, results }));
  await disposeAndExit();
}

void main();
