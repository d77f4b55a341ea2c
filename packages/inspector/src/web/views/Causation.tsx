import { api, type WireEvent } from "../api.js";
import { actorOf, ErrorBox, Heading, Payload, time, useLoad } from "../common.js";
import { href } from "../route.js";

function EventLink({ event }: { event: WireEvent }) {
  return (
    <a href={href({ view: "event", id: String(event.id) })}>
      {event.name}{" "}
      <span className="muted">
        in {event.stream} v{event.version}
      </span>
    </a>
  );
}

/** One event, what caused it and what it caused; every link walks one hop. */
export default function Causation({ id }: { id: string }) {
  const load = useLoad(() => api.event(id), [id]);
  if (load.error)
    return (
      <section>
        <Heading>Event {id}</Heading>
        <ErrorBox message={load.error} />
      </section>
    );
  if (!load.data) return <p aria-live="polite">Loading…</p>;
  const { event, cause, caused, complete } = load.data;
  const action = event.meta.causation.action;
  return (
    <section>
      <Heading>
        {event.name} <span className="muted">#{event.id}</span>
      </Heading>
      <p>
        In <a href={href({ view: "stream", stream: event.stream })}>{event.stream}</a> at v{event.version},{" "}
        {time(event.created)}
        {actorOf(event) && `, by ${actorOf(event)}`}.
      </p>
      <div className="graph">
        <section aria-labelledby="cause">
          <h2 id="cause">Caused by</h2>
          {action && (
            <p>
              Action <code>{action.name}</code> on {action.stream}
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
            <p>Nothing yet.</p>
          ) : (
            <ul>
              {caused.map((e) => (
                <li key={e.id}>
                  <EventLink event={e} />
                </li>
              ))}
            </ul>
          )}
          {!complete && <p className="hint">Only the first 1,000 later events of its correlation were searched.</p>}
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
