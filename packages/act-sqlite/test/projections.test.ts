/**
 * Projections on a SQLite file: the read model in the store's own file,
 * written through the connection `project` hands over, in the transaction
 * that moves the projection's position.
 */
import { act, disposeAndExit, projection, state, store } from "@act-root/act";
import { settle } from "@act-root/act/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { open } from "../src/driver.js";
import { type Connection, SqliteStore } from "../src/index.js";
import { tempFile } from "./support.js";

const Ticket = state("Ticket", z.object({ open: z.boolean() }))
  .init(() => ({ open: false }))
  .emits({ TicketOpened: z.object({ title: z.string() }), TicketClosed: z.object({}) })
  .patch({ TicketOpened: () => ({ open: true }), TicketClosed: () => ({ open: false }) })
  .on("open", z.object({ title: z.string() }))
  .emit(({ title }) => ["TicketOpened", { title }])
  .on("close", z.object({}))
  .emit(() => ["TicketClosed", {}])
  .build();

const actor = { id: "u", name: "U" };
const file = tempFile();
let reader: Connection;

beforeAll(async () => {
  store(new SqliteStore({ filename: file }));
  await store().seed();
  reader = open(file);
  reader.exec("CREATE TABLE open_tickets (id TEXT PRIMARY KEY, title TEXT NOT NULL)");
});
afterAll(async () => {
  reader.close();
  await disposeAndExit();
});

const rows = () => reader.prepare("SELECT id, title FROM open_tickets ORDER BY id").rows();
const position = async (stream: string) => (await store().reactions()).find((r) => r.stream === stream);

it("projects into a table of the store's file, the rows committed with the position", async () => {
  const OpenTickets = projection<Connection>("OpenTickets")
    .with(Ticket)
    .on("TicketOpened", (event, db) => {
      db.prepare("INSERT INTO open_tickets (id, title) VALUES (?, ?)").run(event.stream, event.data.title);
    })
    .on("TicketClosed", (event, db) => {
      db.prepare("DELETE FROM open_tickets WHERE id = ?").run(event.stream);
    })
    .build();
  const app = act().with(Ticket).with(OpenTickets).build();
  await app.do("open", { stream: "t-1", actor }, { title: "Printer" });
  await app.do("open", { stream: "t-2", actor }, { title: "Mail" });
  const [closed] = await app.do("close", { stream: "t-1", actor }, {});
  await settle(app);
  expect(rows()).toEqual([["t-2", "Mail"]]);
  expect((await position(OpenTickets.stream))?.at).toBe(closed.event!.id);
});

it("rolls a failing batch back — rows and position — and blocks only that projection, saying why", async () => {
  const Half = projection<Connection>("Half", { maxRetries: 0 })
    .with(Ticket)
    .on("TicketOpened", (event, db) => {
      db.prepare("INSERT INTO open_tickets (id, title) VALUES (?, ?)").run(`half-${event.stream}`, event.data.title);
      if (event.data.title === "bad") throw new Error("refusing a bad title");
    })
    .build();
  const Async = projection<Connection>("Async", { maxRetries: 0 })
    .with(Ticket)
    .on("TicketOpened", async () => {})
    .build();
  const app = act().with(Ticket).with(Half).with(Async).build();
  const [fine] = await app.do("open", { stream: "t-3", actor }, { title: "fine" });
  await app.do("open", { stream: "t-4", actor }, { title: "bad" });
  const { blocked } = await settle(app, { allowBlocked: true, eventLimit: 100 });
  const errors = Object.fromEntries(blocked.map((b) => [b.stream, b.error]));
  expect(errors["projection:Half"]).toMatch(/failed on event "TicketOpened" #\d+: refusing a bad title/);
  expect(errors["projection:Async"]).toMatch(
    /^Projection "Async" failed on event "TicketOpened" #\d+: its handler of "TicketOpened" is an async function, but SqliteStore runs projection handlers synchronously/
  );
  // The whole batch rolled back: not even t-3's row, written before the failure, is there.
  expect(rows().filter(([id]) => String(id).startsWith("half-"))).toEqual([]);
  expect((await position("projection:Half"))?.at).toBeLessThan(fine.event!.id);
});

describe("handlers that are, or return, promises", () => {
  const late = () => reader.prepare("SELECT id FROM late_rows ORDER BY id").rows();
  beforeAll(() => reader.exec("CREATE TABLE late_rows (id TEXT NOT NULL)"));
  const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

  it("refuses an async handler before it runs: no row, however often it is retried, and the projection blocks saying why", async () => {
    const Awaiting = projection<Connection>("Awaiting", { maxRetries: 3, retryBaseMillis: 1, retryMaxMillis: 1 })
      .with(Ticket)
      .on("TicketOpened", async (event, db) => {
        await tick();
        db.prepare("INSERT INTO late_rows (id) VALUES (?)").run(`awaiting-${event.stream}`);
      })
      .build();
    const app = act().with(Ticket).with(Awaiting).build();
    await app.do("open", { stream: "a-1", actor }, { title: "x" });
    const { blocked } = await settle(app, { allowBlocked: true });
    await tick();
    expect(late()).toEqual([]);
    // Its first batch starts at the log's first TicketOpened.
    expect(blocked.find((b) => b.stream === "projection:Awaiting")?.error).toMatch(
      /^Projection "Awaiting" failed on event "TicketOpened" #0: its handler of "TicketOpened" is an async function, but SqliteStore runs projection handlers synchronously inside its write transaction, so its writes after an await would land outside it/
    );
  });

  it("refuses a handler that returns a promise; what it still does after returning cannot write", async () => {
    const Deferred = projection<Connection>("Deferred", { maxRetries: 3, retryBaseMillis: 1, retryMaxMillis: 1 })
      .with(Ticket)
      .on("TicketOpened", (event, db) =>
        tick().then(() => void db.prepare("INSERT INTO late_rows (id) VALUES (?)").run(`deferred-${event.stream}`))
      )
      .build();
    const app = act().with(Ticket).with(Deferred).build();
    await app.do("open", { stream: "d-1", actor }, { title: "x" });
    const { blocked } = await settle(app, { allowBlocked: true });
    await tick();
    expect(late()).toEqual([]);
    expect(blocked.find((b) => b.stream === "projection:Deferred")?.error).toMatch(
      /^Projection "Deferred" failed on event "TicketOpened" #0: its handler returned a promise, but SqliteStore runs projection handlers synchronously/
    );
  });

  it("an inline projection: refuses an async handler, or one that returns a promise, committing nothing and writing nothing", async () => {
    const AwaitingInline = projection<Connection>("AwaitingInline", { inline: true })
      .with(Ticket)
      .on("TicketOpened", async (event, db) => {
        await tick();
        db.prepare("INSERT INTO late_rows (id) VALUES (?)").run(`inline-${event.stream}`);
      })
      .build();
    const DeferredInline = projection<Connection>("DeferredInline", { inline: true })
      .with(Ticket)
      .on("TicketOpened", (event, db) =>
        tick().then(() => void db.prepare("INSERT INTO late_rows (id) VALUES (?)").run(`inline-${event.stream}`))
      )
      .build();
    await expect(
      act().with(Ticket).with(AwaitingInline).build().do("open", { stream: "ai-1", actor }, { title: "x" })
    ).rejects.toThrow(
      /^Inline projection "AwaitingInline" cannot run for the events of stream "ai-1" \(nothing was committed\): its handler of "TicketOpened" is an async function/
    );
    await expect(
      act().with(Ticket).with(DeferredInline).build().do("open", { stream: "di-1", actor }, { title: "x" })
    ).rejects.toThrow(/^An inline projection's handler for "TicketOpened" of stream "di-1" returned a promise/);
    await tick();
    let stored = 0;
    await store().query(() => stored++, { stream: "ai-1" });
    await store().query(() => stored++, { stream: "di-1" });
    expect(stored).toBe(0);
    expect(late()).toEqual([]);
  });
});

it("a local projection beside the file: each new app fills its own map from the whole log at its first drain", async () => {
  const opened = () => {
    const titles = new Map<string, string>();
    const Local = projection("LocalTitles", { local: true })
      .with(Ticket)
      .on("TicketOpened", (event) => void titles.set(event.stream, event.data.title))
      .build();
    return { titles, app: act().with(Ticket).with(Local).build() };
  };
  const first = opened();
  await first.app.do("open", { stream: "l-1", actor }, { title: "Lamp" });
  await first.app.drain();
  expect(first.titles.get("l-1")).toBe("Lamp");
  // Another process, or this one restarted: an empty map, and no shared position saying it is full.
  const second = opened();
  await second.app.drain();
  expect(second.titles.get("l-1")).toBe("Lamp");
  expect(second.titles.size).toBe(first.titles.size);
  expect(await position("projection:LocalTitles")).toBeUndefined();
});

describe("inline projections", () => {
  /** Ticket titles written inside each commit; a title "bad" makes the handler throw after its write. */
  const InlineTitles = projection<Connection>("InlineTitles", { inline: true })
    .with(Ticket)
    .on("TicketOpened", (event, db) => {
      db.prepare("INSERT INTO inline_titles (id, title) VALUES (?, ?)").run(event.stream, event.data.title);
      if (event.data.title === "bad") throw new Error("refusing a bad title");
    })
    .build();
  const titles = () => reader.prepare("SELECT id, title FROM inline_titles ORDER BY id").rows();
  const stored = async (stream: string) => {
    let count = 0;
    await store().query(() => count++, { stream });
    return count;
  };
  beforeAll(() => reader.exec("CREATE TABLE inline_titles (id TEXT PRIMARY KEY, title TEXT NOT NULL)"));

  it("writes the read model in the commit's transaction: another connection reads it right after app.do", async () => {
    const app = act().with(Ticket).with(InlineTitles).build();
    await app.do("open", { stream: "i-1", actor }, { title: "Printer" });
    expect(titles()).toEqual([["i-1", "Printer"]]);
  });

  it("a failing handler fails the action and commits neither the events nor its writes", async () => {
    const app = act().with(Ticket).with(InlineTitles).build();
    await expect(app.do("open", { stream: "i-2", actor }, { title: "bad" })).rejects.toThrow(
      /^Projection "InlineTitles" failed on event "TicketOpened" #\d+: refusing a bad title$/
    );
    expect(await stored("i-2")).toBe(0);
    expect(titles().filter(([id]) => id === "i-2")).toEqual([]);
  });

  it("refuses a handler that returns a promise, committing nothing", async () => {
    const AsyncInline = projection<Connection>("AsyncInline", { inline: true })
      .with(Ticket)
      .on("TicketOpened", async () => {})
      .build();
    const app = act().with(Ticket).with(AsyncInline).build();
    await expect(app.do("open", { stream: "i-3", actor }, { title: "x" })).rejects.toThrow(
      /Inline projection "AsyncInline" .* its handler of "TicketOpened" is an async function, but SqliteStore runs projection handlers synchronously/
    );
    expect(await stored("i-3")).toBe(0);
  });

  it("a statement a handler prepares on every event writes the table as it is now, after another connection rebuilt it", async () => {
    const app = act().with(Ticket).with(InlineTitles).build();
    await app.do("open", { stream: "i-4", actor }, { title: "before" });
    // Rebuilt with the columns in another order: a statement bound to the old table would swap them.
    reader.exec("DROP TABLE inline_titles; CREATE TABLE inline_titles (title TEXT NOT NULL, id TEXT PRIMARY KEY)");
    await app.do("open", { stream: "i-5", actor }, { title: "after" });
    expect(reader.prepare("SELECT id, title FROM inline_titles ORDER BY id").rows()).toEqual([["i-5", "after"]]);
  });
});
