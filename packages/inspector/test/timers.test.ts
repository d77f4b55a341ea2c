/**
 * The timers views' API: pending timers the earliest due first, filtered by
 * action and stream, overdue ones with their lateness, one timer in detail —
 * behind the same session as every endpoint, and never a payload where the
 * inspector cannot tell that it holds no personal data.
 */
import { act, InMemoryStore, state } from "@act-root/act";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { StoreCatalog } from "../src/server/catalog.js";
import { type RunningServer, startServer } from "../src/server/http.js";
import { inspect } from "../src/index.js";
import { bearer, signIn } from "./session.js";

const Ticket = state("Ticket", z.object({ level: z.number() }))
  .init(() => ({ level: 0 }))
  .emits({ Escalated: z.object({ level: z.number() }) })
  .patch({ Escalated: ({ data }) => ({ level: data.level }) })
  .on("escalate", z.object({ level: z.number(), note: z.string() }))
  .emit(({ level }) => ["Escalated", { level }])
  .build();

const Patient = state("Patient", z.object({ name: z.string() }))
  .init(() => ({ name: "" }))
  .emits({ Reminded: z.object({ name: z.string() }) })
  .patch({ Reminded: ({ data }) => ({ name: data.name }) })
  .personal({ Reminded: { fields: ["name"] } })
  .on("remind", z.object({ name: z.string() }))
  .emit((p) => ["Reminded", p])
  .build();

const SECRET = "Quentin Zarathustra";
const NOTE = "printer on fire";
const bot = { id: "bot", name: "Bot" };
const HOUR = 3_600_000;
let appMode: RunningServer;
let storeMode: RunningServer;
let bare: RunningServer;
const sessions = new Map<RunningServer, string>();

beforeAll(async () => {
  const store = new InMemoryStore();
  const app = act().with(Ticket).with(Patient).build({ store });
  const at = (millis: number) => new Date(Date.now() + millis);
  // Two overdue (one of them tried once and failed), three due later; the patient's holds personal data.
  await app.schedule({
    id: "late-1",
    action: "escalate",
    target: { stream: "t-1", actor: bot },
    payload: { level: 1, note: NOTE },
    at: at(-2 * HOUR),
  });
  await app.schedule({
    id: "late-2",
    action: "escalate",
    target: { stream: "t-2", actor: bot },
    payload: { level: 1, note: NOTE },
    at: at(-HOUR),
  });
  await app.schedule({
    id: "soon-3",
    action: "escalate",
    target: { stream: "t-3", actor: bot },
    payload: { level: 2, note: NOTE },
    at: at(HOUR),
  });
  await app.schedule({
    id: "soon-4",
    action: "escalate",
    target: { stream: "t-4", actor: bot },
    payload: { level: 2, note: NOTE },
    at: at(2 * HOUR),
  });
  await app.schedule({
    id: "remind-p",
    action: "remind",
    target: { stream: "patient-1", actor: bot },
    payload: { name: SECRET },
    at: at(3 * HOUR),
  });
  await app.schedule({
    id: "gone",
    action: "escalate",
    target: { stream: "t-9", actor: bot },
    payload: { level: 9, note: NOTE },
    at: at(HOUR),
  });
  await app.cancel("gone");
  const [claimed] = await store.timers.claim({
    now: new Date(),
    by: "worker-1",
    millis: 1,
    limit: 1,
    actions: ["escalate"],
  });
  await store.timers.settle([
    {
      id: claimed.id,
      by: "worker-1",
      token: claimed.token,
      at: new Date(),
      error: "store down",
      retryAt: new Date(Date.now() - 1),
    },
  ]);
  appMode = await inspect(app, { print: false });
  storeMode = await startServer({ store, catalog: new StoreCatalog(store) });
  // The same store seen without its timers, as a store that keeps none.
  const withoutTimers = new Proxy(store, { get: (t, k) => (k === "timers" ? undefined : Reflect.get(t, k, t)) });
  bare = await startServer({ store: withoutTimers, catalog: new StoreCatalog(store) });
});

afterAll(async () => {
  for (const s of [appMode, storeMode, bare]) await s?.close();
});

async function get(server: RunningServer, path: string, signedIn = true) {
  if (signedIn && !sessions.has(server)) sessions.set(server, await signIn(server.link()));
  const headers = signedIn ? bearer(sessions.get(server)!) : undefined;
  const res = await fetch(`http://127.0.0.1:${server.port}${path}`, { headers });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) };
}

describe("GET /api/timers", () => {
  it("needs a session, as every endpoint", async () => {
    expect((await get(storeMode, "/api/timers", false)).status).toBe(401);
    expect((await get(storeMode, "/api/timer?id=late-1", false)).status).toBe(401);
  });

  it("lists pending timers the earliest due first, overdue ones with their lateness, with the store's counts", async () => {
    const { status, body, text } = await get(storeMode, "/api/timers");
    expect(status).toBe(200);
    expect(body.totals).toEqual({ pending: 5, overdue: 2 });
    expect(body.timers.map((t: { id: string }) => t.id)).toEqual(["late-1", "late-2", "soon-3", "soon-4", "remind-p"]);
    const [first, , later] = body.timers;
    expect(first).toMatchObject({
      action: "escalate",
      stream: "t-1",
      status: "pending",
      attempts: 1,
      error: "store down",
    });
    expect(first.lateness).toBeGreaterThanOrEqual(2 * HOUR);
    expect(later.lateness).toBeUndefined();
    expect(first.correlation).toBeUndefined();
    // No payload in a list.
    expect(text).not.toContain(NOTE);
    expect(text).not.toContain(SECRET);
  });

  it("filters by action and by stream, in any case, and pages with a cursor", async () => {
    const byAction = (await get(storeMode, "/api/timers?action=REMIND")).body;
    expect(byAction.timers.map((t: { id: string }) => t.id)).toEqual(["remind-p"]);
    expect(byAction.matched).toBe(1);
    const byStream = (await get(storeMode, "/api/timers?stream=t-&action=escalate&limit=3")).body;
    expect(byStream.timers.map((t: { id: string }) => t.id)).toEqual(["late-1", "late-2", "soon-3"]);
    expect(byStream.matched).toBe(4);
    const next = (
      await get(storeMode, `/api/timers?stream=t-&action=escalate&limit=3&after=${encodeURIComponent(byStream.next)}`)
    ).body;
    expect(next.timers.map((t: { id: string }) => t.id)).toEqual(["soon-4"]);
    expect(next.next).toBeUndefined();
  });

  it("refuses a filter or a limit out of range, and says when the store keeps no timers", async () => {
    expect((await get(storeMode, `/api/timers?action=${"a".repeat(201)}`)).body.error).toMatch(
      /"action" filter is too long/
    );
    expect((await get(storeMode, "/api/timers?limit=0")).status).toBe(400);
    const none = await get(bare, "/api/timers");
    expect(none.status).toBe(409);
    expect(none.body.error).toBe("This store keeps no timers.");
  });
});

describe("GET /api/timer", () => {
  it("shows one timer, in any status, with its payload in app mode", async () => {
    const { body } = await get(appMode, "/api/timer?id=soon-3");
    expect(body.timer).toMatchObject({
      id: "soon-3",
      action: "escalate",
      stream: "t-3",
      actor: bot,
      status: "pending",
    });
    expect(body.payload).toEqual({ level: 2, note: NOTE });
    expect((await get(appMode, "/api/timer?id=gone")).body.timer.status).toBe("cancelled");
  });

  it("hides the payload of an action whose state marks personal fields, and every payload in store mode", async () => {
    const personal = await get(appMode, "/api/timer?id=remind-p");
    expect(personal.body.timer.id).toBe("remind-p");
    expect(personal.body.payloadHidden).toMatch(/State "Patient" marks personal fields/);
    expect(personal.text).not.toContain(SECRET);
    const stored = await get(storeMode, "/api/timer?id=soon-3");
    expect(stored.body.payloadHidden).toMatch(/Store mode does not show timer payloads/);
    expect(stored.text).not.toContain(NOTE);
  });

  it("says when no timer has the id, or the id is missing", async () => {
    const unknown = await get(storeMode, "/api/timer?id=nope");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('No timer with id "nope".');
    expect((await get(storeMode, "/api/timer")).body.error).toBe('The "id" parameter is missing.');
  });
});
