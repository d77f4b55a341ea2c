import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

// Spans started while others run must see them as their parents, as under
// any Node SDK set-up.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

/** A tracer and meter provider whose spans and metrics the test reads back from memory. */
export function telemetry() {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });

  /** Every data point of one metric, as of now. */
  const points = async (name: string) => {
    exporter.reset();
    await reader.forceFlush();
    return exporter
      .getMetrics()
      .flatMap((r) => r.scopeMetrics)
      .flatMap((s) => s.metrics)
      .filter((m) => m.descriptor.name === name)
      .flatMap((m) => m.dataPoints as DataPoint<number | Histogram>[]);
  };

  return {
    tracerProvider,
    meterProvider,
    /** The spans ended so far. */
    spans: (): ReadableSpan[] => spans.getFinishedSpans(),
    /** The one ended span of this name. */
    span(name: string): ReadableSpan {
      const found = spans.getFinishedSpans().filter((s) => s.name === name);
      if (found.length !== 1) throw new Error(`${found.length} spans named "${name}"`);
      return found[0];
    },
    points,
    /** Every metric of the collection `points` made last. */
    metrics: () =>
      exporter
        .getMetrics()
        .flatMap((r) => r.scopeMetrics)
        .flatMap((s) => s.metrics),
    /** The value of a counter or gauge for the data point whose attributes include `attributes` (0 when none). */
    async value(name: string, attributes: Record<string, unknown> = {}) {
      const match = (await points(name)).filter((p) =>
        Object.entries(attributes).every(([k, v]) => p.attributes[k] === v)
      );
      return match.reduce((sum, p) => sum + (typeof p.value === "number" ? p.value : p.value.count), 0);
    },
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

/** The id of a span's parent, if it has one. */
export const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
