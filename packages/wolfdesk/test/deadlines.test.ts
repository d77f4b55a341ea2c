/**
 * The escalation deadline: opening a ticket sets it in the same commit, staff's
 * first answer (or a resolution) cancels it, and a ticket nobody answered
 * within its priority's SLA is escalated — once — by the desk, onto the
 * supervisors' queue. Time is a `testClock()` the tests move forward.
 */
import { testClock } from "@act-root/act/testing";
import { beforeEach, describe, expect, it } from "vitest";
import {
  buildApp,
  deadlineOf,
  Escalations,
  ESCALATIONS,
  type Priority,
  SLA_MILLIS,
  settle,
  Ticket,
} from "../src/index.js";
import { ada, by, carla, newTicket, sam } from "./helpers.js";

const HOUR = 3_600_000;
const clock = testClock();
const desk = buildApp(clock);
const deadline = async (t: string) => (await desk.store.timers!.list({ ids: [deadlineOf(t)] }))[0];
const escalations = async (t: string) => (await desk.queryArray({ stream: t, names: ["TicketEscalated"] })).length;

let t: string;
const open = async (priority: Priority = "normal") => {
  t = newTicket();
  const [opened] = await desk.do("OpenTicket", by(carla, t), { title: "Laptop", message: "Won't boot", priority });
  await settle(50, desk); // auto-assign
  return opened;
};

describe("the escalation deadline", () => {
  beforeEach(() => open());

  it("is set when the ticket opens, due after the priority's SLA, run as the desk", async () => {
    expect(await deadline(t)).toMatchObject({
      action: "EscalateTicket",
      stream: t,
      actor: { id: "system:wolfdesk" },
      payload: { reason: "no answer within 4 h" },
      status: "pending",
      due: new Date(clock.now().getTime() + SLA_MILLIS.normal),
    });
  });

  it("escalates a ticket nobody answered once its SLA has passed, and queues it for supervisors", async () => {
    clock.advance(SLA_MILLIS.normal - 1);
    await settle(50, desk);
    expect((await desk.load(Ticket, t)).state.escalated).toBe(false);
    clock.advance(1);
    await settle(50, desk);
    expect((await desk.load(Ticket, t)).state).toMatchObject({ escalated: true, priority: "high" });
    const { state } = await desk.load(Escalations, ESCALATIONS);
    expect(state.queue).toContainEqual({ ticket: t, reason: "no answer within 4 h" });
    expect(await deadline(t)).toMatchObject({ status: "fired" });
  });

  it("does not stop for the customer's own messages", async () => {
    await desk.do("AddMessage", by(carla, t), { body: "Hello?" });
    clock.advance(SLA_MILLIS.normal);
    await settle(50, desk);
    expect(await escalations(t)).toBe(1);
  });

  it("is cancelled by staff's first answer, and never escalates the ticket", async () => {
    const agent = (await desk.load(Ticket, t)).state.agent!;
    await desk.do("AddMessage", by({ id: agent, name: "Agent" }, t), { body: "On it" });
    expect(await deadline(t)).toMatchObject({ status: "cancelled" });
    clock.advance(24 * HOUR);
    await settle(50, desk);
    expect(await escalations(t)).toBe(0);
  });

  it("is cancelled by a resolution, and by an escalation by hand (which it does not repeat)", async () => {
    await desk.do("AssignTicket", by(sam, t), { agent: ada.id });
    await desk.do("ResolveTicket", by(ada, t), { resolution: "Rebooted" });
    expect(await deadline(t)).toMatchObject({ status: "cancelled" });
    await open();
    await desk.do("EscalateTicket", by(sam, t), { reason: "VIP customer" });
    expect(await deadline(t)).toMatchObject({ status: "cancelled" });
    clock.advance(24 * HOUR);
    await settle(50, desk);
    expect(await escalations(t)).toBe(1);
  });

  it("fires once: later drains, however late, escalate nothing more", async () => {
    clock.advance(SLA_MILLIS.normal);
    await settle(50, desk);
    clock.advance(48 * HOUR);
    await settle(50, desk);
    await settle(50, desk);
    expect(await escalations(t)).toBe(1);
    expect((await desk.load(Escalations, ESCALATIONS)).state.queue.filter((e) => e.ticket === t)).toHaveLength(1);
  });
});

describe("the SLA by priority", () => {
  it("escalates a high-priority ticket after 1 h and a low-priority one only after 24 h", async () => {
    await open("high");
    const high = t;
    await open("low");
    const low = t;
    clock.advance(SLA_MILLIS.high);
    await settle(50, desk);
    expect((await desk.load(Ticket, high)).state.escalated).toBe(true);
    expect((await desk.load(Ticket, low)).state.escalated).toBe(false);
    clock.advance(SLA_MILLIS.low - SLA_MILLIS.high);
    await settle(50, desk);
    expect((await desk.load(Ticket, low)).state.escalated).toBe(true);
  });
});

describe("correlation", () => {
  it("the escalation and its queue entry share the correlation of the request that opened the ticket", async () => {
    const opened = await open();
    clock.advance(SLA_MILLIS.normal);
    await settle(50, desk);
    const chain = await desk.queryArray({ correlation: opened.event!.meta.correlation });
    expect(chain.map((e) => [e.stream, e.name])).toEqual([
      [t, "TicketOpened"],
      [t, "TicketAssigned"],
      [t, "TicketEscalated"],
      [ESCALATIONS, "EscalationQueued"],
    ]);
    // The timer ran the action: it names the action and the desk, and no event as its cause.
    expect(chain[2].meta.causation.action).toMatchObject({ name: "EscalateTicket", actor: { id: "system:wolfdesk" } });
    expect(chain[2].meta.causation.event).toBeUndefined();
  });
});
