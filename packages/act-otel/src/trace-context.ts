import {
  createTraceState,
  isSpanContextValid,
  type Link,
  type Span,
  type SpanContext,
  TraceFlags,
} from "@opentelemetry/api";
import type { TraceContext } from "@act-root/act";

const TRACEPARENT = /^00-([\da-f]{32})-([\da-f]{16})-([\da-f]{2})$/;

/** The W3C `traceparent` (and `tracestate`) of a span, or undefined for a span that belongs to no trace (no SDK). */
export function carrier(span: Span | undefined): TraceContext | undefined {
  const context = span?.spanContext();
  if (!context || !isSpanContextValid(context)) return undefined;
  const flags = (context.traceFlags & 0xff).toString(16).padStart(2, "0");
  const traceparent = `00-${context.traceId}-${context.spanId}-${flags}`;
  const tracestate = context.traceState?.serialize();
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/**
 * The link to the span an event's metadata names, or undefined when it names
 * none (committed with instrumentation off) or one this version of the
 * format does not read.
 */
export function linkTo(trace: TraceContext | undefined, attributes: Link["attributes"]): Link | undefined {
  const match = trace && TRACEPARENT.exec(trace.traceparent);
  if (!match) return undefined;
  const context: SpanContext = {
    traceId: match[1],
    spanId: match[2],
    traceFlags: Number.parseInt(match[3], 16) & TraceFlags.SAMPLED,
    isRemote: true,
    ...(trace.tracestate && { traceState: createTraceState(trace.tracestate) }),
  };
  return isSpanContextValid(context) ? { context, attributes } : undefined;
}
