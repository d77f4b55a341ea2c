import { useEffect, useRef, useState } from "react";
import { api, type Info, type ReactionPage, type ReactionState } from "../api.js";
import { ErrorBox, Heading, messageOf, Name, plural, time } from "../common.js";
import { href } from "../route.js";

/** How often the table refreshes itself, in ms. */
const EVERY = 2_000;

type Pending = { operation: "unblock" | "reset"; stream: string };

const STATES: Record<ReactionState, string> = {
  all: "All",
  blocked: "Blocked",
  leased: "Leased",
  lagging: "With lag",
  running: "Not blocked",
};

/** A watermark or head: a link to the event it points at, or — for none yet. */
function EventId({ id }: { id: number }) {
  return id < 0 ? <span title="No event yet">—</span> : <a href={href({ view: "event", id: String(id) })}>{id}</a>;
}

/**
 * Reaction streams with their watermark, lag, lease and blocked state, blocked
 * ones first, a page at a time, with totals over all of them; refreshed while
 * the page is visible.
 */
export default function Reactions({ info }: { info: Info }) {
  const [data, setData] = useState<ReactionPage>();
  const rows = data?.streams;
  const [text, setText] = useState("");
  const [filter, setFilter] = useState<{ q: string; state: ReactionState }>({ q: "", state: "all" });
  // The cursors of the pages before this one, and this page's.
  const [pages, setPages] = useState<string[]>([]);
  const after = pages[pages.length - 1];
  const [error, setError] = useState<string>();
  const [pending, setPending] = useState<Pending>();
  const [notice, setNotice] = useState<string>();
  const [tick, setTick] = useState(0);
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLElement | null>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: tick asks for a refresh after an operation
  useEffect(() => {
    let live = true;
    const refresh = () =>
      api.reactions({ ...filter, after }).then(
        (r) => {
          if (!live) return;
          setData(r);
          setError(undefined);
        },
        (e) => live && setError(messageOf(e))
      );
    void refresh();
    const timer = setInterval(() => document.visibilityState === "visible" && void refresh(), EVERY);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [tick, filter, after]);

  const ask = (p: Pending, button: HTMLElement) => {
    opener.current = button;
    setPending(p);
    setNotice(undefined);
    dialog.current?.showModal();
  };
  const close = () => {
    dialog.current?.close();
    setPending(undefined);
    opener.current?.focus();
  };
  const confirm = async () => {
    if (!pending) return;
    const { operation, stream } = pending;
    close();
    try {
      const done = Object.values(await api.operate(operation, [stream]))[0] ?? [];
      setNotice(
        done.includes(stream)
          ? `${operation === "unblock" ? "Unblocked" : "Reset"} ${stream}.`
          : `${stream}: nothing to do.`
      );
    } catch (e) {
      setNotice(messageOf(e));
    }
    setTick((t) => t + 1);
  };

  return (
    <section>
      <Heading>Reactions</Heading>
      <p>
        Each reaction stream: the last event handled (watermark), the last event found for it (head), and its lease;
        each id links to its event.{" "}
        {info.mode === "app" ? "Lag counts the events it still has to handle." : "Lag needs app mode."} Refreshed every{" "}
        {EVERY / 1000} s.
      </p>
      {!info.operations && (
        <p className="hint">Read-only: start the inspector with the operations flag to unblock or reset streams.</p>
      )}
      <div aria-live="polite">{notice && <p className="notice">{notice}</p>}</div>
      {error && <ErrorBox message={error} />}
      {data && (
        <p className="totals" data-testid="totals">
          {plural(data.totals.streams, "reaction stream")}:{" "}
          <strong>{data.totals.blocked.toLocaleString("en")} blocked</strong>, {data.totals.leased.toLocaleString("en")}{" "}
          leased, {data.totals.lagging.toLocaleString("en")} with lag.
        </p>
      )}
      <search>
        <form
          className="filter"
          onSubmit={(e) => {
            e.preventDefault();
            setPages([]);
            setFilter((f) => ({ ...f, q: text.trim() }));
          }}
        >
          <label htmlFor="reaction-name">Name contains</label>
          <input
            id="reaction-name"
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder="e.g. ticket-"
            maxLength={200}
          />
          <label htmlFor="reaction-state">State</label>
          <select
            id="reaction-state"
            value={filter.state}
            onChange={(e) => {
              setPages([]);
              setFilter({ q: text.trim(), state: e.target.value as ReactionState });
            }}
          >
            {Object.entries(STATES).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
          <button type="submit">Filter</button>
        </form>
      </search>
      {data && rows && (
        <p aria-live="polite" data-testid="range">
          {rows.length === 0
            ? data.totals.streams === 0
              ? "No reaction streams yet."
              : "No reaction stream matches."
            : `${(pages.length * 50 + 1).toLocaleString("en")}–${(pages.length * 50 + rows.length).toLocaleString("en")} of ${plural(data.matched, "stream")}${filter.q || filter.state !== "all" ? " that match" : ""}, blocked first.`}
        </p>
      )}
      {rows && rows.length > 0 && (
        <table className="reactions">
          <caption className="visually-hidden">Reaction streams</caption>
          <thead>
            <tr>
              <th scope="col">Stream</th>
              <th scope="col" className="num">
                Watermark
              </th>
              <th scope="col" className="num">
                Head
              </th>
              <th scope="col" className="num">
                Lag
              </th>
              <th scope="col">Lease</th>
              <th scope="col" className="num">
                Retries
              </th>
              <th scope="col">State</th>
              {info.operations && <th scope="col">Operations</th>}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.stream} className={r.blocked ? "blocked" : undefined}>
                <th scope="row">
                  <a href={href({ view: "stream", stream: r.stream })}>
                    <Name>{r.stream}</Name>
                  </a>
                  {r.source && (
                    <span className="muted">
                      {" "}
                      from <Name>{r.source}</Name>
                    </span>
                  )}
                </th>
                <td className="num">
                  <EventId id={r.at} />
                </td>
                <td className="num">
                  <EventId id={r.head} />
                </td>
                <td className="num">{r.lag ?? (r.head > r.at ? "behind" : "0")}</td>
                <td>{r.leasedBy ? `${r.leasedBy} until ${r.leasedUntil ? time(r.leasedUntil) : "?"}` : "—"}</td>
                <td className="num">{r.retry}</td>
                <td className="state">{r.blocked ? <strong>Blocked: {r.error}</strong> : "running"}</td>
                {info.operations && (
                  <td className="ops">
                    {r.blocked && (
                      <button
                        type="button"
                        onClick={(e) => ask({ operation: "unblock", stream: r.stream }, e.currentTarget)}
                      >
                        Unblock<span className="visually-hidden"> {r.stream}</span>
                      </button>
                    )}
                    <button
                      type="button"
                      onClick={(e) => ask({ operation: "reset", stream: r.stream }, e.currentTarget)}
                    >
                      Reset<span className="visually-hidden"> {r.stream}</span>
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {data && (pages.length > 0 || data.next) && (
        <nav className="pager" aria-label="Pages of reaction streams">
          <button type="button" disabled={pages.length === 0} onClick={() => setPages((p) => p.slice(0, -1))}>
            Previous page
          </button>
          <button
            type="button"
            disabled={!data.next}
            onClick={() => data.next && setPages((p) => [...p, data.next as string])}
          >
            Next page
          </button>
        </nav>
      )}
      <dialog ref={dialog} aria-labelledby="confirm-title" onClose={() => setPending(undefined)}>
        {pending && (
          <>
            <h2 id="confirm-title">
              {pending.operation === "unblock" ? "Unblock" : "Reset"} {pending.stream}?
            </h2>
            <p>
              {pending.operation === "unblock"
                ? "Its reactions resume at the watermark, with retries reset. The event that failed runs again."
                : "Its watermark goes back to the start of the log: every reaction of this stream runs again."}
            </p>
            <div className="buttons">
              <button type="button" onClick={close}>
                Cancel
              </button>
              <button type="button" className="danger" onClick={confirm}>
                Yes, {pending.operation}
              </button>
            </div>
          </>
        )}
      </dialog>
    </section>
  );
}
