/**
 * The inspector never shows personal fields in clear: events and snapshots
 * come from the store, where they are sealed, and in app mode the state of
 * a stream whose state marks personal fields is not shown.
 */
import { act, InMemoryStore, state } from "@act-root/act";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { RunningServer } from "../src/server/http.js";
import { inspect } from "../src/index.js";
import { bearer, signIn } from "./session.js";

const Patient = state("Patient", z.object({ name: z.string(), visits: z.number() }))
  .init(() => ({ name: "", visits: 0 }))
  .emits({ Admitted: z.object({ name: z.string() }), Visited: z.object({}) })
  .patch({ Admitted: ({ data }) => ({ name: data.name }), Visited: (_, s) => ({ visits: s.visits + 1 }) })
  .personal({ Admitted: { fields: ["name"] } })
  .on("admit", z.object({ name: z.string() }))
  .emit((p) => ["Admitted", p])
  .on("visit", z.object({}))
  .emit(() => ["Visited", {}])
  .snap((s) => s.patches >= 2)
  .build();

const SECRET = "Quentin Zarathustra";
let server: RunningServer;
let session: string;

beforeAll(async () => {
  const app = act().with(Patient).build({ store: new InMemoryStore() });
  const target = { stream: "patient-1", actor: { id: "nurse", name: "Nurse" } };
  await app.do("admit", target, { name: SECRET });
  await app.do("visit", target, {}); // a snapshot, its state sealed
  server = await inspect(app, { print: false });
  session = await signIn(server.link());
});

afterAll(async () => {
  await server?.close();
});

const get = async (path: string) => {
  const res = await fetch(`http://127.0.0.1:${server.port}${path}`, { headers: bearer(session) });
  return { status: res.status, text: await res.text() };
};

describe("the inspector and personal fields", () => {
  it("shows a stream's events and snapshots sealed", async () => {
    const { status, text } = await get("/api/events?stream=patient-1");
    expect(status).toBe(200);
    expect(text).toContain("__snapshot__");
    expect(text).toContain("act-pd:2:1:");
    expect(text).not.toContain(SECRET);
  });

  it("refuses the state view of a state with personal fields, saying why", async () => {
    const { status, text } = await get("/api/state?stream=patient-1&version=1");
    expect(status).toBe(403);
    expect(text).toContain('State \\"Patient\\" marks personal fields');
    expect(text).not.toContain(SECRET);
  });
});
