/**
 * The ticket list projection in memory: unit-tested with the testing kit's
 * projectEvents, and through the app (the in-memory store, where the list
 * is a map).
 */
import { projectEvents } from "@act-root/act/testing";
import { beforeEach, describe, expect, it } from "vitest";
import { app, listTickets, memoryList, settle, TicketList } from "../src/index.js";
import { ada, by, carla, newTicket, sam } from "./helpers.js";

beforeEach(() => memoryList.clear());

describe("ticket list", () => {
  it("given a ticket's events, keeps one row with its latest status, priority and agent", async () => {
    await projectEvents(TicketList, [
      {
        name: "TicketOpened",
        data: { title: "VPN down", message: "Since 9am", priority: "normal", customer: carla.id },
        stream: "t-1",
      },
      { name: "TicketAssigned", data: { agent: ada.id, by: "system" }, stream: "t-1" },
      { name: "TicketEscalated", data: { reason: "waiting", by: "system" }, stream: "t-1" },
      { name: "TicketResolved", data: { resolution: "restarted", by: ada.id }, stream: "t-1" },
    ]);
    expect([...memoryList.values()]).toEqual([
      { id: "t-1", title: "VPN down", status: "resolved", priority: "high", agent: ada.id, customer: carla.id },
    ]);
  });

  it("is projected by the app's drains, alongside the reactions", async () => {
    const t = newTicket();
    await app.do("OpenTicket", by(carla, t), { title: "Printer", message: "Jammed" });
    await app.do("AssignTicket", by(sam, t), { agent: ada.id });
    await settle();
    // Rows of the tickets other tests in this file opened were projected too; this one is ours.
    expect((await listTickets()).find((row) => row.id === t)).toEqual({
      id: t,
      title: "Printer",
      status: "open",
      priority: "normal",
      agent: ada.id,
      customer: carla.id,
    });
  });
});
