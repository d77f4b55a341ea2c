import {
  type Attributes,
  type Context,
  context,
  isSpanContextValid,
  type Link,
  type Span,
  SpanKind,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import {
  type ActionInfo,
  type ActionOutcome,
  type Observer,
  type ProjectionInfo,
  type ReactionInfo,
  SNAP_EVENT,
  type Store,
} from "@act-root/act";
import type { ActMetrics } from "./metrics.js";
import { A } from "./names.js";
import { errorType, fail, now } from "./spans.js";
import { DRAIN, materialize, type Pending } from "./store.js";
import type { Scope } from "./tenant-scope.js";
import { carrier, linkTo } from "./trace-context.js";

/** Seconds from an event's commit to now. */
const latencyOf = (event: { created: Date }) => Math.max(0, Date.now() - event.created.getTime()) / 1000;

/** Seconds since a `performance.now()` reading. */
const since = (start: number) => (performance.now() - start) / 1000;

/**
 * The observer {@link instrument} installs: a span per action, load, drain
 * that leased something, reaction run and projection batch, each recording
 * its metrics. Reaction and projection spans are linked to the actions that
 * committed their events (`meta.trace`), and the trace context of each action
 * goes into the events it commits.
 *
 * @param tracer - where the spans go
 * @param metrics - the `act.*` instruments (see {@link actMetrics})
 * @param traceStore - gives the store of an action, load or drain its spans, once per store
 * @param scope - whose work the metrics measure, and the tenant attribute each carries (spans cover all work)
 */
export function actObserver(
  tracer: Tracer,
  metrics: ActMetrics,
  traceStore: (store: Store | undefined) => void,
  scope: Scope
): Observer {
  const {
    actionDuration,
    commits,
    conflicts,
    eventsPerCommit,
    reactionDuration,
    reactionLatency,
    retries,
    blocks,
    drainCycles,
    drainDuration,
    leases,
    timerLateness,
  } = metrics;

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

  return {
    trace: () => carrier(trace.getSpan(context.active())),

    async action(info: ActionInfo, run) {
      traceStore(info.store);
      const { state, action, target, reactingTo } = info;
      const tenant = scope.measure(info.store);
      const measured = { [A.state]: state, [A.action]: action, ...tenant };
      const span = tracer.startSpan(
        `do ${action}`,
        {
          kind: SpanKind.INTERNAL,
          attributes: {
            [A.state]: state,
            [A.action]: action,
            ...scope.owner(info.store),
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
          if (tenant) conflicts.add(1, measured);
        }
        span.setAttribute(A.outcome, kind);
        fail(span, error);
        span.end();
        if (tenant) actionDuration.record(since(start), { ...measured, [A.outcome]: kind });
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
        if (tenant) {
          commits.add(1, measured);
          eventsPerCommit.record(events.length, measured);
        }
      }
      span.setAttributes(attributes);
      span.end();
      if (tenant) actionDuration.record(since(start), { ...measured, [A.outcome]: kind });
      return outcome;
    },

    async load(info, run) {
      traceStore(info.store);
      const span = tracer.startSpan(
        `load ${info.state}`,
        {
          kind: SpanKind.INTERNAL,
          attributes: { [A.state]: info.state, [A.stream]: info.stream, ...scope.owner(info.store) },
        },
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
      traceStore(info.store);
      const parent = context.active();
      const pending: Pending = { parent, start: now(), calls: [] };
      const tenant = scope.measure(info.store);
      const start = performance.now();
      try {
        const drained = await (live ? context.with(parent.setValue(DRAIN, pending), run) : run());
        const idle = !drained.leased.length;
        if (tenant) drainCycles.add(1, { [A.drainIdle]: idle, ...tenant });
        if (idle) return drained;
        if (tenant) {
          leases.add(drained.leased.length, tenant);
          drainDuration.record(since(start), tenant);
        }
        const span = materialize(tracer, pending);
        span.setAttributes({
          ...scope.owner(info.store),
          [A.leased]: drained.leased.length,
          [A.fetched]: drained.fetched.reduce((n, f) => n + f.events.length, 0),
          [A.acked]: drained.acked.length,
          [A.blocked]: drained.blocked.length,
        });
        span.end();
        return drained;
      } catch (error) {
        if (tenant) drainCycles.add(1, { [A.drainIdle]: false, ...tenant });
        const span = materialize(tracer, pending);
        span.setAttributes(scope.owner(info.store));
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
            ...scope.owner(info.store),
          },
        },
        parentOf(context.active())
      );
      const tenant = scope.measure(info.store);
      const measured = { [A.reaction]: stream, ...tenant };
      const start = performance.now();
      try {
        const moved = await within(span, run, context.active().deleteValue(DRAIN));
        span.setAttribute(A.outcome, moved ? "handled" : "refused");
        if (!tenant) return moved;
        reactionDuration.record(since(start), { ...measured, [A.outcome]: moved ? "handled" : "refused" });
        // Per event, as app.stats() counts a projection's latency.
        if (moved) for (const event of events) reactionLatency.record(latencyOf(event), measured);
        return moved;
      } catch (error) {
        // What the drain does next with this failure, by the same rule it applies.
        const outcome = attempt <= projectionOptions.maxRetries ? "retry" : "blocked";
        span.setAttribute(A.outcome, outcome);
        fail(span, error);
        if (!tenant) throw error;
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
            ...scope.owner(info.store),
          },
        },
        parentOf(context.active())
      );
      const tenant = scope.measure(info.store);
      const measured = { [A.reaction]: reaction, ...tenant };
      const start = performance.now();
      try {
        const result = await within(span, run, context.active().deleteValue(DRAIN));
        span.setAttribute(A.outcome, "handled");
        if (!tenant) return result;
        reactionDuration.record(since(start), { ...measured, [A.outcome]: "handled" });
        reactionLatency.record(latencyOf(event), measured);
        return result;
      } catch (error) {
        // What the drain does next with this failure, by the same rule it applies.
        const outcome =
          attempt <= reactionOptions.maxRetries ? "retry" : reactionOptions.blockOnError ? "blocked" : "skipped";
        span.setAttribute(A.outcome, outcome);
        fail(span, error);
        if (!tenant) throw error;
        reactionDuration.record(since(start), { ...measured, [A.outcome]: outcome });
        if (outcome === "retry") retries.add(1, measured);
        if (outcome === "blocked") blocks.add(1, measured);
        throw error;
      } finally {
        span.end();
      }
    },

    fired(timer, store) {
      const tenant = scope.measure(store);
      if (!tenant) return;
      // Per action and outcome (and tenant) only: never the timer's id, stream or payload.
      timerLateness.record(Math.max(0, timer.at.getTime() - timer.due.getTime()) / 1000, {
        [A.action]: timer.action,
        [A.outcome]: timer.error === undefined ? "fired" : "failed",
        ...tenant,
      });
    },
  };
}
