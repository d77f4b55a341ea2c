import { describe, expect, it } from "vitest";
import { app, Ticket } from "../src/index.js";
import { ada, by, carla, newTicket, sam } from "./helpers.js";

describe("ticket workflow", () => {
  it("goes open → assigned → messages → escalated → resolved → closed", async () => {
    const t = newTicket();
    const [opened] = await app.do("OpenTicket", by(carla, t), { title: "VPN down", message: "No VPN since 9am" });
    expect(opened.state).toMatchObject({
      status: "open",
      title: "VPN down",
      priority: "normal",
      customer: "customer:carla",
      messages: 1,
      unanswered: 1,
    });
    expect(opened.event?.version).toBe(0);

    const [assigned] = await app.do("AssignTicket", by(sam, t), { agent: ada.id });
    expect(assigned.state.agent).toBe(ada.id);

    await app.do("AddMessage", by(carla, t), { body: "Still down" });
    const [waiting] = await app.do("AddMessage", by(carla, t), { body: "Anyone?" });
    expect(waiting.state.unanswered).toBe(3);
    const [replied] = await app.do("AddMessage", by(ada, t), { body: "Looking into it" });
    expect(replied.state).toMatchObject({ messages: 4, unanswered: 0 });

    const [escalated] = await app.do("EscalateTicket", by(ada, t), { reason: "Needs the network team" });
    expect(escalated.state).toMatchObject({ escalated: true, priority: "high" });

    const [resolved] = await app.do("ResolveTicket", by(ada, t), { resolution: "Router restarted" });
    expect(resolved.state).toMatchObject({ status: "resolved", resolution: "Router restarted" });

    const [closed] = await app.do("CloseTicket", by(carla, t), {});
    expect(closed.state.status).toBe("closed");
    expect(closed.event?.version).toBe(7);

    const events = await app.queryArray({ stream: t });
    expect(events.map((e) => e.name)).toEqual([
      "TicketOpened",
      "TicketAssigned",
      "MessageAdded",
      "MessageAdded",
      "MessageAdded",
      "TicketEscalated",
      "TicketResolved",
      "TicketClosed",
    ]);
    // Loading replays the same events into the same state.
    expect((await app.load(Ticket, t)).state).toEqual(closed.state);
  });

  it("keeps the priority the customer chose", async () => {
    const t = newTicket();
    const [opened] = await app.do("OpenTicket", by(carla, t), {
      title: "Site down",
      message: "500s",
      priority: "high",
    });
    expect(opened.state.priority).toBe("high");
  });

  it("assigning the same agent again emits nothing", async () => {
    const t = newTicket();
    await app.do("OpenTicket", by(carla, t), { title: "Mail", message: "Bounces" });
    await app.do("AssignTicket", by(sam, t), { agent: ada.id });
    const snapshots = await app.do("AssignTicket", by(sam, t), { agent: ada.id });
    expect(snapshots).toHaveLength(1);
    expect(snapshots[0].event?.name).toBe("TicketAssigned");
    expect((await app.query({ stream: t })).count).toBe(2);
  });

  it("a supervisor can reassign; the help desk never overrides a person's choice", async () => {
    const t = newTicket();
    await app.do("OpenTicket", by(carla, t), { title: "Mail", message: "Bounces" });
    await app.do("AssignTicket", by(sam, t), { agent: ada.id });
    const [reassigned] = await app.do("AssignTicket", by(sam, t), { agent: sam.id });
    expect(reassigned.state.agent).toBe(sam.id);
    const [kept] = await app.do(
      "AssignTicket",
      { stream: t, actor: { id: "system:wolfdesk", name: "WolfDesk" } },
      {
        agent: ada.id,
      }
    );
    expect(kept.state.agent).toBe(sam.id);
  });

  it("records who did what in each event's causation", async () => {
    const t = newTicket();
    await app.do("OpenTicket", by(carla, t), { title: "Login", message: "Locked out" });
    const [event] = await app.queryArray({ stream: t });
    expect(event.meta.causation.action).toMatchObject({ name: "OpenTicket", stream: t, actor: carla });
    expect(event.meta.causation.event).toBeUndefined();
  });
});
