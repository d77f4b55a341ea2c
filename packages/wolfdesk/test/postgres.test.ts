/**
 * WolfDesk on Postgres: the same app, with `connect()` picking PostgresStore.
 * Uses DATABASE_URL / PG* when set; otherwise starts a disposable server with
 * act-pg's test tool. Skipped only on a machine without PostgreSQL server
 * binaries; a server that fails to start fails the tests.
 */
import { disposeAndExit, store } from "@act-root/act";
import { PostgresStore } from "@act-root/act-pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  app,
  connect,
  deskClock,
  ESCALATIONS,
  listTickets,
  run,
  SLA_MILLIS,
  settle,
  Ticket,
  TicketList,
} from "../src/index.js";
import { by, carla, newTicket } from "./helpers.js";
import { postgresForTests, type Server } from "./postgres-env.js";

let server: Server | undefined;
let env: Record<string, string | undefined> | undefined;
let skipped = "";

beforeAll(async () => {
  const schema = `wolfdesk_test_${process.pid}_${Date.now()}`;
  const picked = await postgresForTests(process.env, schema, () => import("../../act-pg/tools/pg-server.js"));
  if ("skipped" in picked) {
    skipped = picked.skipped;
    return;
  }
  ({ env, server } = picked);
  expect(await connect(env)).toBe("postgres");
}, 120_000);

afterAll(async () => {
  if (env) {
    await store().drop();
    await disposeAndExit("EXIT"); // NODE_ENV=test: closes the pool, does not exit
  }
  await server?.stop();
}, 60_000);

describe("WolfDesk on Postgres", () => {
  it("plugs a PostgresStore into the store port", (ctx) => {
    if (skipped) ctx.skip();
    expect(store()).toBeInstanceOf(PostgresStore);
  });

  it("runs the whole story", async (ctx) => {
    if (skipped) ctx.skip();
    const lines: string[] = [];
    app.start();
    const state = await run((line) => lines.push(line), "ticket-pg-story").finally(() => app.stop());
    expect(state).toMatchObject({ status: "closed", escalated: true });
  });

  it("drains reactions, fires the escalation deadline and keeps correlation across streams", async (ctx) => {
    if (skipped) ctx.skip();
    const t = newTicket();
    const [opened] = await app.do("OpenTicket", by(carla, t), { title: "Database", message: "Slow" });
    await app.do("AddMessage", by(carla, t), { body: "Very slow" });
    await settle();
    expect((await app.load(Ticket, t)).state).toMatchObject({
      agent: expect.stringMatching(/^agent:/),
      escalated: false,
    });
    deskClock.skip(SLA_MILLIS.normal);
    await settle();
    expect((await app.load(Ticket, t)).state.escalated).toBe(true);
    const chain = await app.queryArray({ correlation: opened.event!.meta.correlation });
    expect(chain.map((e) => [e.stream, e.name])).toEqual([
      [t, "TicketOpened"],
      [t, "TicketAssigned"],
      [t, "TicketEscalated"],
      [ESCALATIONS, "EscalationQueued"],
    ]);
  });

  it("keeps the ticket list in a table of the store's schema, readable right after a write", async (ctx) => {
    if (skipped) ctx.skip();
    app.start();
    try {
      const t = newTicket();
      const snapshots = await app.do("OpenTicket", by(carla, t), { title: "Projector", message: "No signal" });
      await app.projected(TicketList, snapshots);
      const rows = await listTickets(env);
      expect(rows.find((r) => r.id === t)).toMatchObject({ title: "Projector", status: "open", customer: carla.id });
      expect(rows.find((r) => r.id === "ticket-pg-story")).toMatchObject({ status: "closed", priority: "high" });
    } finally {
      await app.stop();
    }
  });

  it("persists: a second store on the same tables reads the same events", async (ctx) => {
    if (skipped) ctx.skip();
    const other = new PostgresStore({ connectionString: env!.DATABASE_URL, schema: env!.WOLFDESK_SCHEMA });
    try {
      const names: string[] = [];
      await other.query((e) => names.push(String(e.name)), { stream: "ticket-pg-story" });
      expect(names[0]).toBe("TicketOpened");
      expect(names[names.length - 1]).toBe("TicketClosed");
    } finally {
      await other.dispose();
    }
  });
});
