import { type KeyboardEvent, useCallback, useEffect, useRef, useState } from "react";
import { api, type Info, type Order, type WireEvent } from "../api.js";
import { actorOf, ErrorBox, Heading, messageOf, Payload, plural, time, useLoad } from "../common.js";
import { href } from "../route.js";

/** Height of one row of the list, in pixels: rows are placed by index, so only the visible ones are in the page. */
const ROW = 36;
/** Rows rendered above and below the visible ones, so scrolling shows no blank rows. */
const OVERSCAN = 10;
const SNAPSHOT = "__snapshot__";

/**
 * Every event of a stream, in a list that renders only what is on screen and
 * loads pages as it scrolls, oldest or newest first: the newest event is on
 * the first page of "newest first", however long the stream.
 */
export default function Timeline({ stream, info }: { stream: string; info: Info }) {
  const summary = useLoad(() => api.stream(stream), [stream]);
  const [filter, setFilter] = useState("");
  const [names, setNames] = useState("");
  const [order, setOrder] = useState<Order>("oldest");
  const [rows, setRows] = useState<WireEvent[]>([]);
  const [next, setNext] = useState<number | undefined>();
  const [done, setDone] = useState(false);
  const [error, setError] = useState<string>();
  const [selected, setSelected] = useState(0);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(480);
  const loading = useRef(false);
  const list = useRef<HTMLDivElement>(null);

  const load = useCallback(
    async (after: number | undefined, reset: boolean) => {
      if (loading.current) return;
      loading.current = true;
      try {
        const page = await api.events(stream, order, after, names);
        setRows((r) => (reset ? page.events : [...r, ...page.events]));
        setNext(page.next);
        setDone(page.next === undefined);
        setError(undefined);
      } catch (e) {
        setError(messageOf(e));
      } finally {
        loading.current = false;
      }
    },
    [stream, names, order]
  );

  useEffect(() => {
    setRows([]);
    setSelected(0);
    setDone(false);
    setNext(undefined);
    if (list.current) list.current.scrollTop = 0;
    // A load of the other order may be under way: this one must not wait for it.
    loading.current = false;
    void load(undefined, true);
  }, [load]);

  useEffect(() => {
    const el = list.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setHeight(el.clientHeight));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const first = Math.max(0, Math.floor(scrollTop / ROW) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((scrollTop + height) / ROW) + OVERSCAN);
  useEffect(() => {
    if (!done && rows.length > 0 && last >= rows.length - OVERSCAN) void load(next, false);
  }, [last, rows.length, done, next, load]);

  const select = (index: number) => {
    const i = Math.max(0, Math.min(rows.length - 1, index));
    setSelected(i);
    const el = list.current;
    if (!el) return;
    if (i * ROW < el.scrollTop) el.scrollTop = i * ROW;
    else if ((i + 1) * ROW > el.scrollTop + el.clientHeight) el.scrollTop = (i + 1) * ROW - el.clientHeight;
  };
  const onKey = (e: KeyboardEvent) => {
    const page = Math.max(1, Math.floor(height / ROW) - 1);
    const moves: Record<string, number> = {
      ArrowDown: selected + 1,
      ArrowUp: selected - 1,
      PageDown: selected + page,
      PageUp: selected - page,
      Home: 0,
      End: rows.length - 1,
    };
    if (!(e.key in moves)) return;
    e.preventDefault();
    // The far end of a stream with more events than the list holds (a page said so): read it from that end
    // instead of paging to it.
    if (next !== undefined && (e.key === "End" || (e.key === "Home" && order === "newest"))) {
      setOrder(order === "oldest" ? "newest" : "oldest");
      return;
    }
    select(moves[e.key]);
  };

  const event = rows[selected];
  return (
    <section>
      <Heading>
        Stream <code className="long">{stream}</code>
      </Heading>
      {summary.error && <ErrorBox message={summary.error} />}
      {summary.data && (
        <p>
          {plural(summary.data.events, "event")}, the last at {time(summary.data.last)}.{" "}
          <span className="hint">
            Snapshots are marked ◆. Use ↑ ↓ Page Up/Down Home End in the list; End reads the stream from its newest
            event.
          </span>
        </p>
      )}
      <fieldset className="order">
        <legend>Order</legend>
        {(["oldest", "newest"] as const).map((o) => (
          <button key={o} type="button" aria-pressed={order === o} onClick={() => setOrder(o)}>
            {o === "oldest" ? "Oldest first" : "Newest first"}
          </button>
        ))}
      </fieldset>
      <form
        className="filter"
        onSubmit={(e) => {
          e.preventDefault();
          setNames(filter.replace(/\s+/g, ""));
        }}
      >
        <label htmlFor="names">Only events named (comma-separated)</label>
        <input id="names" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="e.g. OrderPlaced" />
        <button type="submit">Filter</button>
      </form>
      {error && <ErrorBox message={error} />}
      <div className="timeline">
        <div
          className="rows"
          ref={list}
          role="listbox"
          aria-label={`Events of ${stream}`}
          tabIndex={0}
          aria-activedescendant={event ? `event-${event.id}` : undefined}
          onKeyDown={onKey}
          onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
        >
          <div style={{ height: rows.length * ROW }} className="spacer">
            {rows.slice(first, last).map((e, k) => {
              const i = first + k;
              return (
                // The listbox keeps the focus and points at the selected option (aria-activedescendant), so
                // options take neither the focus nor keys of their own.
                // biome-ignore lint/a11y/useKeyWithClickEvents: the listbox handles the keys for every option
                // biome-ignore lint/a11y/useFocusableInteractive: the listbox holds the focus for its options
                <div
                  key={e.id}
                  id={`event-${e.id}`}
                  role="option"
                  aria-selected={i === selected}
                  className={`row${e.name === SNAPSHOT ? " snap" : ""}`}
                  style={{ top: i * ROW }}
                  onClick={() => select(i)}
                >
                  <span className="v">v{e.version}</span>
                  <span className="n">{e.name === SNAPSHOT ? "◆ snapshot" : e.name}</span>
                  <span className="t">{time(e.created)}</span>
                  <span className="a">{actorOf(e)}</span>
                </div>
              );
            })}
          </div>
          {rows.length === 0 && done && !error && <p className="empty">No events match.</p>}
        </div>
        {event && <Details key={event.id} event={event} info={info} />}
      </div>
    </section>
  );
}

function Details({ event, info }: { event: WireEvent; info: Info }) {
  return (
    <aside className="details" aria-label="Selected event">
      <h2>
        v{event.version} · {event.name === SNAPSHOT ? "snapshot" : event.name}
      </h2>
      <dl>
        <dt>Id</dt>
        <dd>{event.id}</dd>
        <dt>Committed</dt>
        <dd>{time(event.created)}</dd>
        <dt>Actor</dt>
        <dd>{actorOf(event) || "—"}</dd>
        {event.meta?.correlation && (
          <>
            <dt>Correlation</dt>
            <dd>
              <a href={href({ view: "correlation", id: event.meta.correlation })}>{event.meta.correlation}</a>
            </dd>
          </>
        )}
      </dl>
      <p>
        <a href={href({ view: "event", id: String(event.id) })}>Causation: what caused it and what it caused</a>
      </p>
      {info.mode === "app" && event.name !== SNAPSHOT && <StateAt stream={event.stream} version={event.version} />}
      <h3>Data</h3>
      <Payload event={event} field="data" />
      <h3>Metadata</h3>
      <Payload event={event} field="meta" />
    </aside>
  );
}

/** Time travel: the state as it was after this version, and what the event changed. */
function StateAt({ stream, version }: { stream: string; version: number }) {
  const state = useLoad(() => api.state(stream, version), [stream, version]);
  return (
    <section aria-label="State at this version">
      <h3>State after v{version}</h3>
      {state.loading && <p aria-live="polite">Rebuilding the state…</p>}
      {state.error && <ErrorBox message={state.error} />}
      {state.data && (
        <>
          <table className="changes">
            <caption>What v{version} changed</caption>
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Before</th>
                <th scope="col">After</th>
              </tr>
            </thead>
            <tbody>
              {state.data.changes.length === 0 && (
                <tr>
                  <td colSpan={3}>Nothing changed.</td>
                </tr>
              )}
              {state.data.changes.map((c) => (
                <tr key={c.path} className={c.kind}>
                  <th scope="row">{c.path}</th>
                  <td>{c.kind === "added" ? "—" : JSON.stringify(c.before)}</td>
                  <td>{c.kind === "removed" ? "—" : JSON.stringify(c.after)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region has to take the focus to be scrolled by keyboard */}
          <section className="scroll" aria-label={`State after v${version}`} tabIndex={0}>
            <pre data-testid="state">{JSON.stringify(state.data.after, null, 2)}</pre>
          </section>
        </>
      )}
    </section>
  );
}
