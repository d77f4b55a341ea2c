import { useState } from "react";
import { api, type StreamSummary } from "../api.js";
import { ErrorBox, Heading, messageOf, Name, time, useLoad } from "../common.js";
import { href } from "../route.js";

/** Streams by name, searched by prefix, a page at a time (the server never lists them all). */
export default function Streams({ prefix }: { prefix: string }) {
  const [text, setText] = useState(prefix);
  const [find, setFind] = useState("");
  const first = useLoad(() => api.streams(prefix), [prefix]);
  const [more, setMore] = useState<{ streams: StreamSummary[]; next?: string }>();
  const [error, setError] = useState<string>();
  const rows = [...(first.data?.streams ?? []), ...(more?.streams ?? [])];
  const next = more ? more.next : first.data?.next;
  return (
    <section>
      <Heading>Streams</Heading>
      <search>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            location.hash = href({ view: "streams", prefix: text.trim() });
          }}
        >
          <label htmlFor="prefix">Stream name starts with</label>
          <input id="prefix" value={text} onChange={(e) => setText(e.target.value)} placeholder="e.g. order-" />
          <button type="submit">Search</button>
        </form>
      </search>
      <form
        className="find"
        onSubmit={(e) => {
          e.preventDefault();
          const value = find.trim();
          if (!value) return;
          // A whole number is an event id; anything else, a correlation id.
          location.hash = /^\d+$/.test(value)
            ? href({ view: "event", id: value })
            : href({ view: "correlation", id: value });
        }}
      >
        <label htmlFor="find">Event id or correlation id</label>
        <input
          id="find"
          value={find}
          onChange={(e) => setFind(e.target.value)}
          placeholder="e.g. 42 or a correlation id"
        />
        <button type="submit">Find</button>
      </form>
      {first.error && <ErrorBox message={first.error} />}
      {first.data && rows.length === 0 && <p>No stream name starts with “{prefix}”.</p>}
      {rows.length > 0 && (
        <table>
          <caption className="visually-hidden">Streams{prefix && ` starting with ${prefix}`}</caption>
          <thead>
            <tr>
              <th scope="col">Stream</th>
              <th scope="col" className="num">
                Events
              </th>
              <th scope="col">Last event</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((s) => (
              <tr key={s.stream}>
                <td>
                  <a href={href({ view: "stream", stream: s.stream })}>
                    <Name>{s.stream}</Name>
                  </a>
                </td>
                <td className="num">{s.events.toLocaleString("en")}</td>
                <td>{time(s.last)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {next && (
        <button
          type="button"
          onClick={() =>
            api.streams(prefix, next).then(
              (page) => setMore({ streams: [...(more?.streams ?? []), ...page.streams], next: page.next }),
              (e) => setError(messageOf(e))
            )
          }
        >
          More streams
        </button>
      )}
      {error && <ErrorBox message={error} />}
    </section>
  );
}
