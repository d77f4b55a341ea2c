/**
 * The WolfDesk API through a real server on a free port, called with fetch:
 * what each of WolfDesk's people may do and see, what a client gets for each
 * header and failure, and a shutdown that lets the request in flight finish.
 * The app's consumer runs the reactions, as in main.ts.
 */
import { request } from "node:http";
import { store } from "@act-root/act";
import { app, TicketList } from "@act-root/wolfdesk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoToken, demoTokens, type Running, start } from "../src/index.js";

let server: Running;
beforeAll(async () => {
  server = await start({ port: 0, authenticate: demoTokens });
  app.start();
});
afterAll(() => server.close());

let n = 0;
const newId = () => `http-${++n}`;
const as = (name: string) => ({ Authorization: `Bearer ${demoToken(name)}` });
const carla = as("carla");

function post(path: string, body: unknown, headers: Record<string, string> = carla) {
  return fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}
const get = (path: string, headers: Record<string, string> = carla) => fetch(`${server.url}${path}`, { headers });
const ticket = (id: string, action = "") => `/streams/Ticket/${id}${action ? `/${action}` : ""}`;
const open = (id: string, query = "") =>
  post(`${ticket(id, "OpenTicket")}${query}`, { title: "Printer on fire", message: "Send help" });

describe("who may do what", () => {
  it("takes the actor from the Authorization header, never from the body", async () => {
    const id = newId();
    expect((await post(ticket(id, "OpenTicket"), { title: "No one", message: "x" }, {})).status).toBe(401);
    expect((await post(ticket(id, "OpenTicket"), { title: "Bad", message: "x" }, as("nope"))).status).toBe(401);
    const res = await post(ticket(id, "OpenTicket"), {
      title: "Escalate me",
      message: "x",
      actor: { id: "supervisor:mallory", name: "Mallory" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("ETag")).toBe('"0"');
    expect(await res.json()).toMatchObject({ version: 0, state: { status: "open", customer: "customer:carla" } });
    const [event] = await app.queryArray({ stream: `ticket-${id}` });
    expect(event.meta.causation.action?.actor).toEqual({ id: "customer:carla", name: "Carla" });
    expect(JSON.stringify(event)).not.toContain("mallory");
  });

  it("shows a ticket to its customer, its agent and supervisors only — never to anonymous callers", async () => {
    const id = newId();
    const { state } = await (await open(id, "?wait=reactions")).json();
    expect((await get(ticket(id), {})).status).toBe(401);
    expect((await get(ticket(id), as("dave"))).status).toBe(403);
    const otherAgent = ["ada", "linus", "grace"].find((a) => `agent:${a}` !== state.agent)!;
    expect((await get(ticket(id), as(otherAgent))).status).toBe(403);
    for (const who of ["carla", state.agent.split(":")[1], "sam"])
      expect((await get(ticket(id), as(who))).status, who).toBe(200);
    // Another customer cannot write on it either, nor close it with its owner's idempotency key.
    expect((await post(ticket(id, "AddMessage"), { body: "mine now" }, as("dave"))).status).toBe(403);
    expect((await post(ticket(id, "CloseTicket"), {}, { ...as("dave"), "Idempotency-Key": `k-${id}` })).status).toBe(
      403
    );
  });

  it("lists the tickets each caller may see from the ticket list", async () => {
    const id = newId();
    const snapshots = (await (await open(id, "?wait=reactions")).json()) as { state: { agent: string } };
    await app.projected(TicketList, await app.queryArray({ stream: `ticket-${id}` }).then((e) => e.at(-1)!.id));
    const ids = async (who: string) =>
      ((await (await get("/reads/tickets?status=open", as(who))).json()) as { id: string }[]).map((row) => row.id);
    expect(await ids("carla")).toContain(`ticket-${id}`);
    expect(await ids("sam")).toContain(`ticket-${id}`);
    expect(await ids(snapshots.state.agent.split(":")[1]!)).toContain(`ticket-${id}`);
    expect(await ids("dave")).not.toContain(`ticket-${id}`);
    expect((await get("/reads/tickets?status=lost")).status).toBe(400);
  });

  it("lets staff act where customers may not", async () => {
    const id = newId();
    const { state } = await (await open(id, "?wait=reactions")).json();
    expect((await post(ticket(id, "AssignTicket"), { agent: "agent:ada" })).status).toBe(403);
    const agent = as(state.agent.split(":")[1]);
    expect((await post(ticket(id, "ResolveTicket"), { resolution: "rebooted" }, agent)).status).toBe(200);
    // QueueEscalation belongs to a reaction: not on the API.
    expect((await post(`/streams/Escalations/queue/QueueEscalation`, {}, as("sam"))).status).toBe(404);
  });
});

describe("the HTTP contract", () => {
  it("waits for the reactions an action caused with ?wait=reactions, and a read sees them too", async () => {
    const id = newId();
    const res = await open(id, "?wait=reactions");
    const body = await res.json();
    // The auto-assign reaction ran before the answer: version 1 is TicketAssigned.
    expect(body.version).toBe(1);
    expect(body.state.agent).toMatch(/^agent:/);
    const read = await get(ticket(id));
    expect(read.headers.get("ETag")).toBe(res.headers.get("ETag"));
    expect((await read.json()).state.agent).toBe(body.state.agent);
  });

  it("waits only for its own reactions: another stream with work left does not hold the answer back", async () => {
    // A reaction stream with work that no running app takes any more: the
    // reaction that targets it was removed in a later release.
    const meta = { correlation: "before-the-upgrade", causation: {} };
    const [old] = await store().commit({ stream: "legacy", messages: [{ name: "Archived", data: {} }], meta });
    await store().lease(
      [{ stream: "archive", by: "v1", at: -1, retry: 0, head: old.id, reactions: ["Archived/x"] }],
      0
    );
    const id = newId();
    const res = await open(id, "?wait=reactions");
    expect(res.status).toBe(200);
    expect((await res.json()).state.agent).toMatch(/^agent:/);
    const [archive] = await store().reactions({ streams: ["archive"] });
    expect(archive.at).toBeLessThan(archive.head); // still behind
  });

  it("answers problems: 400 with each field's path, 404 for what is not served, 413 over the limits", async () => {
    const id = newId();
    const res = await post(ticket(id, "OpenTicket"), { title: "ab", message: "" });
    expect(res.status).toBe(400);
    expect(res.headers.get("Content-Type")).toBe("application/problem+json");
    expect((await res.json()).errors).toEqual([
      { path: "title", message: "a title needs at least 3 characters" },
      { path: "message", message: "say what the problem is" },
    ]);
    expect((await post(ticket(id, "OpenTicket"), "{not json")).status).toBe(400);
    expect((await post(ticket(id, "FlyAway"), {})).status).toBe(404);
    expect((await get(ticket(id))).status).toBe(404);
    const huge = await post(ticket(id, "OpenTicket"), { title: "Big", message: "x".repeat(64 * 1024 * 1024) });
    expect(huge.status).toBe(413);
    expect((await post(ticket(id, "OpenTicket"), { title: "Long", message: "x".repeat(5_000) })).status).toBe(413);
    expect(await app.queryArray({ stream: `ticket-${id}` })).toEqual([]);
  });

  it("answers 422 with the rule's description when an invariant refuses the action", async () => {
    const id = newId();
    await open(id, "?wait=reactions");
    const res = await post(ticket(id, "ResolveTicket"), { resolution: "done" });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ code: "ERR_INVARIANT", detail: expect.stringMatching(/assigned agent/i) });
  });

  it("checks If-Match against the stream's version: stale is 412, malformed is 400, current commits", async () => {
    const id = newId();
    // Waits for the assignment, so no reaction moves the ticket during the test.
    const etag = (await open(id, "?wait=reactions")).headers.get("ETag")!;
    expect(etag).toBe('"1"');
    const stale = await post(ticket(id, "AddMessage"), { body: "one" }, { ...carla, "If-Match": '"7"' });
    expect(stale.status).toBe(412);
    expect(stale.headers.get("ETag")).toBe('"1"');
    expect(await stale.json()).toMatchObject({ code: "ERR_CONCURRENCY", version: 1 });
    expect((await post(ticket(id, "AddMessage"), { body: "x" }, { ...carla, "If-Match": "7" })).status).toBe(400);
    const current = await post(ticket(id, "AddMessage"), { body: "two" }, { ...carla, "If-Match": etag });
    expect(current.status).toBe(200);
    expect(current.headers.get("ETag")).toBe('"2"');
  });

  it("commits a request retried with the same Idempotency-Key once, and answers both alike", async () => {
    const id = newId();
    await open(id, "?wait=reactions");
    const key = { ...carla, "Idempotency-Key": crypto.randomUUID() };
    const first = await post(ticket(id, "AddMessage"), { body: "hello?" }, key);
    const again = await post(ticket(id, "AddMessage"), { body: "hello?" }, key);
    expect(again.status).toBe(first.status);
    expect(again.headers.get("ETag")).toBe(first.headers.get("ETag"));
    expect(await app.queryArray({ stream: `ticket-${id}`, names: ["MessageAdded"] })).toHaveLength(1);
    // A retry that also carries the If-Match of the first attempt gets its outcome, not a 412.
    const guarded = { ...carla, "Idempotency-Key": crypto.randomUUID(), "If-Match": first.headers.get("ETag")! };
    const once = await post(ticket(id, "AddMessage"), { body: "anyone?" }, guarded);
    const twice = await post(ticket(id, "AddMessage"), { body: "anyone?" }, guarded);
    expect([once.status, twice.status]).toEqual([200, 200]);
    expect(twice.headers.get("ETag")).toBe(once.headers.get("ETag"));
    // The same key with another body is not a retry: refused, and nothing is added.
    const other = await post(ticket(id, "AddMessage"), { body: "something else" }, key);
    expect(other.status).toBe(422);
    expect(await other.json()).toMatchObject({ code: "ERR_IDEMPOTENCY_KEY_REUSED" });
    expect(await app.queryArray({ stream: `ticket-${id}`, names: ["MessageAdded"] })).toHaveLength(2);
  });

  it("streams a ticket's events to its people as server-sent events", async () => {
    const id = newId();
    await open(id, "?wait=reactions");
    const res = await get(`${ticket(id)}/events`);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/event-stream/);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("event: TicketAssigned")) text += (await reader.read()).value;
    await reader.cancel();
    expect(text).toMatch(/^id: \d+\nevent: TicketOpened\n/);
  });

  it("keeps a customer's ticket list current as the ticket list projection moves", async () => {
    const res = await get("/reads/tickets/changes");
    expect(res.headers.get("Content-Type")).toMatch(/^text\/event-stream/);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    const answers = () => [...text.matchAll(/event: answer\ndata: (.*)\n\n/g)].map((m) => JSON.parse(m[1]));
    while (answers().length < 1) text += (await reader.read()).value;
    const id = newId();
    await open(id);
    // The consumer projects the new ticket; the list is sent again with it.
    while (!answers().some((rows) => rows.some((row: { id: string }) => row.id === `ticket-${id}`)))
      text += (await reader.read()).value;
    await reader.cancel();
    // The live answer is the read's own: Carla's tickets only (their rows may move on as agents are assigned).
    const ids = (rows: { id: string }[]) => rows.map((row) => row.id).sort();
    expect(ids(answers().at(-1))).toEqual(ids(await (await get("/reads/tickets")).json()));
  });
});

describe("shutdown", () => {
  it("finishes the request in flight, then refuses new connections", async () => {
    const other = await start({ port: 0, authenticate: demoTokens });
    const id = newId();
    const answered = new Promise<number>((resolve, reject) => {
      const req = request(`${other.url}${ticket(id, "OpenTicket")}`, {
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
    await expect(fetch(`${other.url}${ticket(id)}`, { headers: carla })).rejects.toThrow();
    expect((await get(ticket(id))).status).toBe(200);
  });
});
