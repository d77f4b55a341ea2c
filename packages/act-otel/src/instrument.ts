import {
  type Attributes,
  type BatchObservableCallback,
  type Context,
  context,
  isSpanContextValid,
  type Link,
  type MeterProvider,
  metrics,
  type Span,
  SpanKind,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import {
  type Act,
  type ActionInfo,
  type ActionOutcome,
  logger,
  type Observer,
  observe,
  type ProjectionInfo,
  type ReactionInfo,
  SNAP_EVENT,
  type Store,
  store,
} from "@act-root/act";
import { A, DURATION_BUCKETS, LATENCY_BUCKETS, M } from "./names.js";
import { lagSeries, metricNames, reactionAttributes, type StreamLag, streamAttributes } from "./lag.js";
import { errorType, fail, now } from "./spans.js";
import { DRAIN, materialize, type Pending, traceStore } from "./store.js";
import { carrier, linkTo } from "./trace-context.js";

/** The instrumentation scope name of every tracer and meter this package gets. */
const SCOPE = "@act-root/act-otel";

/**
 * Options of {@link instrument}. Every one is optional: by default the
 * global tracer and meter providers are used (the ones your OpenTelemetry
 * SDK set-up registers), store calls get spans, and the lag of each reaction
 * is observed (one series per reaction; per-stream series only with
 * `lagStreams`).
 *
 * @example
 * ```ts
 * import { instrument, type InstrumentOptions } from "@act-root/act-otel";
 *
 * const options: InstrumentOptions = { storeSpans: false, lagLimit: 1_000 };
 * instrument(app, options);
 * ```
 */
export type InstrumentOptions = {
  /** Where spans go (default: the global tracer provider, `trace.getTracerProvider()`). */
  readonly tracerProvider?: TracerProvider;
  /** Where metrics go (default: the global meter provider, `metrics.getMeterProvider()`). */
  readonly meterProvider?: MeterProvider;
  /** Give each call of the store a client span (default true). */
  readonly storeSpans?: boolean;
  /**
   * How many events the lag gauge reads per collection, from the lowest
   * watermark with work on (it calls `app.stats(lagLimit)`); `false` turns
   * the lag and blocked-streams gauges off. Default: `app.stats()`'s own
   * (1,000), so the gauge and a dashboard calling `app.stats()` agree.
   */
  readonly lagLimit?: number | false;
  /**
   * Also observe the lag of single reaction streams, by name
   * (`act.reaction.stream.lag`): the this-many streams furthest behind at
   * each collection (default 0: none). Stream names are often chosen by
   * clients — an order or ticket id, an e-mail — and every distinct name is
   * a series of its own in the metrics backend, so keep it small (at most
   * 1,000) and turn it on where stream names hold no personal data.
   */
  readonly lagStreams?: number;
};

/**
 * What {@link instrument} returns: a handle to turn the instrumentation off.
 *
 * @example
 * ```ts
 * import { instrument, type Instrumented } from "@act-root/act-otel";
 *
 * const instrumented: Instrumented = instrument(app);
 * instrumented.stop(); // back to no instrumentation at all
 * ```
 */
export type Instrumented = {
  /**
   * Turns it off: removes the hooks from the apps, gives the store its own
   * methods back and stops the gauges. Spans already started still end.
   */
  stop(): void;
};

/** The instrumentation in force, so a second `instrument` replaces it instead of doubling every span. */
let current: Instrumented | undefined;

/** Seconds from an event's commit to now. */
const latencyOf = (event: { created: Date }) => Math.max(0, Date.now() - event.created.getTime()) / 1000;

/** Seconds since a `performance.now()` reading. */
const since = (start: number) => (performance.now() - start) / 1000;

/**
 * Turns on OpenTelemetry traces and metrics for Act in this process — one
 * line, after your OpenTelemetry SDK is set up:
 *
 * - a span per action (`do <action>`), per load (`load <state>`), per store
 *   call (`commit`, `query`, `lease`, … with `db.*` attributes), per drain
 *   cycle that leased something (`drain`), per reaction handler run
 *   (`process <event>`, a consumer span linked to the action that committed
 *   the event, in whichever process and however long before) and per
 *   projection batch (`project <projection>`, linked to the actions that
 *   committed its events);
 * - the trace context of each action kept in the metadata of the events it
 *   commits (`meta.trace`), which is what those links are made from;
 * - the `act.*` metrics: actions, commits and conflicts, events per commit,
 *   reaction and projection-batch durations, commit-to-handled latency,
 *   retries, blocks, drain
 *   cycles and leases, and — for the apps passed — the lag of each
 *   reaction (summed over its streams) and the number of blocked streams.
 *   No metric carries a stream name, correlation id or payload unless
 *   `lagStreams` asks for the streams furthest behind by name.
 *
 * The hooks are process-wide: every app of the process is traced, and
 * the calls to each app's store (its own, from `build({ store })`, or the
 * store port's) get spans; pass every app whose reaction streams should be
 * measured. A second call replaces the first. Without it nothing is
 * recorded and the apps pay nothing.
 *
 * @param apps - the app (or apps) whose reaction streams' lag is observed; optional
 * @param options - providers, store spans and the lag gauge (see {@link InstrumentOptions})
 * @returns a handle whose `stop()` turns it off
 * @see [Observability](/docs/guides/observability) — the set-up, every span and metric, and how to read them.
 * @example
 * ```ts
 * import { instrument } from "@act-root/act-otel";
 *
 * instrument(app);
 * ```
 */
export function instrument(
  apps?: Act<any, any, any> | ReadonlyArray<Act<any, any, any>>,
  options: InstrumentOptions = {}
): Instrumented {
  current?.stop();
  const { storeSpans = true, lagLimit, lagStreams = 0 } = options;
  if (!Number.isInteger(lagStreams) || lagStreams < 0 || lagStreams > 1_000)
    throw new RangeError(`instrument(): lagStreams must be a whole number from 0 to 1,000, got ${String(lagStreams)}`);
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE);
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE);

  const actionDuration = meter.createHistogram(M.actionDuration, {
    unit: "s",
    description: "How long actions take, from validation to the snapshots returned, by outcome.",
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  const commits = meter.createCounter(M.commits, {
    unit: "{commit}",
    description: "Actions that committed events.",
  });
  const conflicts = meter.createCounter(M.conflicts, {
    unit: "{conflict}",
    description: "Actions that failed with a ConcurrencyError.",
  });
  const eventsPerCommit = meter.createHistogram(M.eventsPerCommit, {
    unit: "{event}",
    description: "Events committed per action that committed.",
    advice: { explicitBucketBoundaries: [1, 2, 3, 5, 10, 20, 50, 100] },
  });
  const reactionDuration = meter.createHistogram(M.reactionDuration, {
    unit: "s",
    description: "How long one run of a reaction handler, or of a projection on a batch, takes, by outcome.",
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  const reactionLatency = meter.createHistogram(M.reactionLatency, {
    unit: "s",
    description: "From an event's commit to the end of a reaction's (or projection batch's) successful run on it.",
    advice: { explicitBucketBoundaries: LATENCY_BUCKETS },
  });
  const retries = meter.createCounter(M.retries, {
    unit: "{retry}",
    description: "Failed reaction (and projection batch) runs that will be retried after a backoff.",
  });
  const blocks = meter.createCounter(M.blocks, {
    unit: "{block}",
    description: "Failed reaction (and projection batch) runs past their retries that block their reaction stream.",
  });
  const drainCycles = meter.createCounter(M.drainCycles, {
    unit: "{cycle}",
    description: "Drain cycles, idle (nothing leased) or not.",
  });
  const drainDuration = meter.createHistogram(M.drainDuration, {
    unit: "s",
    description: "How long drain cycles that leased streams take.",
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  const leases = meter.createCounter(M.leases, {
    unit: "{lease}",
    description: "Reaction streams leased by drain cycles.",
  });

  /** The stores given spans so far, with how to undo it: each app's own, or the store port's. */
  const traced = new Map<Store, () => void>();
  const traceTheStore = (own?: Store) => {
    if (!storeSpans) return;
    try {
      // The app names its store; an app of a core that does not falls back to the port's.
      const adapter = own ?? store();
      if (!traced.has(adapter)) traced.set(adapter, traceStore(adapter, tracer));
    } catch {
      // A disposed port: the action or drain will say so itself.
    }
  };

  /**
   * Whether spans belong to traces: false while the tracer is the API's
   * no-op one (no SDK registered). Then no span is made current, no context
   * is entered and the store calls go straight through — entering an
   * AsyncLocalStorage context for nothing is most of what a no-op costs.
   * Every span started updates it, so an SDK registered later is picked up.
   */
  let live = true;
  /** Runs `run` with `span` current in `parent`, unless spans go nowhere. */
  const within = <T>(span: Span, run: () => Promise<T>, parent: Context = context.active()): Promise<T> => {
    live = isSpanContextValid(span.spanContext());
    return live ? context.with(trace.setSpan(parent, span), run) : run();
  };

  /** The context Act's spans start in: inside a drain, under the drain's span. */
  const parentOf = (active: Context): Context => {
    const pending = active.getValue(DRAIN) as Pending | undefined;
    return pending ? trace.setSpan(pending.parent, materialize(tracer, pending)) : active;
  };

  const observer: Observer = {
    trace: () => carrier(trace.getSpan(context.active())),

    async action(info: ActionInfo, run) {
      traceTheStore(info.store);
      const { state, action, target, reactingTo } = info;
      const measured = { [A.state]: state, [A.action]: action };
      const span = tracer.startSpan(
        `do ${action}`,
        {
          kind: SpanKind.INTERNAL,
          attributes: {
            ...measured,
            [A.stream]: target.stream,
            ...(target.expectedVersion !== undefined && { [A.expectedVersion]: target.expectedVersion }),
            ...(reactingTo && {
              [A.correlation]: reactingTo.meta.correlation,
              [A.eventId]: reactingTo.id,
              [A.eventName]: reactingTo.name,
            }),
          },
        },
        parentOf(context.active())
      );
      const start = performance.now();
      let outcome: ActionOutcome;
      try {
        outcome = await within(span, run);
      } catch (error) {
        const type = errorType(error);
        const kind = ["ConcurrencyError", "ValidationError", "InvariantError"].includes(type) ? type : "error";
        if (type === "ConcurrencyError") {
          const { lastVersion, expectedVersion } = error as { lastVersion: number; expectedVersion: number };
          span.setAttributes({ [A.expectedVersion]: expectedVersion, [A.streamVersion]: lastVersion });
          conflicts.add(1, measured);
        }
        span.setAttribute(A.outcome, kind);
        fail(span, error);
        span.end();
        actionDuration.record(since(start), { ...measured, [A.outcome]: kind });
        throw error;
      }
      const events = outcome.committed
        ? outcome.result.flatMap((s) => (s.event && s.event.name !== SNAP_EVENT ? [s.event] : []))
        : [];
      const kind = events.length ? "committed" : "unchanged";
      const attributes: Attributes = { [A.outcome]: kind, [A.events]: events.length };
      if (events.length) {
        const first = events[0];
        const last = events[events.length - 1];
        attributes[A.expectedVersion] = target.expectedVersion ?? first.version - 1;
        attributes[A.committedVersion] = last.version;
        attributes[A.correlation] = first.meta.correlation;
        attributes[A.snapshot] = outcome.result.some((s) => s.event?.name === SNAP_EVENT);
        commits.add(1, measured);
        eventsPerCommit.record(events.length, measured);
      }
      span.setAttributes(attributes);
      span.end();
      actionDuration.record(since(start), { ...measured, [A.outcome]: kind });
      return outcome;
    },

    async load(info, run) {
      traceTheStore(info.store);
      const span = tracer.startSpan(
        `load ${info.state}`,
        { kind: SpanKind.INTERNAL, attributes: { [A.state]: info.state, [A.stream]: info.stream } },
        parentOf(context.active())
      );
      try {
        const snapshot = await within(span, run);
        span.setAttributes({ [A.streamVersion]: snapshot.event?.version ?? -1, [A.patches]: snapshot.patches });
        return snapshot;
      } catch (error) {
        fail(span, error);
        throw error;
      } finally {
        span.end();
      }
    },

    async drain(info, run) {
      traceTheStore(info.store);
      const parent = context.active();
      const pending: Pending = { parent, start: now(), calls: [] };
      const start = performance.now();
      try {
        const drained = await (live ? context.with(parent.setValue(DRAIN, pending), run) : run());
        const idle = !drained.leased.length;
        drainCycles.add(1, { [A.drainIdle]: idle });
        if (idle) return drained;
        leases.add(drained.leased.length);
        drainDuration.record(since(start));
        const span = materialize(tracer, pending);
        span.setAttributes({
          [A.leased]: drained.leased.length,
          [A.fetched]: drained.fetched.reduce((n, f) => n + f.events.length, 0),
          [A.acked]: drained.acked.length,
          [A.blocked]: drained.blocked.length,
        });
        span.end();
        return drained;
      } catch (error) {
        drainCycles.add(1, { [A.drainIdle]: false });
        const span = materialize(tracer, pending);
        fail(span, error);
        span.end();
        throw error;
      }
    },

    async projection(info: ProjectionInfo, run) {
      const { projection, stream, events, attempt, options: projectionOptions } = info;
      // One link per action that committed an event of the batch.
      const links: Link[] = [];
      const seen = new Set<string>();
      for (const event of events) {
        const traceparent = event.meta.trace?.traceparent;
        if (!traceparent || seen.has(traceparent)) continue;
        seen.add(traceparent);
        const link = linkTo(event.meta.trace, { [A.eventId]: event.id, [A.eventName]: event.name });
        if (link) links.push(link);
      }
      const first = events[0];
      const last = events[events.length - 1];
      const span = tracer.startSpan(
        `project ${projection}`,
        {
          kind: SpanKind.CONSUMER,
          links,
          attributes: {
            [A.messagingSystem]: "act",
            [A.messagingOperationName]: "process",
            [A.messagingOperationType]: "process",
            [A.messagingGroup]: stream,
            [A.messagingBatchCount]: events.length,
            [A.projection]: projection,
            [A.reaction]: stream,
            [A.reactionStream]: stream,
            [A.events]: events.length,
            ...(first && { [A.firstEventId]: first.id, [A.lastEventId]: last.id }),
            [A.attempt]: attempt,
          },
        },
        parentOf(context.active())
      );
      const measured = { [A.reaction]: stream };
      const start = performance.now();
      try {
        const moved = await within(span, run, context.active().deleteValue(DRAIN));
        span.setAttribute(A.outcome, moved ? "handled" : "refused");
        reactionDuration.record(since(start), { ...measured, [A.outcome]: moved ? "handled" : "refused" });
        // Per event, as app.stats() counts a projection's latency.
        if (moved) for (const event of events) reactionLatency.record(latencyOf(event), measured);
        return moved;
      } catch (error) {
        // What the drain does next with this failure, by the same rule it applies.
        const outcome = attempt <= projectionOptions.maxRetries ? "retry" : "blocked";
        span.setAttribute(A.outcome, outcome);
        fail(span, error);
        reactionDuration.record(since(start), { ...measured, [A.outcome]: outcome });
        if (outcome === "retry") retries.add(1, measured);
        else blocks.add(1, measured);
        throw error;
      } finally {
        span.end();
      }
    },

    async reaction(info: ReactionInfo, run) {
      const { reaction, event, stream, attempt, options: reactionOptions } = info;
      const link = linkTo(event.meta.trace, { [A.eventId]: event.id, [A.eventName]: event.name });
      const span = tracer.startSpan(
        `process ${event.name}`,
        {
          kind: SpanKind.CONSUMER,
          links: link ? [link] : [],
          attributes: {
            [A.messagingSystem]: "act",
            [A.messagingOperationName]: "process",
            [A.messagingOperationType]: "process",
            [A.messagingDestination]: event.name,
            [A.messagingGroup]: reaction,
            [A.messagingMessageId]: String(event.id),
            [A.messagingConversation]: event.meta.correlation,
            [A.reaction]: reaction,
            [A.reactionStream]: stream,
            [A.eventId]: event.id,
            [A.eventName]: event.name,
            [A.eventStream]: event.stream,
            [A.attempt]: attempt,
          },
        },
        parentOf(context.active())
      );
      const measured = { [A.reaction]: reaction };
      const start = performance.now();
      try {
        const result = await within(span, run, context.active().deleteValue(DRAIN));
        span.setAttribute(A.outcome, "handled");
        reactionDuration.record(since(start), { ...measured, [A.outcome]: "handled" });
        reactionLatency.record(latencyOf(event), measured);
        return result;
      } catch (error) {
        // What the drain does next with this failure, by the same rule it applies.
        const outcome =
          attempt <= reactionOptions.maxRetries ? "retry" : reactionOptions.blockOnError ? "blocked" : "skipped";
        span.setAttribute(A.outcome, outcome);
        fail(span, error);
        reactionDuration.record(since(start), { ...measured, [A.outcome]: outcome });
        if (outcome === "retry") retries.add(1, measured);
        if (outcome === "blocked") blocks.add(1, measured);
        throw error;
      } finally {
        span.end();
      }
    },
  };

  const unobserve = observe(observer);

  // The lag of each reaction, and how many reaction streams are blocked, from
  // the apps' own stats — the figures `app.stats()` gives, read at each
  // collection. A stream two apps share reports the larger of their lags.
  // One series per reaction, never per stream unless asked (see lag.ts).
  const list = apps === undefined ? [] : Array.isArray(apps) ? apps : [apps as Act<any, any, any>];
  let unobserveGauges = () => {};
  if (lagLimit !== false && list.length) {
    const labels = new Map(list.flatMap((app) => [...metricNames(app)]));
    const lag = meter.createObservableGauge(M.lag, {
      unit: "{event}",
      description: "Events a reaction's streams still have to handle (the sum of their app.stats() lag).",
    });
    const streamLag = meter.createObservableGauge(M.streamLag, {
      unit: "{event}",
      description: "Events one reaction stream still has to handle: the lagStreams streams furthest behind.",
    });
    const blockedStreams = meter.createObservableGauge(M.blockedStreams, {
      unit: "{stream}",
      description: "Reaction streams blocked now.",
    });
    const collect: BatchObservableCallback = async (result) => {
      const streams = new Map<string, StreamLag>();
      for (const app of list) {
        try {
          for (const s of (await app.stats(lagLimit)).streams) {
            const known = streams.get(s.stream);
            streams.set(s.stream, {
              lag: Math.max(known?.lag ?? 0, s.lag),
              blocked: s.blocked,
              reactions: [...s.reactions],
            });
          }
        } catch (error) {
          logger.warn(error, "act-otel: the reaction streams' lag could not be read");
        }
      }
      const series = lagSeries(streams, labels, lagStreams);
      for (const [reaction, value] of series.reactions) result.observe(lag, value, reactionAttributes(reaction));
      for (const [stream, s] of series.streams) result.observe(streamLag, s.lag, streamAttributes(stream, s.blocked));
      result.observe(blockedStreams, series.blocked);
    };
    const observed = [lag, streamLag, blockedStreams];
    meter.addBatchObservableCallback(collect, observed);
    unobserveGauges = () => meter.removeBatchObservableCallback(collect, observed);
  }

  const instrumented: Instrumented = {
    stop() {
      unobserve();
      unobserveGauges();
      for (const undo of traced.values()) undo();
      traced.clear();
      if (current === instrumented) current = undefined;
    },
  };
  current = instrumented;
  return instrumented;
}
