import { useEffect, useState } from "react";
import { api, type TimerPage } from "../api.js";
import { duration, ErrorBox, Heading, messageOf, Name, plural, time } from "../common.js";
import { href } from "../route.js";

/** How often the table refreshes itself, in ms. */
const EVERY = 2_000;

/**
 * Pending timers, the earliest due first, a page at a time, filtered by
 * action and stream; overdue ones highlighted with how late they are.
 * Refreshed while the page is visible. Read-only.
 */
export default function Timers() {
  const [data, setData] = useState<TimerPage>();
  const [text, setText] = useState({ action: "", stream: "" });
  const [filter, setFilter] = useState({ action: "", stream: "" });
  // The cursors of the pages before this one, and this page's.
  const [pages, setPages] = useState<string[]>([]);
  const after = pages[pages.length - 1];
  const [error, setError] = useState<string>();

  useEffect(() => {
    let live = true;
    const refresh = () =>
      api.timers({ ...filter, after }).then(
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
  }, [filter, after]);

  const rows = data?.timers;
  const filtered = filter.action !== "" || filter.stream !== "";
  return (
    <section>
      <Heading>Timers</Heading>
      <p>
        Pending timers, the earliest due first: the action each runs, on which stream, and the correlation of the action
        that scheduled it. Overdue ones are highlighted with how late they are. Refreshed every {EVERY / 1000} s.
      </p>
      {error && <ErrorBox message={error} />}
      {data && (
        <p className="totals" data-testid="timer-totals">
          {plural(data.totals.pending, "pending timer")}:{" "}
          <strong>{data.totals.overdue.toLocaleString("en")} overdue</strong>.
        </p>
      )}
      <search>
        <form
          className="filter"
          onSubmit={(e) => {
            e.preventDefault();
            setPages([]);
            setFilter({ action: text.action.trim(), stream: text.stream.trim() });
          }}
        >
          <label htmlFor="timer-action">Action contains</label>
          <input
            id="timer-action"
            value={text.action}
            onChange={(e) => setText((t) => ({ ...t, action: e.target.value }))}
            placeholder="e.g. escalate"
            maxLength={200}
          />
          <label htmlFor="timer-stream">Stream contains</label>
          <input
            id="timer-stream"
            value={text.stream}
            onChange={(e) => setText((t) => ({ ...t, stream: e.target.value }))}
            placeholder="e.g. ticket-"
            maxLength={200}
          />
          <button type="submit">Filter</button>
        </form>
      </search>
      {data && rows && (
        <p aria-live="polite" data-testid="timer-range">
          {rows.length === 0
            ? data.totals.pending === 0
              ? "No pending timers."
              : "No pending timer matches."
            : `${(pages.length * 50 + 1).toLocaleString("en")}–${(pages.length * 50 + rows.length).toLocaleString("en")} of ${plural(data.matched, "timer")}${filtered ? " that match" : ""}, the earliest due first.`}
          {data.scanned < data.totals.pending &&
            ` Filters look at the ${data.scanned.toLocaleString("en")} earliest due of them.`}
        </p>
      )}
      {rows && rows.length > 0 && (
        <table className="timers">
          <caption className="visually-hidden">Pending timers</caption>
          <thead>
            <tr>
              <th scope="col">Timer</th>
              <th scope="col">Due</th>
              <th scope="col">Action</th>
              <th scope="col">Stream</th>
              <th scope="col">Correlation</th>
              <th scope="col" className="num">
                Attempts
              </th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((t) => (
              <tr key={t.id} className={t.lateness !== undefined ? "overdue" : undefined}>
                <th scope="row">
                  <a href={href({ view: "timer", id: t.id })}>
                    <Name>{t.id}</Name>
                  </a>
                </th>
                <td>{time(t.due)}</td>
                <td>
                  <code>{t.action}</code>
                </td>
                <td>
                  <a href={href({ view: "stream", stream: t.stream })}>
                    <Name>{t.stream}</Name>
                  </a>
                </td>
                <td>
                  {t.correlation ? (
                    <a href={href({ view: "correlation", id: t.correlation })}>
                      <Name>{t.correlation}</Name>
                    </a>
                  ) : (
                    "—"
                  )}
                </td>
                <td className="num">{t.attempts}</td>
                <td className="state">
                  {t.lateness !== undefined ? <strong>Overdue by {duration(t.lateness)}</strong> : "waiting"}
                  {t.error && <span className="muted"> — last attempt: {t.error}</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {data && (pages.length > 0 || data.next) && (
        <nav className="pager" aria-label="Pages of timers">
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
    </section>
  );
}
