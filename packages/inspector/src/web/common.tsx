import { type ReactNode, useEffect, useRef, useState } from "react";
import { ApiError, api, type WireEvent } from "./api.js";

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

/** A failure, said plainly and announced to screen readers. */
export function ErrorBox({ message }: { message: string }) {
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
