import { InvariantError, ValidationError } from "@act-root/act";
import { beforeEach, describe, expect, it } from "vitest";
import { app, SYSTEM } from "../src/index.js";
import { ada, by, carla, dave, linus, newTicket, sam } from "./helpers.js";

/** Expects the action to fail the invariant `description`, with nothing committed. */
async function refused(run: () => Promise<unknown>, description: string, stream: string) {
  const before = (await app.query({ stream })).count;
  const error = await run().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(InvariantError);
  expect((error as InvariantError).description).toBe(description);
  expect((await app.query({ stream })).count).toBe(before);
}

let t: string;
beforeEach(async () => {
  t = newTicket();
  await app.do("OpenTicket", by(carla, t), { title: "Printer", message: "Jammed" });
  await app.do("AssignTicket", by(sam, t), { agent: ada.id });
});

describe("opening", () => {
  it("only customers open tickets", async () => {
    const fresh = newTicket();
    for (const actor of [ada, sam, SYSTEM])
      await refused(
        () => app.do("OpenTicket", by(actor, fresh), { title: "Hello", message: "Hi" }),
        "Only customers open tickets",
        fresh
      );
  });

  it("a ticket opens once", async () => {
    await refused(
      () => app.do("OpenTicket", by(carla, t), { title: "Again", message: "Hi" }),
      "Ticket already exists",
      t
    );
  });

  it("validates the payload before any rule", async () => {
    const error = await app.do("OpenTicket", by(carla, newTicket()), { title: "Hi", message: "" }).catch((e) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).details.map((d) => d.path)).toEqual(["title", "message"]);
  });
});

describe("assigning", () => {
  it("customers and agents cannot assign", async () => {
    for (const actor of [carla, ada])
      await refused(
        () => app.do("AssignTicket", by(actor, t), { agent: linus.id }),
        "Only supervisors (or the help desk itself) assign tickets",
        t
      );
  });

  it("assigns staff only", async () => {
    await expect(app.do("AssignTicket", by(sam, t), { agent: carla.id })).rejects.toThrow(ValidationError);
  });

  it("a ticket that is not open cannot be assigned", async () => {
    await refused(() => app.do("AssignTicket", by(sam, newTicket()), { agent: ada.id }), "Ticket must be open", "none");
  });
});

describe("messages", () => {
  it("only the ticket's customer, its agent or a supervisor can write", async () => {
    for (const actor of [dave, linus])
      await refused(
        () => app.do("AddMessage", by(actor, t), { body: "Me too" }),
        "Only the ticket's customer, its agent or a supervisor can write",
        t
      );
    await app.do("AddMessage", by(sam, t), { body: "Supervisor here" });
  });

  it("only open tickets accept messages", async () => {
    await app.do("ResolveTicket", by(ada, t), { resolution: "Unjammed" });
    await refused(() => app.do("AddMessage", by(carla, t), { body: "Thanks" }), "Only open tickets accept messages", t);
  });
});

describe("escalating", () => {
  it("only the assigned agent, a supervisor or the desk escalates", async () => {
    for (const actor of [carla, linus])
      await refused(
        () => app.do("EscalateTicket", by(actor, t), { reason: "Because" }),
        "Only the assigned agent or a supervisor escalates",
        t
      );
    await app.do("EscalateTicket", by(ada, t), { reason: "Hardware" });
  });

  it("escalating twice emits nothing the second time", async () => {
    await app.do("EscalateTicket", by(sam, t), { reason: "Hardware" });
    const [again] = await app.do("EscalateTicket", by(SYSTEM, t), { reason: "Again" });
    expect(again.event?.name).toBe("TicketEscalated");
    expect((await app.query({ stream: t, names: ["TicketEscalated"] })).count).toBe(1);
  });
});

describe("resolving and closing", () => {
  it("only the assigned agent resolves", async () => {
    for (const actor of [carla, linus, sam])
      await refused(
        () => app.do("ResolveTicket", by(actor, t), { resolution: "Done" }),
        "Only the assigned agent resolves (or a supervisor, once escalated)",
        t
      );
  });

  it("a supervisor resolves once the ticket is escalated", async () => {
    await app.do("EscalateTicket", by(ada, t), { reason: "Hardware" });
    const [resolved] = await app.do("ResolveTicket", by(sam, t), { resolution: "New printer" });
    expect(resolved.state.status).toBe("resolved");
  });

  it("only resolved tickets close, and only by their customer or a supervisor", async () => {
    await refused(() => app.do("CloseTicket", by(carla, t), {}), "Only resolved tickets can be closed", t);
    await app.do("ResolveTicket", by(ada, t), { resolution: "Unjammed" });
    for (const actor of [ada, dave])
      await refused(
        () => app.do("CloseTicket", by(actor, t), {}),
        "Only the ticket's customer or a supervisor closes",
        t
      );
    await app.do("CloseTicket", by(sam, t), {});
    await refused(() => app.do("ResolveTicket", by(ada, t), { resolution: "Again" }), "Ticket must be open", t);
  });

  it("the error carries the action, the target and the state it was checked against", async () => {
    const error = (await app
      .do("ResolveTicket", by(carla, t), { resolution: "Done" })
      .catch((e) => e)) as InvariantError;
    expect(error.action).toBe("ResolveTicket");
    expect(error.target.actor).toEqual(carla);
    expect(error.snapshot.state).toMatchObject({ status: "open", agent: ada.id });
    expect(error.message).toContain(t);
  });
});
