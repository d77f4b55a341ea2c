import { useEffect, useRef, useState } from "react";
import { api, type Info, type ReactionRow } from "../api.js";
import { ErrorBox, Heading, messageOf, time } from "../common.js";
import { href } from "../route.js";

/** How often the table refreshes itself, in ms. */
const EVERY = 2_000;

type Pending = { operation: "unblock" | "reset"; stream: string };

/** Reaction streams with their watermark, lag, lease and blocked state; refreshed while the page is visible. */
export default function Reactions({ info }: { info: Info }) {
  const [rows, setRows] = useState<ReactionRow[]>();
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
      api.reactions().then(
        (r) => {
          if (!live) return;
          setRows(r.streams);
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
  }, [tick]);

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
        Each reaction stream: the last event handled (watermark), the last event found for it, and its lease.{" "}
        {info.mode === "app" ? "Lag counts the events it still has to handle." : "Lag needs app mode."} Refreshed every{" "}
        {EVERY / 1000} s.
      </p>
      {!info.operations && (
        <p className="hint">Read-only: start the inspector with the operations flag to unblock or reset streams.</p>
      )}
      <div aria-live="polite">{notice && <p className="notice">{notice}</p>}</div>
      {error && <ErrorBox message={error} />}
      {rows && rows.length === 0 && <p>No reaction streams yet.</p>}
      {rows && rows.length > 0 && (
        <table>
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
                  <a href={href({ view: "stream", stream: r.stream })}>{r.stream}</a>
                  {r.source && <span className="muted"> from {r.source}</span>}
                </th>
                <td className="num">{r.at}</td>
                <td className="num">{r.head}</td>
                <td className="num">{r.lag ?? (r.head > r.at ? "behind" : "0")}</td>
                <td>{r.leasedBy ? `${r.leasedBy} until ${r.leasedUntil ? time(r.leasedUntil) : "?"}` : "—"}</td>
                <td className="num">{r.retry}</td>
                <td>{r.blocked ? <strong>Blocked: {r.error}</strong> : "running"}</td>
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
