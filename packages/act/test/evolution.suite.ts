/**
 * Changing a model over time, run against every store: streams written by
 * the first definition of a state (checked in as data) load through later
 * definitions — a field added with a default, a field renamed by an
 * upcaster, a date declared by the schema — snapshots of an older definition
 * are ignored, and data no definition understands fails the load naming the
 * stream, the event and the path.
 */
import { readFileSync } from "node:fs";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { act, SNAP_EVENT, type Store, state, store, upcaster, ValidationError } from "../src/index.js";

const fixture = JSON.parse(readFileSync(new URL("./fixtures/tickets-v1.json", import.meta.url), "utf8")) as {
  streams: Record<string, Array<{ name: string; data: Record<string, unknown> }>>;
};
const actor = { id: "u", name: "U" };
const meta = { correlation: "v1", causation: {} };

/** v1: what wrote the fixture. */
const TicketV1 = state("Ticket", z.object({ title: z.string(), open: z.boolean(), comments: z.number() }))
  .init(() => ({ title: "", open: false, comments: 0 }))
  .emits({
    Opened: z.object({ title: z.string() }),
    Commented: z.object({ text: z.string(), at: z.string() }),
    Closed: z.object({}),
  })
  .patch({
    Opened: (e) => ({ title: e.data.title, open: true }),
    Commented: (_, s) => ({ comments: s.comments + 1 }),
    Closed: () => ({ open: false }),
  })
  .on("comment", z.object({ text: z.string() }))
  .emit(({ text }) => ["Commented", { text, at: new Date().toJSON() }])
  .snap(() => true)
  .build();

/** v2: adds a priority (a default fills old events) and reads comment times as dates. */
const OpenedV2 = z.object({ title: z.string(), priority: z.enum(["low", "normal", "high"]).default("normal") });
const TicketV2 = state(
  "Ticket",
  z.object({ title: z.string(), open: z.boolean(), priority: z.string(), lastComment: z.date().optional() })
)
  .init(() => ({ title: "", open: false, priority: "normal" }))
  .emits({
    Opened: OpenedV2,
    Commented: z.object({ text: z.string(), at: z.coerce.date() }),
    Closed: z.object({}),
  })
  .patch({
    Opened: (e) => ({ title: e.data.title.trim(), open: true, priority: e.data.priority }),
    Commented: (e) => ({ lastComment: e.data.at }),
    Closed: () => ({ open: false }),
  })
  .snap(() => true)
  .build();

/** v3: renames `title` to `subject`; an upcaster turns both older shapes into the new one. */
const TicketV3 = state("Ticket", z.object({ subject: z.string(), open: z.boolean(), priority: z.string() }))
  .init(() => ({ subject: "", open: false, priority: "normal" }))
  .emits({
    Opened: z.object({ subject: z.string(), priority: z.enum(["low", "normal", "high"]) }),
    Commented: z.object({ text: z.string(), at: z.coerce.date() }),
    Closed: z.object({}),
  })
  .patch({
    Opened: (e) => ({ subject: e.data.subject, open: true, priority: e.data.priority }),
    Commented: () => ({}),
    Closed: () => ({ open: false }),
  })
  .upcast({ Opened: [upcaster(OpenedV2, (v2) => ({ subject: v2.title, priority: v2.priority }))] })
  .build();

export function evolutionSuite(name: string, make: () => Promise<Store>) {
  describe(`changing the model: ${name}`, () => {
    beforeEach(async () => {
      const s = await make();
      for (const [stream, events] of Object.entries(fixture.streams))
        await s.commit({ stream, messages: events, meta });
    });

    it("loads streams written by v1 through v2: defaults for added fields, dates where the schema declares them", async () => {
      const app = act().with(TicketV2).build();
      const one = await app.load(TicketV2, "ticket-1");
      expect(one.state).toEqual({
        title: "Printer on fire",
        open: false,
        priority: "normal",
        lastComment: new Date("2025-03-01T10:00:00.000Z"),
      });
      const two = await app.load(TicketV2, "ticket-2");
      expect(two.state.title).toBe("2025-01-02T03:04:05.678Z"); // a string that looks like a date stays a string
      const [opened] = await app.queryArray({ stream: "ticket-1", names: ["Opened"] });
      expect(opened.data).toEqual({ title: "Printer on fire", priority: "normal" });
    });

    it("loads them through v3 with the upcaster, and v3's own events as they are", async () => {
      const app = act().with(TicketV3).build();
      expect((await app.load(TicketV3, "ticket-1")).state).toEqual({
        subject: "Printer on fire",
        open: false,
        priority: "normal",
      });
      await store().commit({
        stream: "ticket-3",
        messages: [{ name: "Opened", data: { subject: "New style", priority: "high" } }],
        meta,
      });
      expect((await app.load(TicketV3, "ticket-3")).state).toEqual({
        subject: "New style",
        open: true,
        priority: "high",
      });
    });

    it("ignores snapshots written by an older definition and rebuilds from events", async () => {
      const v1 = act().with(TicketV1).build();
      await v1.do("comment", { stream: "ticket-2", actor }, { text: "v1 writes a snapshot" });
      const log = await v1.queryArray({ stream: "ticket-2", with_snaps: true });
      expect(log.at(-1)?.name).toBe(SNAP_EVENT);
      const v2 = act().with(TicketV2).build();
      const read: string[] = [];
      const { state: loaded } = await v2.load(TicketV2, "ticket-2", {
        onSnapshot: (s) => read.push(String(s.event?.name)),
      });
      expect(read).toEqual(["Opened", "Commented", "Commented", SNAP_EVENT]); // from the start: the v1 snapshot only moves the version
      expect(loaded).toMatchObject({ title: "2025-01-02T03:04:05.678Z", open: true, priority: "normal" });
    });

    it("stores an event as its schema's output and never runs its transforms again on read", async () => {
      const Invoice = state("Invoice", z.object({ cents: z.number(), due: z.date().optional() }))
        .init(() => ({ cents: 0 }))
        .emits({
          Billed: z.object({
            cents: z.number().transform((dollars) => Math.round(dollars * 100)),
            due: z
              .string()
              .transform((text) => new Date(text))
              .pipe(z.date()),
          }),
        })
        .patch({ Billed: (e, s) => ({ cents: s.cents + e.data.cents, due: e.data.due }) })
        .on("bill", z.object({ dollars: z.number(), due: z.string() }))
        // Emitted as the schema's input; the handler's type is the output's.
        .emit(({ dollars, due }) => ["Billed", { cents: dollars, due: due as never }])
        .build();
      const app = act().with(Invoice).build();
      const due = "2026-05-01T00:00:00.000Z";
      const [billed] = await app.do("bill", { stream: "invoice-1", actor }, { dollars: 1.5, due });
      expect(billed.state).toEqual({ cents: 150, due: new Date(due) });
      await app.do("bill", { stream: "invoice-1", actor }, { dollars: 2, due });
      expect((await app.load(Invoice, "invoice-1")).state).toEqual({ cents: 350, due: new Date(due) });
      const events = await app.queryArray({ stream: "invoice-1" });
      expect(events.map((e) => e.data)).toEqual([
        { cents: 150, due: new Date(due) },
        { cents: 200, due: new Date(due) },
      ]);
    });

    it("fails the load of data no definition understands, naming the stream, the event and the path", async () => {
      await store().commit({ stream: "ticket-bad", messages: [{ name: "Opened", data: { title: 42 } }], meta });
      const app = act().with(TicketV3).build();
      const error = await app.load(TicketV3, "ticket-bad").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as Error).message).toMatch(/Invalid event "Opened" #\d+ on stream "ticket-bad": subject: /);
    });
  });
}
