import { beforeEach, describe, expect, it } from "vitest";
import { app, Escalations, ESCALATIONS, pickAgent, settle, Ticket } from "../src/index.js";
import { ada, by, carla, newTicket, sam } from "./helpers.js";

let t: string;
beforeEach(async () => {
  t = newTicket();
  await app.do("OpenTicket", by(carla, t), { title: "Laptop", message: "Won't boot" });
});

describe("auto-assignment", () => {
  it("assigns an opened ticket to an agent when the app drains", async () => {
    expect((await app.load(Ticket, t)).state.agent).toBeUndefined();
    await settle();
    const { state } = await app.load(Ticket, t);
    expect(state.agent).toBe(pickAgent(t).id);
    expect(state.agent).toMatch(/^agent:/);
  });

  it("leaves a ticket a supervisor assigned before the drain alone", async () => {
    await app.do("AssignTicket", by(sam, t), { agent: sam.id });
    await settle();
    expect((await app.load(Ticket, t)).state.agent).toBe(sam.id);
    expect((await app.query({ stream: t, names: ["TicketAssigned"] })).count).toBe(1);
  });

  it("drops an assignment that comes too late (the ticket already resolved) instead of retrying it", async () => {
    await app.do("AssignTicket", by(sam, t), { agent: ada.id });
    await app.do("ResolveTicket", by(ada, t), { resolution: "Rebooted" });
    await settle(); // throws if a stream gets blocked
    expect((await app.load(Ticket, t)).state).toMatchObject({ status: "resolved", agent: ada.id });
  });

  it("picks agents deterministically across the rota", () => {
    const agents = new Set(Array.from({ length: 30 }, (_, i) => pickAgent(`ticket-${i}`).id));
    expect(agents.size).toBeGreaterThan(1);
    expect(pickAgent("ticket-7")).toEqual(pickAgent("ticket-7"));
  });
});

describe("escalation", () => {
  // A ticket nobody answers escalates by a deadline, not a reaction: see deadlines.test.ts.
  it("queues a ticket escalated by hand for supervisors", async () => {
    await app.do("EscalateTicket", by(sam, t), { reason: "VIP customer" });
    await settle();
    const { state } = await app.load(Ticket, t);
    expect(state).toMatchObject({ escalated: true, priority: "high" });
    const { state: escalations } = await app.load(Escalations, ESCALATIONS);
    expect(escalations.queue).toContainEqual({ ticket: t, reason: "VIP customer" });
  });

  it("queues each ticket once even if the escalation reaction runs again", async () => {
    await app.do("EscalateTicket", by(sam, t), { reason: "VIP customer" });
    await settle();
    const [escalated] = await app.queryArray({ stream: t, names: ["TicketEscalated"] });
    // The filter does not narrow the type: the event's name does.
    if (escalated.name !== "TicketEscalated") throw new Error(`expected TicketEscalated, got ${escalated.name}`);
    // Replay the reaction by hand, as a redelivery after a crash would.
    await app.do(
      "QueueEscalation",
      { stream: ESCALATIONS, actor: { id: "system:wolfdesk", name: "WolfDesk" } },
      {
        ticket: t,
        reason: escalated.data.reason,
      }
    );
    const { state } = await app.load(Escalations, ESCALATIONS);
    expect(state.queue.filter((e) => e.ticket === t)).toHaveLength(1);
  });
});

describe("correlation", () => {
  it("events caused by reactions share the correlation of the action that started the chain", async () => {
    await settle(); // auto-assign
    const opened = (await app.queryArray({ stream: t, names: ["TicketOpened"] }))[0];
    const assigned = (await app.queryArray({ stream: t, names: ["TicketAssigned"] }))[0];
    expect(assigned.meta.correlation).toBe(opened.meta.correlation);
    expect(assigned.meta.causation.event).toEqual({ id: opened.id, name: "TicketOpened", stream: t });
    expect(assigned.meta.causation.action).toMatchObject({ name: "AssignTicket", actor: { id: "system:wolfdesk" } });

    await app.do("AddMessage", by(carla, t), { body: "ping" });
    await app.do("EscalateTicket", by(sam, t), { reason: "VIP customer" });
    await settle();
    const [trigger] = await app.queryArray({ stream: t, names: ["TicketEscalated"] });
    // One chain across two streams: the escalation and the queue entry.
    const chain = await app.queryArray({ correlation: trigger.meta.correlation });
    expect(chain.map((e) => [e.stream, e.name])).toEqual([
      [t, "TicketEscalated"],
      [ESCALATIONS, "EscalationQueued"],
    ]);
    expect(chain[1].meta.causation.event).toMatchObject({ id: trigger.id, name: "TicketEscalated", stream: t });
    // Every other action started its own chain.
    const [message] = await app.queryArray({ stream: t, names: ["MessageAdded"] });
    expect(new Set([opened, message, trigger].map((e) => e.meta.correlation)).size).toBe(3);
  });

  it("the drain reports what it did", async () => {
    const acked: string[] = [];
    const listener = (leases: { stream: string }[]) => acked.push(...leases.map((l) => l.stream));
    app.on("acked", listener);
    await settle();
    app.off("acked", listener);
    expect(acked).toContain(t);
    const { acked: none } = await app.drain();
    expect(none).toEqual([]);
  });
});
