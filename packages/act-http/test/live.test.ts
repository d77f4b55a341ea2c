/**
 * What happens over time: server-sent events of a stream (resumable,
 * bounded, ended on shutdown), `?wait=reactions` when no consumer runs the
 * reactions in time (202 and where to poll), and a graceful stop that
 * answers the request in flight. No consumer runs in this file.
 */
import { describe, expect, it } from "vitest";
import { http, stream } from "../src/index.js";
import { alice, api, app, Note, TOKENS } from "./notes.js";
import { listen } from "./server.js";

const auth = { Authorization: `Bearer ${TOKENS.alice}` };
let n = 0;
const newId = () => `live-${++n}`;

/** Reads SSE messages from a response until `count` events have arrived. */
async function take(res: Response, count: number): Promise<{ id: string; event: string; data: any }[]> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const messages: { id: string; event: string; data: any }[] = [];
  let buffer = "";
  while (messages.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf("\n\n");
      if (block.startsWith(":")) continue;
      const field = (name: string) =>
        block
          .split("\n")
          .find((l) => l.startsWith(`${name}: `))
          ?.slice(name.length + 2);
      messages.push({ id: field("id")!, event: field("event")!, data: JSON.parse(field("data")!) });
    }
  }
  await reader.cancel();
  return messages;
}

const act = (id: string, action: "Create" | "Edit", payload: object) =>
  app.do(action, { stream: `note-${id}`, actor: alice }, payload as never);

describe("server-sent events", () => {
  it("sends a stream's committed events as they happen, and resumes after Last-Event-ID", async () => {
    const id = newId();
    await act(id, "Create", { title: "t", body: "b" });
    const res = await api.fetch(new Request(`http://x/streams/Note/${id}/events`, { headers: auth }));
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/event-stream; charset=utf-8");
    const later = (async () => {
      await new Promise((r) => setTimeout(r, 20));
      await act(id, "Edit", { body: "b2" });
      await act(id, "Edit", { body: "b3" });
    })();
    const got = await take(res, 3);
    await later;
    expect(got.map((m) => [m.event, m.data.version, m.data.data])).toEqual([
      ["Created", 0, { owner: "user:alice", title: "t", body: "b" }],
      ["Edited", 1, { body: "b2" }],
      ["Edited", 2, { body: "b3" }],
    ]);
    expect(got.map((m) => m.id)).toEqual(got.map((m) => String(m.data.id)));
    // The actor and the rest of the event's meta stay on the server.
    expect(JSON.stringify(got)).not.toContain("causation");

    const resumed = await api.fetch(
      new Request(`http://x/streams/Note/${id}/events`, { headers: { ...auth, "Last-Event-ID": got[1].id } })
    );
    expect((await take(resumed, 1)).map((m) => m.data.version)).toEqual([2]);
    const bad = await api.fetch(
      new Request(`http://x/streams/Note/${id}/events`, { headers: { ...auth, "Last-Event-ID": "x" } })
    );
    expect(bad.status).toBe(400);
  });

  it("asks the stream's rule again before each batch, and ends the stream once it says no", async () => {
    const id = newId();
    await act(id, "Create", { title: "t", body: "b" });
    let allowed = true;
    const guarded = http(app, {
      authenticate: () => alice,
      actions: {},
      streams: [stream(Note, { stream: (id) => `note-${id}`, authorize: () => allowed })],
      events: { pollMillis: 20 },
    });
    const res = await guarded.fetch(new Request(`http://x/streams/Note/${id}/events`));
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    expect((await reader.read()).value).toContain("event: Created");
    allowed = false;
    await act(id, "Edit", { body: "secret" });
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += chunk.value;
    expect(rest).not.toContain("secret");
    await guarded.close();
  });

  it("authenticates the caller again before each batch, and ends the stream once the token is revoked", async () => {
    const id = newId();
    await act(id, "Create", { title: "t", body: "b" });
    let revoked = false;
    const guarded = http(app, {
      authenticate: () => (revoked ? undefined : alice),
      actions: {},
      streams: [stream(Note, { stream: (id) => `note-${id}`, authorize: () => true })],
      events: { pollMillis: 20 },
    });
    const res = await guarded.fetch(new Request(`http://x/streams/Note/${id}/events`));
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    expect((await reader.read()).value).toContain("event: Created");
    revoked = true;
    await act(id, "Edit", { body: "after revocation" });
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += chunk.value;
    expect(rest).not.toContain("after revocation");
    await guarded.close();
  });

  it("caps the open streams, and ends them all on close()", async () => {
    const id = newId();
    await act(id, "Create", { title: "t", body: "b" });
    const capped = http(app, {
      authenticate: () => alice,
      actions: {},
      streams: [stream(Note, { stream: (id) => `note-${id}`, authorize: () => true })],
      events: { maxClients: 2, pollMillis: 20 },
    });
    const open = () => capped.fetch(new Request(`http://x/streams/Note/${id}/events`));
    const [one, two] = [await open(), await open()];
    expect([one.status, two.status]).toEqual([200, 200]);
    const third = await open();
    expect(third.status).toBe(503);
    expect(await third.json()).toMatchObject({ code: "ERR_UNAVAILABLE" });
    const readers = [one, two].map((res) => res.body!.getReader());
    await Promise.all(readers.map((r) => r.read())); // the Created event
    await capped.close();
    for (const reader of readers) expect((await reader.read()).done).toBe(true);
    expect((await open()).status).toBe(503);
  });
});

describe("?wait=reactions without a consumer", () => {
  it("answers 202 with the committed state and a Location to poll when the reactions do not run in time", async () => {
    const id = newId();
    const res = await api.fetch(
      new Request(`http://x/streams/Note/${id}/Create?wait=reactions`, {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json" },
        body: JSON.stringify({ title: "t", body: "b" }),
      })
    );
    expect(res.status).toBe(202);
    expect(res.headers.get("Location")).toBe(`/streams/Note/${id}`);
    expect(res.headers.get("ETag")).toBe('"0"');
    expect(await res.json()).toMatchObject({ version: 0, state: { tags: [] } });
    const bad = await api.fetch(
      new Request(`http://x/streams/Note/${newId()}/Create?wait=forever`, {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json" },
        body: JSON.stringify({ title: "t", body: "b" }),
      })
    );
    expect(bad.status).toBe(400);
  });

  it("does not wait once as many requests wait as allowed: 202 at once", async () => {
    const tight = http(app, {
      authenticate: () => alice,
      actions: { Create: { authorize: () => true } },
      streams: [stream(Note, { authorize: () => true })],
      wait: { maxWaiting: 1, timeoutMillis: 30_000 },
    });
    const create = (id: string) =>
      tight.fetch(
        new Request(`http://x/streams/Note/${id}/Create?wait=reactions`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ title: "t", body: "b" }),
        })
      );
    const first = create(newId()); // waits (nothing runs the reactions) until close()
    await new Promise((r) => setTimeout(r, 50));
    expect((await create(newId())).status).toBe(202);
    // The one waiting is let go by running the reactions.
    await app.drain();
    expect((await first).status).toBe(200);
  });
});

describe("shutdown", () => {
  it("answers the request in flight, then refuses new ones with 503", async () => {
    const server = await listen(api);
    const id = newId();
    let release!: () => void;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"title":"slow",'));
        release = () => {
          controller.enqueue(new TextEncoder().encode('"body":"arriving"}'));
          controller.close();
        };
      },
    });
    const inFlight = fetch(`${server.url}/streams/Note/${id}/Create`, {
      method: "POST",
      headers: { ...auth, "Content-Type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    await new Promise((r) => setTimeout(r, 50));
    const closing = api.close();
    const refused = await api.fetch(new Request(`http://x/streams/Note/${id}`, { headers: auth }));
    expect(refused.status).toBe(503);
    expect(refused.headers.get("Connection")).toBe("close");
    release();
    expect((await inFlight).status).toBe(200);
    await closing;
    await server.close();
    expect((await app.load(Note, `note-${id}`)).state.title).toBe("slow");
  });
});
