import { api } from "../api.js";
import { duration, ErrorBox, Heading, Name, time, useLoad } from "../common.js";
import { href } from "../route.js";

const STATUS = { pending: "Pending", fired: "Fired", failed: "Failed for good", cancelled: "Cancelled" } as const;

/** One timer in any status: what it runs, where, as whom, when, its claims and outcome, and its payload where shown. */
export default function Timer({ id }: { id: string }) {
  const load = useLoad(() => api.timer(id), [id]);
  if (load.error)
    return (
      <section>
        <Heading>Timer {id}</Heading>
        <ErrorBox message={load.error} />
      </section>
    );
  if (!load.data) return <p aria-live="polite">Loading…</p>;
  const { timer: t, payload, truncated, payloadHidden } = load.data;
  const overdue = t.status === "pending" && t.lateness !== undefined;
  return (
    <section>
      <Heading>
        Timer <Name>{t.id}</Name>
      </Heading>
      <p>
        <a href={href({ view: "timers" })}>All pending timers</a>
      </p>
      <dl className="facts">
        <dt>Status</dt>
        <dd className={overdue ? "overdue" : undefined}>
          {STATUS[t.status]}
          {overdue && <strong> — overdue by {duration(t.lateness!)}</strong>}
          {t.status === "fired" && t.lateness !== undefined && ` ${duration(t.lateness)} after it was due`}
        </dd>
        <dt>Action</dt>
        <dd>
          <code>{t.action}</code>
        </dd>
        <dt>Stream</dt>
        <dd>
          <a href={href({ view: "stream", stream: t.stream })}>
            <Name>{t.stream}</Name>
          </a>
        </dd>
        <dt>Runs as</dt>
        <dd>
          {t.actor.name} <span className="muted">({t.actor.id})</span>
        </dd>
        <dt>Due</dt>
        <dd>{time(t.due)}</dd>
        <dt>Correlation</dt>
        <dd>
          {t.correlation ? (
            <a href={href({ view: "correlation", id: t.correlation })}>
              <Name>{t.correlation}</Name>
            </a>
          ) : (
            "none: its action starts a correlation of its own"
          )}
        </dd>
        <dt>Attempts</dt>
        <dd>{t.attempts}</dd>
        {t.claimedBy && (
          <>
            <dt>Claimed by</dt>
            <dd>
              {t.claimedBy}
              {t.claimedUntil && ` until ${time(t.claimedUntil)}`}
            </dd>
          </>
        )}
        {t.fired && (
          <>
            <dt>{t.status === "failed" ? "Failed at" : "Fired at"}</dt>
            <dd>{time(t.fired)}</dd>
          </>
        )}
        {t.error && (
          <>
            <dt>Last error</dt>
            <dd>{t.error}</dd>
          </>
        )}
      </dl>
      <h2>Payload</h2>
      {payloadHidden ? (
        <p className="hint" data-testid="payload-hidden">
          {payloadHidden}
        </p>
      ) : (
        <div className="payload">
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region has to take the focus to be scrolled by keyboard */}
          <section className="scroll" aria-label="Timer payload" tabIndex={0}>
            <pre>{typeof payload === "string" && truncated ? payload : JSON.stringify(payload, null, 2)}</pre>
          </section>
          {truncated && <p className="hint">Cut short: it has {truncated.toLocaleString("en")} characters of JSON.</p>}
        </div>
      )}
    </section>
  );
}
