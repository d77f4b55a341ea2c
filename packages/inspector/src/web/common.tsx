import { type ReactNode, useEffect, useId, useLayoutEffect, useRef, useState, useSyncExternalStore } from "react";
import { ApiError, api, type SearchPage, type WireEvent } from "./api.js";

/** Loads something for a view; `reload` runs it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller lists what the load depends on
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error) => live && setState({ error: messageOf(error), loading: false })
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

export const messageOf = (error: unknown) =>
  error instanceof ApiError ? error.message : `Something went wrong: ${(error as Error)?.message ?? error}`;

// The failures on screen, each shown once: when the server is down or a
// stream does not exist, the header and the view (or two loads of one view)
// fail with the same message, and one alert says it.
const owners = new Map<string, string>();
const listeners = new Set<() => void>();
let version = 0;
const changed = () => {
  version++;
  for (const listener of listeners) listener();
};
const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => void listeners.delete(listener);
};

/** A failure, said plainly and announced to screen readers; a message already on screen is not repeated. */
export function ErrorBox({ message }: { message: string }) {
  const id = useId();
  useSyncExternalStore(subscribe, () => version);
  // Every render: the first box with a message takes it, and another takes over when that one goes.
  useLayoutEffect(() => {
    if (!owners.has(message)) {
      owners.set(message, id);
      changed();
    }
  });
  useLayoutEffect(
    () => () => {
      if (owners.get(message) !== id) return;
      owners.delete(message);
      changed();
    },
    [message, id]
  );
  if (owners.get(message) !== id) return null;
  return (
    <div className="error" role="alert">
      {message}
    </div>
  );
}

/** The view's heading; it takes the focus when the view opens, so keyboard and screen reader users start there. */
export function Heading({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <h1 tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}

/** A count and its noun: "1 event", "2 events", "1,000 events". */
export const plural = (n: number, noun: string, nouns = `${noun}s`) =>
  `${n.toLocaleString("en")} ${n === 1 ? noun : nouns}`;

/** A name that may be long: cut with an ellipsis on screen, whole in its tooltip and to screen readers. */
export function Name({ children }: { children: string }) {
  return (
    <span className="name" title={children}>
      {children}
    </span>
  );
}

/** A duration in ms as a person reads it: "850 ms", "42 s", "3 min", "2 h 5 min". */
export function duration(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 60_000) return `${Math.round(ms / 1_000)} s`;
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

export const time = (iso: string) => new Date(iso).toISOString().replace("T", " ").replace("Z", " UTC");

/** A JSON value; one the server cut short gets a button that fetches the whole event. */
export function Payload({ event, field }: { event: WireEvent; field: "data" | "meta" }) {
  const [full, setFull] = useState<unknown>();
  const [error, setError] = useState<string>();
  const cutAt = event.truncated?.[field];
  const value = full ?? event[field];
  return (
    <div className="payload">
      {/* Focusable: a long payload scrolls, and keyboard users must be able to scroll it. */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region has to take the focus to be scrolled by keyboard */}
      <section className="scroll" aria-label={`Event ${field}`} tabIndex={0}>
        <pre>{typeof value === "string" && cutAt && full === undefined ? value : JSON.stringify(value, null, 2)}</pre>
      </section>
      {cutAt && full === undefined && (
        <button
          type="button"
          onClick={() =>
            api.event(event.id).then(
              (r) => setFull(r.event[field]),
              (e) => setError(messageOf(e))
            )
          }
        >
          Show all {field} ({cutAt.toLocaleString("en")} characters)
        </button>
      )}
      {error && <ErrorBox message={error} />}
    </div>
  );
}

export const actorOf = (e: WireEvent) => e.meta?.causation?.action?.actor?.name ?? "";

/** How far a search went when it stopped before the end of the log, and whether it could use an index. */
export function SearchProgress({ page }: { page: SearchPage }) {
  if (page.indexed) return null;
  return (
    <p className="hint" data-testid="search-progress">
      No index on the correlation id: the search reads the log a range of events at a time
      {page.next !== undefined && page.searched !== undefined && page.last !== undefined
        ? `, and stopped at event ${page.searched.toLocaleString("en")} of ${page.last.toLocaleString("en")} to keep the inspector answering. Search further to go on.`
        : "."}
    </p>
  );
}
