import { type Span, SpanStatusCode } from "@opentelemetry/api";
import { Errors } from "@act-root/act";
import { A } from "./names.js";

/** Milliseconds since the epoch, with the precision of the monotonic clock (what a span's start and end time take). */
export const now = (): number => performance.timeOrigin + performance.now();

/** Act's error codes by the class names users know them by. */
const CLASSES: Record<string, string> = Object.fromEntries(Object.entries(Errors).map(([name, code]) => [code, name]));

/** What kind of error it is: Act's class name (`ConcurrencyError`, …) or the error's own name. */
export function errorType(error: unknown): string {
  const name = error instanceof Error ? error.name : typeof error;
  return CLASSES[name] ?? (name || "Error");
}

/** Marks a span failed with the error: its status, an exception event and `error.type`. */
export function fail(span: Span, error: unknown): void {
  const failure = error instanceof Error ? error : new Error(String(error));
  span.recordException(failure);
  span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
  span.setAttribute(A.errorType, errorType(error));
}
