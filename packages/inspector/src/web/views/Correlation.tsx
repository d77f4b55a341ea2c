import { useState } from "react";
import { api, type Info, type SearchPage, type WireEvent } from "../api.js";
import { ErrorBox, Heading, messageOf, Name, SearchProgress, time, useLoad } from "../common.js";
import { href } from "../route.js";

/** Every event sharing a correlation id: one action and all that its reactions did. */
export default function Correlation({ id, info }: { id: string; info: Info }) {
  const first = useLoad(() => api.correlation(id), [id]);
  const [more, setMore] = useState<{ events: WireEvent[] } & SearchPage>();
  const [error, setError] = useState<string>();
  const rows = [...(first.data?.events ?? []), ...(more?.events ?? [])];
  const page = more ?? first.data;
  const next = page?.next;
  return (
    <section>
      <Heading>
        Correlation <code>{id}</code>
      </Heading>
      {!info.correlationIndexed && !page && (
        <p className="hint">
          No index on the correlation id: this search reads the log a range of events at a time (see the README for the
          index to add).
        </p>
      )}
      {page && <SearchProgress page={page} />}
      {first.error && <ErrorBox message={first.error} />}
      {first.data && rows.length === 0 && next === undefined && <p>No event has this correlation id.</p>}
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
                  <a href={href({ view: "stream", stream: e.stream })}>
                    <Name>{e.stream}</Name>
                  </a>{" "}
                  v{e.version}
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
              (p) => setMore({ ...p, events: [...(more?.events ?? []), ...p.events] }),
              (e) => setError(messageOf(e))
            )
          }
        >
          {page?.indexed ? "More events" : "Search further"}
        </button>
      )}
      {error && <ErrorBox message={error} />}
    </section>
  );
}
