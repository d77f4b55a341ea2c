import {
  type Attributes,
  context,
  createContextKey,
  type Span,
  SpanKind,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import type { Store } from "@act-root/act";
import { A } from "./names.js";
import { fail, now } from "./spans.js";

/**
 * The context key of a drain whose span is not started yet. A drain that
 * leases nothing records no span at all — a consumer that polls an idle
 * store every second would otherwise fill the trace backend with empty
 * cycles — so the store calls it makes before its first lease (the poll) are
 * kept aside and written as its children only once a lease is granted.
 */
export const DRAIN = createContextKey("@act-root/act-otel drain");

/** A drain cycle in progress: where its span goes, when it started, its span once it has one, and the store calls kept aside. */
export type Pending = {
  readonly parent: ReturnType<typeof context.active>;
  readonly start: number;
  span?: Span;
  calls: Array<{ name: string; attributes: Attributes; start: number; end: number; error?: unknown }>;
};

/** The store methods that get a span: every call that reaches the database. */
const OPERATIONS = [
  "commit",
  "commitInline",
  "project",
  "recall",
  "query",
  "poll",
  "lease",
  "ack",
  "block",
  "reactions",
  "unblock",
  "reset",
  "retire",
  "seed",
  "drop",
] as const;

/** `db.system.name` of a store, from its class: the semantic-convention value where one exists. */
export function dbSystem(store: Store): string {
  const name = store.constructor?.name ?? "";
  if (/postgres/i.test(name)) return "postgresql";
  if (/sqlite/i.test(name)) return "sqlite";
  if (name === "InMemoryStore") return "act.in_memory";
  return "other_sql";
}

/** Attributes a call's arguments tell: the stream, how many events a commit writes and at which version. */
function argumentAttributes(operation: string, args: unknown[]): Attributes {
  if (operation === "commit" || operation === "commitInline") {
    const { stream, messages, expectedVersion } = args[0] as {
      stream: string;
      messages: unknown[];
      expectedVersion?: number;
    };
    return {
      [A.stream]: stream,
      [A.events]: messages.length,
      ...(expectedVersion !== undefined && { [A.expectedVersion]: expectedVersion }),
    };
  }
  if (operation === "project") return { [A.reactionStream]: (args[0] as { stream: string }).stream };
  if (operation === "query") {
    const stream = (args[1] as { stream?: string } | undefined)?.stream;
    return stream === undefined ? {} : { [A.stream]: stream };
  }
  if (operation === "recall") return { [A.stream]: args[0] as string };
  return {};
}

/** How many rows a call returned, where it returns rows (or a count of them). */
function returnedRows(result: unknown): Attributes {
  if (typeof result === "number") return { [A.dbRows]: result };
  if (Array.isArray(result)) return { [A.dbRows]: result.length };
  return {};
}

/** Starts the span of a drain that had none yet, then writes the store calls kept aside as its children. */
export function materialize(tracer: Tracer, pending: Pending): Span {
  if (pending.span) return pending.span;
  const span = tracer.startSpan("drain", { kind: SpanKind.INTERNAL, startTime: pending.start }, pending.parent);
  pending.span = span;
  const parent = trace.setSpan(pending.parent, span);
  for (const call of pending.calls.splice(0)) {
    const child = tracer.startSpan(
      call.name,
      { kind: SpanKind.CLIENT, attributes: call.attributes, startTime: call.start },
      parent
    );
    if (call.error !== undefined) fail(child, call.error);
    child.end(call.end);
  }
  return span;
}

/**
 * Gives every database call of `store` a client span with the database
 * semantic-convention attributes, by replacing its methods on the instance:
 * any store works and the store port keeps the same object. (A `Proxy` in
 * front of it would not do: a store such as `SqliteStore` reads private
 * class fields, which only calls on the instance itself can reach.) A call
 * made outside any span — a correlation timer, a metrics collection — is
 * not recorded: it would be a trace of one span that tells nothing.
 *
 * @returns a function that puts the original methods back
 */
export function traceStore(store: Store, tracer: Tracer): () => void {
  const system = dbSystem(store);
  const target = store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const restore: Array<() => void> = [];
  for (const operation of OPERATIONS) {
    const original = target[operation];
    if (typeof original !== "function") continue;
    const own = Object.hasOwn(target, operation);
    target[operation] = function traced(this: unknown, ...args: unknown[]) {
      const active = context.active();
      const pending = active.getValue(DRAIN) as Pending | undefined;
      if (!pending && !trace.getSpan(active)) return original.apply(this, args);
      const attributes: Attributes = {
        [A.dbSystem]: system,
        [A.dbOperation]: operation,
        ...argumentAttributes(operation, args),
      };
      const inner = active.deleteValue(DRAIN);
      if (pending && !pending.span) {
        // Not known yet whether this drain will lease anything: keep the call aside.
        const start = now();
        const keep = (result: unknown, error?: unknown) => {
          pending.calls.push({
            name: operation,
            attributes: { ...attributes, ...returnedRows(result) },
            start,
            end: now(),
            error,
          });
          if (operation === "lease" && Array.isArray(result) && result.length && (args[1] as number) > 0)
            materialize(tracer, pending);
        };
        return context
          .with(inner, () => original.apply(this, args))
          .then(
            (result) => {
              keep(result);
              return result;
            },
            (error: unknown) => {
              keep(undefined, error);
              throw error;
            }
          );
      }
      const parent = pending?.span ? trace.setSpan(inner, pending.span) : inner;
      const span = tracer.startSpan(operation, { kind: SpanKind.CLIENT, attributes }, parent);
      return context
        .with(trace.setSpan(parent, span), () => original.apply(this, args))
        .then(
          (result) => {
            span.setAttributes(returnedRows(result));
            span.end();
            return result;
          },
          (error: unknown) => {
            fail(span, error);
            span.end();
            throw error;
          }
        );
    };
    restore.push(() => {
      if (own) target[operation] = original;
      else delete target[operation];
    });
  }
  return () => {
    for (const undo of restore) undo();
  };
}
