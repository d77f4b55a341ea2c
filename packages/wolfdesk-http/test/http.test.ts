/**
 * The API through a real server on a free port, called with fetch: what a
 * client sees for each header and each kind of failure, and a shutdown that
 * lets the request in flight finish. The app's consumer runs the reactions,
 * as in main.ts.
 */
import { request } from "node:http";
import { store } from "@act-root/act";
import { app } from "@act-root/wolfdesk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoTokens, type Running, start } from "../src/index.js";

let server: Running;
beforeAll(async () => {
  server = await start({ port: 0, authenticate: demoTokens });
  app.start();
});
afterAll(() => server.close());

let n = 0;
const newId = () => `http-${++n}`;
const carla = { Authorization: "Bearer token-carla" };

function post(path: string, body: unknown, headers: Record<string, string> = carla) {
  return fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}
const open = (id: string, query = "") =>
  post(`/tickets/${id}/OpenTicket${query}`, { title: "Printer on fire", message: "Send help" });

describe("actions over HTTP", () => {
  it("takes the actor from the Authorization header, never from the body", async () => {
    const id = newId();
    expect((await post(`/tickets/${id}/OpenTicket`, { title: "No one", message: "x" }, {})).status).toBe(401);
    expect(
      (await post(`/tickets/${id}/OpenTicket`, { title: "Bad", message: "x" }, { Authorization: "Bearer nope" })).status
    ).toBe(401);
    const res = await open(id);
    expect(res.status).toBe(200);
    expect(res.headers.get("ETag")).toBe('"0"');
    expect(await res.json()).toMatchObject({ version: 0, ticket: { status: "open", customer: "customer:carla" } });
  });

  it("records the token's actor on the event even when the body names another", async () => {
    // A customer who claims, in the body, to be another customer or a supervisor.
    for (const claimed of [
      { id: "customer:mallory", name: "Mallory" },
      { id: "supervisor:mallory", name: "Mallory" },
    ]) {
      const id = newId();
      const res = await post(`/tickets/${id}/OpenTicket`, { title: "Escalate me", message: "x", actor: claimed });
      expect(res.status, claimed.id).toBe(200);
      expect((await res.json()).ticket.customer).toBe("customer:carla");
      const [event] = await app.queryArray({ stream: `ticket-${id}` });
      expect(event.name).toBe("TicketOpened");
      expect(event.meta.causation.action?.actor, claimed.id).toEqual({ id: "customer:carla", name: "Carla" });
      expect(JSON.stringify(event)).not.toContain("mallory");
    }
  });

  it("waits for the reactions an action caused with ?wait=reactions, and a read sees them too", async () => {
    const id = newId();
    const res = await open(id, "?wait=reactions");
    const body = await res.json();
    // The auto-assign reaction ran before the answer: version 1 is TicketAssigned.
    expect(body.version).toBe(1);
    expect(body.ticket.agent).toMatch(/^agent:/);
    const read = await fetch(`${server.url}/tickets/${id}`);
    expect(read.headers.get("ETag")).toBe(res.headers.get("ETag"));
    expect((await read.json()).ticket.agent).toBe(body.ticket.agent);
  });

  it("waits only for its own reactions: another stream with work left does not hold the answer back", async () => {
    // A reaction stream with work that no running app takes any more: the
    // reaction that targets it was removed in a later release.
    const meta = { correlation: "before-the-upgrade", causation: {} };
    const [old] = await store().commit("legacy", [{ name: "Archived", data: {} }], meta);
    await store().lease(
      [{ stream: "archive", by: "v1", at: -1, retry: 0, head: old.id, reactions: ["Archived/x"] }],
      0
    );
    const id = newId();
    const res = await open(id, "?wait=reactions");
    expect(res.status).toBe(200);
    expect((await res.json()).ticket.agent).toMatch(/^agent:/);
    const [archive] = await store().reactions({ streams: ["archive"] });
    expect(archive.at).toBeLessThan(archive.head); // still behind
  });

  it("answers 400 with each field's path and message for a payload that fails its schema", async () => {
    const id = newId();
    const res = await post(`/tickets/${id}/OpenTicket`, { title: "ab", message: "" });
    expect(res.status).toBe(400);
    const { details } = await res.json();
    expect(details).toEqual([
      { path: "title", message: "a title needs at least 3 characters" },
      { path: "message", message: "say what the problem is" },
    ]);
    expect((await post(`/tickets/${id}/OpenTicket`, "{not json")).status).toBe(400);
    expect((await post(`/tickets/${id}/FlyAway`, {})).status).toBe(404);
    expect((await fetch(`${server.url}/tickets/${id}`)).status).toBe(404);
  });

  it("answers 422 with the rule's description when an invariant refuses the action", async () => {
    const id = newId();
    await open(id, "?wait=reactions");
    const res = await post(`/tickets/${id}/ResolveTicket`, { resolution: "done" });
    expect(res.status).toBe(422);
    expect((await res.json()).error).toMatch(/assigned agent/i);
  });

  it("checks If-Match against the stream's version: stale is 412, malformed is 400, current commits", async () => {
    const id = newId();
    // Waits for the assignment, so no reaction moves the ticket during the test.
    const etag = (await open(id, "?wait=reactions")).headers.get("ETag")!;
    expect(etag).toBe('"1"');
    const stale = await post(`/tickets/${id}/AddMessage`, { body: "one" }, { ...carla, "If-Match": '"7"' });
    expect(stale.status).toBe(412);
    expect(await stale.json()).toMatchObject({ version: 1 });
    expect((await post(`/tickets/${id}/AddMessage`, { body: "x" }, { ...carla, "If-Match": "7" })).status).toBe(400);
    const current = await post(`/tickets/${id}/AddMessage`, { body: "two" }, { ...carla, "If-Match": etag });
    expect(current.status).toBe(200);
    expect(current.headers.get("ETag")).toBe('"2"');
  });

  it("commits a request retried with the same Idempotency-Key once, and answers both alike", async () => {
    const id = newId();
    await open(id, "?wait=reactions");
    const key = { ...carla, "Idempotency-Key": `msg-${id}` };
    const first = await post(`/tickets/${id}/AddMessage`, { body: "hello?" }, key);
    const again = await post(`/tickets/${id}/AddMessage`, { body: "hello?" }, key);
    expect(again.status).toBe(first.status);
    expect(again.headers.get("ETag")).toBe(first.headers.get("ETag"));
    const messages = await app.queryArray({ stream: `ticket-${id}`, names: ["MessageAdded"] });
    expect(messages).toHaveLength(1);
    // A retry that also carries the If-Match of the first attempt gets its outcome, not a 412.
    const guarded = { ...carla, "Idempotency-Key": `guarded-${id}`, "If-Match": first.headers.get("ETag")! };
    const once = await post(`/tickets/${id}/AddMessage`, { body: "anyone?" }, guarded);
    const twice = await post(`/tickets/${id}/AddMessage`, { body: "anyone?" }, guarded);
    expect([once.status, twice.status]).toEqual([200, 200]);
    expect(twice.headers.get("ETag")).toBe(once.headers.get("ETag"));
    // The same key with another body is not a retry: refused, and nothing is added.
    const other = await post(`/tickets/${id}/AddMessage`, { body: "something else" }, key);
    expect(other.status).toBe(422);
    expect(await other.json()).toEqual({ error: "this Idempotency-Key was already used for another request" });
    expect(await app.queryArray({ stream: `ticket-${id}`, names: ["MessageAdded"] })).toHaveLength(2);
  });

  it("lets staff act where customers may not", async () => {
    const id = newId();
    const { ticket } = await (await open(id, "?wait=reactions")).json();
    // The assigned agent's token: `agent:linus` → `token-linus`.
    const as = { Authorization: `Bearer token-${ticket.agent.split(":")[1]}` };
    expect((await post(`/tickets/${id}/ResolveTicket`, { resolution: "rebooted" }, as)).status).toBe(200);
  });
});

describe("shutdown", () => {
  it("finishes the request in flight, then refuses new connections", async () => {
    const other = await start({ port: 0, authenticate: demoTokens });
    const id = newId();
    const answered = new Promise<number>((resolve, reject) => {
      const req = request(`${other.url}/tickets/${id}/OpenTicket`, {
        method: "POST",
        headers: { ...carla, "Content-Type": "application/json" },
      });
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      // Half the body now; the rest after the shutdown has begun.
      req.write('{"title":"Slow request",');
      setTimeout(() => req.end('"message":"still arriving"}'), 100);
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = other.close();
    expect(await answered).toBe(200);
    await closed;
    await expect(fetch(`${other.url}/tickets/${id}`)).rejects.toThrow();
    expect((await fetch(`${server.url}/tickets/${id}`)).status).toBe(200);
  });
});
