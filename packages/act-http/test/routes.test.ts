/**
 * Every route through a real server, driven by a client typed from the
 * API's own OpenAPI document (openapi-typescript types, openapi-fetch): what
 * a client of an app built on the package sees for each route and header.
 */
import createClient from "openapi-fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { paths } from "./generated/notes-api.js";
import { api, app, list, TOKENS } from "./notes.js";
import { listen, type Running } from "./server.js";

let server: Running;
let client: ReturnType<typeof createClient<paths>>;
const as = (token: string) => ({ Authorization: `Bearer ${token}` });
const alice = as(TOKENS.alice);
const bob = as(TOKENS.bob);

beforeAll(async () => {
  server = await listen(api);
  client = createClient<paths>({ baseUrl: server.url });
  app.start();
});
afterAll(async () => {
  await server.close();
  await app.stop();
});

let n = 0;
const newId = () => `api-${++n}`;
const create = (id: string, headers: Record<string, string> = alice, wait = false) =>
  client.POST("/streams/Note/{id}/Create", {
    params: { path: { id }, header: headers as never, query: wait ? { wait: "reactions" } : {} },
    body: { title: "Groceries", body: "milk" },
  });

describe("actions", () => {
  it("commits with the caller from the credentials, answers the state with its version as the ETag", async () => {
    const id = newId();
    const { data, response } = await create(id);
    expect(response.status).toBe(200);
    expect(response.headers.get("ETag")).toBe('"0"');
    expect(data).toEqual({
      stream: `note-${id}`,
      version: 0,
      state: { owner: "user:alice", title: "Groceries", body: "milk", tags: [], closed: false },
    });
    const [event] = await app.queryArray({ stream: `note-${id}` });
    expect(event.meta.causation.action?.actor).toEqual({ id: "user:alice", name: "Alice" });
  });

  it("waits for the request's own reactions with ?wait=reactions", async () => {
    const id = newId();
    const { data, response } = await create(id, alice, true);
    expect(response.status).toBe(200);
    // Version 1 is the tag the reaction added before the answer.
    expect(data).toMatchObject({ version: 1, state: { tags: ["new"] } });
    expect(response.headers.get("ETag")).toBe('"1"');
  });

  it("answers 400 with each bad field's path, 404 for an action that is not served", async () => {
    const id = newId();
    const { error, response } = await client.POST("/streams/Note/{id}/Create", {
      params: { path: { id }, header: alice as never },
      body: { title: "", body: 7 as never },
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("Content-Type")).toBe("application/problem+json");
    expect(error).toMatchObject({
      type: "about:blank",
      status: 400,
      code: "ERR_VALIDATION",
      errors: [
        { path: "title", message: expect.any(String) },
        { path: "body", message: expect.any(String) },
      ],
    });
    // Tag is an action of the app, but only its reaction may use it.
    const tag = await fetch(`${server.url}/streams/Note/${id}/Tag`, {
      method: "POST",
      headers: { ...alice, "Content-Type": "application/json" },
      body: JSON.stringify({ tag: "mine" }),
    });
    expect(tag.status).toBe(404);
    expect(await tag.json()).toMatchObject({ code: "ERR_NOT_FOUND" });
  });

  it("answers 422 with the rule when an invariant refuses, with the stream's version as the ETag", async () => {
    const id = newId();
    await create(id);
    const { error, response } = await create(id);
    expect(response.status).toBe(422);
    expect(error).toMatchObject({ code: "ERR_INVARIANT", detail: "The note already exists" });
    expect(response.headers.get("ETag")).toMatch(/^"\d+"$/);
  });

  it("maps If-Match to the expected version: stale is 412 with the current version, current commits", async () => {
    const id = newId();
    const created = await create(id, alice, true);
    const etag = created.response.headers.get("ETag")!;
    const stale = await client.POST("/streams/Note/{id}/Edit", {
      params: { path: { id }, header: { ...alice, "If-Match": '"0"' } as never },
      body: { body: "eggs" },
    });
    expect(stale.response.status).toBe(412);
    expect(stale.error).toMatchObject({ code: "ERR_CONCURRENCY", version: 1 });
    expect(stale.response.headers.get("ETag")).toBe('"1"');
    const current = await client.POST("/streams/Note/{id}/Edit", {
      params: { path: { id }, header: { ...alice, "If-Match": etag } as never },
      body: { body: "eggs" },
    });
    expect(current.response.status).toBe(200);
    expect(current.data?.state.body).toBe("eggs");
    const malformed = await client.POST("/streams/Note/{id}/Edit", {
      params: { path: { id }, header: { ...alice, "If-Match": "2" } as never },
      body: { body: "ham" },
    });
    expect(malformed.response.status).toBe(400);
  });

  it("commits a retry with the same Idempotency-Key once; the key with another body is a 422", async () => {
    const id = newId();
    await create(id, alice, true);
    const headers = { ...alice, "Idempotency-Key": `edit-${id}` } as never;
    const first = await client.POST("/streams/Note/{id}/Edit", {
      params: { path: { id }, header: headers },
      body: { body: "x" },
    });
    const again = await client.POST("/streams/Note/{id}/Edit", {
      params: { path: { id }, header: headers },
      body: { body: "x" },
    });
    expect([first.response.status, again.response.status]).toEqual([200, 200]);
    expect(again.response.headers.get("ETag")).toBe(first.response.headers.get("ETag"));
    expect(await app.queryArray({ stream: `note-${id}`, names: ["Edited"] })).toHaveLength(1);
    const other = await client.POST("/streams/Note/{id}/Edit", {
      params: { path: { id }, header: headers },
      body: { body: "y" },
    });
    expect(other.response.status).toBe(422);
    expect(other.error).toMatchObject({ code: "ERR_IDEMPOTENCY_KEY_REUSED" });
    expect(await app.queryArray({ stream: `note-${id}`, names: ["Edited"] })).toHaveLength(1);
  });
});

describe("streams and reads", () => {
  it("reads a stream's state for its owner, 403 for another user, 404 for no events", async () => {
    const id = newId();
    await create(id, alice, true);
    const mine = await client.GET("/streams/Note/{id}", { params: { path: { id }, header: alice as never } });
    expect(mine.response.status).toBe(200);
    expect(mine.response.headers.get("ETag")).toBe('"1"');
    expect(mine.data).toMatchObject({ stream: `note-${id}`, version: 1, state: { owner: "user:alice" } });
    const theirs = await client.GET("/streams/Note/{id}", { params: { path: { id }, header: bob as never } });
    expect(theirs.response.status).toBe(403);
    expect(theirs.error).toMatchObject({ code: "ERR_FORBIDDEN" });
    expect(theirs.response.headers.get("ETag")).toBeNull();
    const none = await client.GET("/streams/Note/{id}", { params: { path: { id: newId() }, header: alice as never } });
    expect(none.response.status).toBe(404);
  });

  it("serves a read over the projection: the caller's rows, only the fields the answer lists", async () => {
    const id = newId();
    await create(id, alice, true);
    await app.settled(
      await app.do("Close", { stream: `note-${id}`, actor: { id: "user:alice", name: "Alice" } }, {}),
      {}
    );
    while (!list.get(`note-${id}`)?.closed) await new Promise((r) => setTimeout(r, 10));
    const { data, response } = await client.GET("/reads/notes", {
      params: { query: { closed: "true", limit: 50 }, header: alice as never },
    });
    expect(response.status).toBe(200);
    expect(data).toContainEqual({ id: `note-${id}`, title: "Groceries", closed: true });
    expect(JSON.stringify(data)).not.toContain("owner");
    const bobs = await client.GET("/reads/notes", { params: { query: { limit: 50 }, header: bob as never } });
    expect(bobs.data).toEqual([]);
    const bad = await client.GET("/reads/notes", { params: { query: { limit: 500 }, header: alice as never } });
    expect(bad.response.status).toBe(400);
    expect(bad.error).toMatchObject({ code: "ERR_VALIDATION", errors: [{ path: "limit" }] });
  });

  it("serves its OpenAPI document without credentials", async () => {
    const res = await fetch(`${server.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(api.openapi);
  });
});
