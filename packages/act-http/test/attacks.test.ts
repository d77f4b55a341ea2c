/**
 * The attacks an outside review ran against the earlier HTTP example, each
 * against the package: no credentials, prototype-named tokens, huge bodies
 * and fields, an actor named in the body, idempotency keys reused by another
 * user or for another request, other users' streams, and an unexpected error
 * that must not leak its details.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { http, stream } from "../src/index.js";
import { api, app, Note, TOKENS } from "./notes.js";
import { listen, type Running } from "./server.js";

let server: Running;
beforeAll(async () => {
  server = await listen(api);
});
afterAll(() => server.close());

let n = 0;
const newId = () => `attack-${++n}`;
const alice = { Authorization: `Bearer ${TOKENS.alice}` };
const bob = { Authorization: `Bearer ${TOKENS.bob}` };
const post = (path: string, body: string, headers: Record<string, string> = alice) =>
  fetch(`${server.url}${path}`, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body });
const create = (id: string, headers = alice) =>
  post(`/streams/Note/${id}/Create`, JSON.stringify({ title: "Secret", body: "the safe's code" }), headers);
const events = async (stream?: string) => (await app.query(stream ? { stream } : {})).count;

describe("authentication", () => {
  it("refuses every route but the document without credentials, with a problem and WWW-Authenticate", async () => {
    const id = newId();
    await create(id);
    for (const res of [
      await fetch(`${server.url}/streams/Note/${id}`),
      await fetch(`${server.url}/streams/Note/${id}/events`),
      await fetch(`${server.url}/reads/notes`),
      await post(`/streams/Note/${id}/Edit`, '{"body":"x"}', {}),
    ]) {
      expect(res.status, res.url).toBe(401);
      expect(res.headers.get("WWW-Authenticate")).toBe("Bearer");
      expect(res.headers.get("Content-Type")).toBe("application/problem+json");
      expect(await res.json()).toMatchObject({ code: "ERR_UNAUTHORIZED", status: 401 });
    }
  });

  it("does not take prototype names, prefixes or near misses of a token for a token", async () => {
    const id = newId();
    for (const token of [
      "constructor",
      "__proto__",
      "toString",
      "hasOwnProperty",
      TOKENS.alice.slice(0, -1),
      `${TOKENS.alice}x`,
      TOKENS.alice.toUpperCase(),
    ]) {
      const res = await create(id, { Authorization: `Bearer ${token}` });
      expect(res.status, token).toBe(401);
    }
    expect(await events(`note-${id}`)).toBe(0);
  });

  it("records the authenticated actor even when the body names another one", async () => {
    const id = newId();
    const res = await post(
      `/streams/Note/${id}/Create`,
      JSON.stringify({ title: "t", body: "b", actor: { id: "user:bob", name: "Bob" }, owner: "user:bob" })
    );
    expect(res.status).toBe(200);
    expect((await res.json()).state.owner).toBe("user:alice");
    expect(JSON.stringify(await app.queryArray({ stream: `note-${id}` }))).not.toContain("user:bob");
  });
});

describe("authorization", () => {
  it("keeps other users' streams from them: read, events and actions are 403 and change nothing", async () => {
    const id = newId();
    await create(id);
    const before = await events(`note-${id}`);
    const read = await fetch(`${server.url}/streams/Note/${id}`, { headers: bob });
    expect(read.status).toBe(403);
    expect(JSON.stringify(await read.json())).not.toContain("safe");
    expect((await fetch(`${server.url}/streams/Note/${id}/events`, { headers: bob })).status).toBe(403);
    expect((await post(`/streams/Note/${id}/Edit`, '{"body":"mine now"}', bob)).status).toBe(403);
    expect((await post(`/streams/Note/${id}/Close`, "{}", bob)).status).toBe(403);
    expect(await events(`note-${id}`)).toBe(before);
  });

  it("does not give another user the outcome of a request through its Idempotency-Key", async () => {
    const id = newId();
    await create(id);
    const key = { "Idempotency-Key": `k-${id}` };
    expect((await post(`/streams/Note/${id}/Edit`, '{"body":"v2"}', { ...alice, ...key })).status).toBe(200);
    const replay = await post(`/streams/Note/${id}/Edit`, '{"body":"v2"}', { ...bob, ...key });
    expect(replay.status).toBe(403);
    expect(JSON.stringify(await replay.json())).not.toContain("v2");
  });
});

describe("limits", () => {
  it("refuses a body over the limit with 413 before storing anything, stated or chunked", async () => {
    const id = newId();
    const huge = JSON.stringify({ title: "t", body: "x".repeat(64 * 1024 * 1024) });
    const res = await post(`/streams/Note/${id}/Create`, huge);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: "ERR_TOO_LARGE" });
    // Without a Content-Length: the body is counted while it arrives.
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 100; i++) controller.enqueue(new TextEncoder().encode("x".repeat(1024)));
        controller.close();
      },
    });
    const chunked = await fetch(`${server.url}/streams/Note/${id}/Create`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...alice },
      body: chunks,
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(await events(`note-${id}`)).toBe(0);
  });

  it("refuses a long string, a deep nesting or a wide object inside a small enough body, naming where", async () => {
    const id = newId();
    const long = await post(`/streams/Note/${id}/Create`, JSON.stringify({ title: "t", body: "y".repeat(20_000) }));
    expect(long.status).toBe(413);
    expect((await long.json()).errors).toEqual([{ path: "body", message: expect.stringContaining("10000") }]);
    let deep: unknown = "x";
    for (let i = 0; i < 40; i++) deep = [deep];
    expect((await post(`/streams/Note/${id}/Create`, JSON.stringify({ title: "t", body: "b", deep }))).status).toBe(
      413
    );
    const wide = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, 1]));
    expect((await post(`/streams/Note/${id}/Create`, JSON.stringify({ title: "t", body: "b", ...wide }))).status).toBe(
      413
    );
    expect(await events(`note-${id}`)).toBe(0);
  });

  it("refuses what is not JSON, and ids with control characters", async () => {
    const id = newId();
    const form = await fetch(`${server.url}/streams/Note/${id}/Create`, {
      method: "POST",
      headers: { ...alice, "Content-Type": "application/x-www-form-urlencoded" },
      body: "title=t&body=b",
    });
    expect(form.status).toBe(415);
    expect((await post(`/streams/Note/${id}/Create`, "{not json")).status).toBe(400);
    expect((await post(`/streams/Note/${encodeURIComponent("a\nb")}/Create`, '{"title":"t","body":"b"}')).status).toBe(
      400
    );
    expect(
      (await post(`/streams/Note/${encodeURIComponent("a\u202Eb")}/Create`, '{"title":"t","body":"b"}')).status
    ).toBe(400);
  });
});

describe("errors", () => {
  it("answers an unexpected failure with a generic 500 and logs it on the server only", async () => {
    const logged: unknown[] = [];
    const Broken = stream(Note, {
      authorize: () => {
        throw new Error("database password is hunter2 at /srv/app/secret.ts:12");
      },
    });
    const broken = http(app, {
      authenticate: () => ({ id: "user:x", name: "X" }),
      actions: {},
      streams: [Broken],
      log: (error) => logged.push(error),
    });
    const res = await broken.fetch(new Request("http://x/streams/Note/1"));
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toMatch(/hunter2|secret\.ts|at /);
    expect(JSON.parse(text)).toEqual({
      type: "about:blank",
      title: "Internal Server Error",
      status: 500,
      code: "ERR_INTERNAL",
      detail: "Internal error",
    });
    expect(logged).toHaveLength(1);
  });

  it("refuses to build without an authenticate hook, or with a route without a rule", () => {
    const Notes = stream(Note, { authorize: () => true });
    expect(() => http(app, { actions: {}, streams: [] } as never)).toThrow(/authenticate hook is required/);
    const authenticate = () => undefined;
    expect(() => http(app, { authenticate, actions: { Create: {} as never }, streams: [Notes] })).toThrow(
      /needs an authorize rule/
    );
    expect(() => http(app, { authenticate, actions: { Create: { authorize: () => true } }, streams: [] })).toThrow(
      /has no stream route/
    );
    expect(() =>
      http(app, { authenticate, actions: { Nope: { authorize: () => true } } as never, streams: [Notes] })
    ).toThrow(/not an action of the app/);
    expect(() =>
      http(app, {
        authenticate,
        actions: {},
        streams: [Notes],
        reads: { x: { query: z.object({}), answer: z.string(), read: () => "" } as never },
      })
    ).toThrow(/read "x" needs an authorize rule/);
    expect(() => http(app, { authenticate, actions: {}, streams: [Notes], limits: { bodyBytes: 0 } })).toThrow(
      /bodyBytes/
    );
  });
});
