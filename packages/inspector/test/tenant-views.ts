/**
 * Two tenants of the shop, and what inspecting one of them must show: its
 * own streams, events, reactions, timers and searches, and nothing of the
 * other — a stream name of the other tenant, guessed, answers not-found.
 */
import type { Actor, Committed, Schemas } from "@act-root/act";
import { expect } from "vitest";
import type { RunningServer } from "../src/server/http.js";
import { scenario, type Shop, settle } from "./fixture.js";
import { bearer, signIn } from "./session.js";

const customer: Actor = { id: "ann", name: "Ann" };
const HOUR = 3_600_000;

/** Acme runs the usual scenario; globex a blocked order of its own. Each schedules a timer. */
export async function twoTenants(acme: Shop, globex: Shop): Promise<{ globex: Committed<Schemas, string>[] }> {
  await scenario(acme);
  await globex.do("AddItem", { stream: "globex-order-9", actor: customer }, { item: "poison", price: 9 });
  await globex.do("PlaceOrder", { stream: "globex-order-9", actor: customer }, { item: "poison" });
  await settle(globex);
  for (const [app, id] of [
    [acme, "acme-remind"],
    [globex, "globex-remind"],
  ] as const)
    await app.schedule({
      id,
      action: "AddItem",
      target: { stream: `${id}-stream`, actor: customer },
      payload: { item: "gift", price: 0 },
      at: new Date(Date.now() + HOUR),
    });
  return { globex: await globex.queryArray({ stream: "globex-order-9" }) };
}

/** Calls the server's API as a signed-in page. */
export async function caller(server: RunningServer) {
  const session = await signIn(server.link());
  return async (path: string) => {
    const res = await fetch(`http://127.0.0.1:${server.port}${path}`, { headers: bearer(session) });
    return { status: res.status, body: (await res.json()) as any };
  };
}

/** Inspecting acme shows acme's data, and never globex's. */
export async function showsAcmeOnly(server: RunningServer, globex: Committed<Schemas, string>[]) {
  const get = await caller(server);
  const info = await get("/api/info");
  expect(info.body).toMatchObject({ tenant: "acme" });
  expect(info.body.store).toMatch(/^tenant acme · /);

  const streams = (await get("/api/streams")).body.streams.map((s: { stream: string }) => s.stream);
  expect(streams).toEqual(["order-1", "order-2", "order-poisoned", "payment-order-1", "stock-tea"]);
  expect((await get("/api/stream?name=order-1")).status).toBe(200);
  expect((await get("/api/stream?name=globex-order-9")).status).toBe(404);
  expect((await get("/api/streams?prefix=globex")).body.streams).toEqual([]);
  expect((await get("/api/events?stream=globex-order-9")).body.events ?? []).toEqual([]);

  const reactions = (await get("/api/reactions")).body.streams.map((s: { stream: string }) => s.stream);
  expect(reactions).toContain("order-poisoned");
  expect(reactions).not.toContain("globex-order-9");

  const timers = (await get("/api/timers")).body.timers.map((t: { id: string }) => t.id);
  expect(timers).toEqual(["acme-remind"]);
  expect((await get("/api/timer?id=acme-remind")).status).toBe(200);
  expect((await get("/api/timer?id=globex-remind")).status).toBe(404);

  const correlation = encodeURIComponent(globex[0].meta.correlation);
  expect((await get(`/api/correlation?id=${correlation}`)).body.events).toEqual([]);
  return get;
}
