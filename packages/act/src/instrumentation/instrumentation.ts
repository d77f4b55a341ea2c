import type { Observer } from "../types/instrumentation.js";
import type { TraceContext } from "../core/schemas.js";
import type { Store } from "../types/ports.js";
import type { FiredTimer } from "../types/timers.js";

/** The observer installed with `observe`, if any: one per process, like the store port. */
const installed: { observer?: Observer } = {};

/** The hooks that wrap work, each with what it receives and what its `run` returns. */
type Wrapping = "action" | "load" | "drain" | "reaction" | "projection";
type Info<K extends Wrapping> = Parameters<NonNullable<Observer[K]>>[0];
type Result<K extends Wrapping> = Awaited<ReturnType<NonNullable<Observer[K]>>>;

/**
 * Installs an {@link Observer}: from now on every app of this process calls
 * its hooks around actions, loads, drains, reaction handlers and projection
 * batches, and keeps
 * the trace context it gives in the metadata of the events actions commit.
 * One observer at a time: a second call replaces the first. Until one is
 * installed (and after it is removed) the apps call their work directly and
 * pay nothing for the hooks. `@act-root/act-otel` installs an OpenTelemetry
 * observer for you: most apps never call this.
 *
 * @experimental
 * @param observer - the hooks to call
 * @returns a function that removes it (a no-op once another observer replaced it)
 * @see [Observability](/docs/guides/observability#the-hooks-under-it) — explains the hooks and the OpenTelemetry package.
 * @example
 * ```ts
 * let actions = 0;
 * const stop = observe({ action: (_info, run) => (actions++, run()) });
 * await app.do("increment", { stream: "c-1", actor }, { by: 1 });
 * stop();
 * ```
 */
export function observe(observer: Observer): () => void {
  installed.observer = observer;
  return () => {
    if (installed.observer === observer) installed.observer = undefined;
  };
}

/** Runs `run` through the installed observer's hook of that name, or directly when there is none. */
export function around<K extends Wrapping, T extends Result<K>>(
  hook: K,
  info: Info<K>,
  run: () => Promise<T>
): Promise<T> {
  const observer = installed.observer;
  const wrap = observer?.[hook] as ((info: Info<K>, run: () => Promise<T>) => Promise<T>) | undefined;
  return wrap ? wrap.call(observer, info, run) : run();
}

/** Tells the installed observer, if any, of timers a drain fired (or that failed for good); what it throws is ignored. */
export function firedTimers(timers: readonly FiredTimer[], store?: Store): void {
  const observer = installed.observer;
  if (!observer?.fired) return;
  for (const timer of timers)
    try {
      observer.fired(timer, store);
    } catch {
      // An observer's failure must not fail the drain that fired the timer.
    }
}

/** The trace context to keep with the events being committed: `{ trace }`, or nothing without an observer that gives one. */
export function traced(): { trace: TraceContext } | undefined {
  const trace = installed.observer?.trace?.();
  return trace && { trace };
}
