import { describe, expect, it } from "vitest";
import { z } from "zod";
import { projection, state } from "../../src/index.js";
import { projectEvents } from "../../src/testing/index.js";

const Ticket = state("Ticket", z.object({ open: z.boolean() }))
  .init(() => ({ open: false }))
  .emits({ TicketOpened: z.object({ title: z.string() }), TicketClosed: z.object({}) })
  .patch({ TicketOpened: () => ({ open: true }), TicketClosed: () => ({ open: false }) })
  .on("open", z.object({ title: z.string() }))
  .emit(({ title }) => ["TicketOpened", { title }])
  .build();

/** A read model handed to the handlers as their transaction handle. */
type Rows = Map<string, string>;

const OpenTickets = projection<Rows>("OpenTickets")
  .with(Ticket)
  .on("TicketOpened", (event, rows) => void rows.set(event.stream, event.data.title))
  .on("TicketClosed", async (event, rows) => void rows.delete(event.stream))
  .build();

describe("projectEvents", () => {
  it("given events, projects them in order into the read model passed as the handle", async () => {
    const rows: Rows = new Map();
    const seen = await projectEvents(
      OpenTickets,
      [
        { name: "TicketOpened", data: { title: "Printer" }, stream: "t-1" },
        { name: "TicketOpened", data: { title: "Mail" }, stream: "t-2" },
        { name: "TicketClosed", data: {}, stream: "t-1" },
      ],
      rows
    );
    expect([...rows]).toEqual([["t-2", "Mail"]]);
    expect(seen.map((e) => [e.id, e.stream, e.version])).toEqual([
      [1, "t-1", 0],
      [2, "t-2", 0],
      [3, "t-1", 1],
    ]);
  });

  it("hands a batched projection every event at once", async () => {
    const batches: string[][] = [];
    const Titles = projection("Titles")
      .with(Ticket)
      .batch(["TicketOpened"], (events) => void batches.push(events.map((e) => e.data.title)))
      .build();
    await projectEvents(Titles, [
      { name: "TicketOpened", data: { title: "a" } },
      { name: "TicketOpened", data: { title: "b" } },
    ]);
    expect(batches).toEqual([["a", "b"]]);
  });

  it("names the event the projection does not handle, and the one a handler failed on", async () => {
    await expect(projectEvents(OpenTickets, [{ name: "Other", data: {} } as never], new Map())).rejects.toThrow(
      /does not handle "Other" \(given event 0\); it handles TicketOpened, TicketClosed/
    );
    const Broken = projection("Broken")
      .with(Ticket)
      .on("TicketOpened", () => {
        throw new Error("no table");
      })
      .build();
    await expect(projectEvents(Broken, [{ name: "TicketOpened", data: { title: "x" } }])).rejects.toThrow(
      'Projection "Broken" failed on event "TicketOpened" #1: no table'
    );
  });
});
