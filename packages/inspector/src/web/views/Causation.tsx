import { useState } from "react";
import { api, type SearchPage, type WireEvent } from "../api.js";
import { actorOf, ErrorBox, Heading, messageOf, Name, Payload, SearchProgress, time, useLoad } from "../common.js";
import { href } from "../route.js";

function EventLink({ event }: { event: WireEvent }) {
  return (
    <a href={href({ view: "event", id: String(event.id) })}>
      {event.name}{" "}
      <span className="muted">
        in <Name>{event.stream}</Name> v{event.version}
      </span>
    </a>
  );
}

/** One event, what caused it and what it caused; every link walks one hop. */
export default function Causation({ id }: { id: string }) {
  const load = useLoad(() => api.event(id), [id]);
  const [more, setMore] = useState<{ caused: WireEvent[] } & SearchPage>();
  const [error, setError] = useState<string>();
  if (load.error)
    return (
      <section>
        <Heading>Event {id}</Heading>
        <ErrorBox message={load.error} />
      </section>
    );
  if (!load.data) return <p aria-live="polite">Loading…</p>;
  const { event, cause } = load.data;
  const caused = [...load.data.caused, ...(more?.caused ?? [])];
  const page: SearchPage = more ?? load.data;
  const action = event.meta.causation.action;
  return (
    <section>
      <Heading>
        {event.name} <span className="muted">#{event.id}</span>
      </Heading>
      <p>
        In{" "}
        <a href={href({ view: "stream", stream: event.stream })}>
          <Name>{event.stream}</Name>
        </a>{" "}
        at v{event.version}, {time(event.created)}
        {actorOf(event) && `, by ${actorOf(event)}`}.
      </p>
      <div className="graph">
        <section aria-labelledby="cause">
          <h2 id="cause">Caused by</h2>
          {action && (
            <p>
              Action <code>{action.name}</code> on <Name>{action.stream}</Name>
            </p>
          )}
          {cause ? (
            <ul>
              <li>
                <EventLink event={cause} /> <span className="muted">(a reaction to it)</span>
              </li>
            </ul>
          ) : (
            <p>{event.meta.causation.event ? "The causing event is gone." : "No event: a direct action."}</p>
          )}
        </section>
        <section aria-labelledby="caused" className="current">
          <h2 id="caused">It caused</h2>
          {caused.length === 0 ? (
            <p>{page.next === undefined ? "Nothing yet." : "Nothing found so far."}</p>
          ) : (
            <ul>
              {caused.map((e) => (
                <li key={e.id}>
                  <EventLink event={e} />
                </li>
              ))}
            </ul>
          )}
          <SearchProgress page={page} />
          {page.next !== undefined && (
            <button
              type="button"
              onClick={() =>
                api.caused(event.id, page.next as number).then(
                  (p) => setMore({ ...p, caused: [...(more?.caused ?? []), ...p.caused] }),
                  (e) => setError(messageOf(e))
                )
              }
            >
              Search further
            </button>
          )}
          {error && <ErrorBox message={error} />}
        </section>
      </div>
      <p>
        Correlation <a href={href({ view: "correlation", id: event.meta.correlation })}>{event.meta.correlation}</a>:
        every event of this chain.
      </p>
      <h2>Data</h2>
      <Payload event={event} field="data" />
    </section>
  );
}
