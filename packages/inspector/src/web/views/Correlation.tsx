import { useState } from "react";
import { api, type Info, type WireEvent } from "../api.js";
import { ErrorBox, Heading, messageOf, time, useLoad } from "../common.js";
import { href } from "../route.js";

/** Every event sharing a correlation id: one action and all that its reactions did. */
export default function Correlation({ id, info }: { id: string; info: Info }) {
  const first = useLoad(() => api.correlation(id), [id]);
  const [more, setMore] = useState<{ events: WireEvent[]; next?: number }>();
  const [error, setError] = useState<string>();
  const rows = [...(first.data?.events ?? []), ...(more?.events ?? [])];
  const next = more ? more.next : first.data?.next;
  return (
    <section>
      <Heading>
        Correlation <code>{id}</code>
      </Heading>
      {!info.correlationIndexed && (
        <p className="hint">
          No index on the correlation id: this search reads the log in order until it finds enough events (see the
          README for the index to add).
        </p>
      )}
      {first.error && <ErrorBox message={first.error} />}
      {first.data && rows.length === 0 && <p>No event has this correlation id.</p>}
      {rows.length > 0 && (
        <table>
          <caption className="visually-hidden">Events of the correlation</caption>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Stream</th>
              <th scope="col">Committed</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => (
              <tr key={e.id}>
                <td>
                  <a href={href({ view: "event", id: String(e.id) })}>{e.name}</a>
                </td>
                <td>
                  <a href={href({ view: "stream", stream: e.stream })}>{e.stream}</a> v{e.version}
                </td>
                <td>{time(e.created)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {next !== undefined && (
        <button
          type="button"
          onClick={() =>
            api.correlation(id, next).then(
              (page) => setMore({ events: [...(more?.events ?? []), ...page.events], next: page.next }),
              (e) => setError(messageOf(e))
            )
          }
        >
          More events
        </button>
      )}
      {error && <ErrorBox message={error} />}
    </section>
  );
}
