import { type MeterProvider, metrics, type TracerProvider, trace } from "@opentelemetry/api";
import { type Act, observe, type Store, store, type Tenants } from "@act-root/act";
import { checkTenantId } from "@act-root/act/internal";
import { observeLag } from "./lag-gauges.js";
import { observeTimers } from "./timer-gauges.js";
import { actMetrics } from "./metrics.js";
import { actObserver } from "./observer.js";
import { traceStore } from "./store.js";
import { isTenants, scopeOf } from "./tenant-scope.js";

/** The instrumentation scope name of every tracer and meter this package gets. */
const SCOPE = "@act-root/act-otel";

/**
 * Options of {@link instrument}. Every one is optional: by default the
 * global tracer and meter providers are used (the ones your OpenTelemetry
 * SDK set-up registers), store calls get spans, and the lag of each reaction
 * is observed (one series per reaction; per-stream series only with
 * `lagStreams`).
 *
 * @experimental
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
  /**
   * The one tenant to measure: every `act.*` metric carries `act.tenant`
   * with this id. Given a `Tenants`, only this tenant's work is measured and
   * only its store gauged — nothing of another tenant shows; given apps (a
   * process that serves one tenant), all their work counts as this
   * tenant's. Spans are not scoped: they cover every app of the process,
   * and those of a tenant's work carry `act.tenant` whatever this says.
   */
  readonly tenant?: string;
};

/**
 * What {@link instrument} returns: a handle to turn the instrumentation off.
 *
 * @experimental
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
 * Given a `Tenants` (`act()…buildTenants(…)`), every metric of a tenant's
 * work carries its id as `act.tenant` — one series per tenant added, so as
 * many as the process serves — and the gauges observe every tenant served;
 * `tenant` narrows it all to one tenant. The spans of a tenant's actions,
 * loads, drains, reactions and projection batches carry `act.tenant` too.
 *
 * The hooks are process-wide: every app of the process is traced, and
 * the calls to each app's store (its own, from `build({ store })`, or the
 * store port's) get spans; pass every app whose reaction streams should be
 * measured. A second call replaces the first. Without it nothing is
 * recorded and the apps pay nothing.
 *
 * @experimental
 * @param apps - the app (or apps) whose reaction streams' lag is observed, or the tenants; optional
 * @param options - providers, store spans, the lag gauge and the tenant (see {@link InstrumentOptions})
 * @returns a handle whose `stop()` turns it off
 * @throws RangeError for a `lagStreams` out of range
 * @throws ValidationError naming `tenant` when it is not a tenant id
 * @see [Observability](/docs/guides/observability) — the set-up, every span and metric, and how to read them.
 * @example
 * ```ts
 * import { instrument } from "@act-root/act-otel";
 *
 * instrument(app);
 * instrument(tenants); // every metric with act.tenant
 * instrument(tenants, { tenant: "acme" }); // acme's only
 * ```
 */
export function instrument(
  apps?: Act<any, any, any> | ReadonlyArray<Act<any, any, any>> | Tenants<any, any, any>,
  options: InstrumentOptions = {}
): Instrumented {
  current?.stop();
  const { storeSpans = true, lagLimit, lagStreams = 0, tenant } = options;
  if (!Number.isInteger(lagStreams) || lagStreams < 0 || lagStreams > 1_000)
    throw new RangeError(`instrument(): lagStreams must be a whole number from 0 to 1,000, got ${String(lagStreams)}`);
  if (tenant !== undefined) checkTenantId(tenant);
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE);
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE);

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

  const scope = scopeOf(apps, tenant);
  const unobserve = observe(actObserver(tracer, actMetrics(meter), traceTheStore, scope));

  // The lag gauges read the apps' stats: only for the apps (or tenants) passed, and not when turned off.
  const gauged = isTenants(apps) || (apps !== undefined && (!Array.isArray(apps) || apps.length > 0));
  const unobserveGauges = lagLimit !== false && gauged ? observeLag(meter, scope, lagLimit, lagStreams) : () => {};
  // The timer gauges count in the apps' stores: only for the apps (or tenants) passed.
  const unobserveTimers = gauged ? observeTimers(meter, scope) : () => {};

  const instrumented: Instrumented = {
    stop() {
      unobserve();
      unobserveGauges();
      unobserveTimers();
      for (const undo of traced.values()) undo();
      traced.clear();
      if (current === instrumented) current = undefined;
    },
  };
  current = instrumented;
  return instrumented;
}
