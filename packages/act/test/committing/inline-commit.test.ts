import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { InMemoryStore, projection, state } from "../../src/index.js";
import { commitEvents } from "../../src/committing/inline-commit.js";
import type { Store } from "../../src/types/ports.js";

// Which commit an action's events take with inline projections, and what a
// store that runs handlers synchronously inside its transaction refuses —
// the core's side of it, on stores made to say so.

const Ticket = state("Ticket", z.object({ title: z.string() }))
  .init(() => ({ title: "" }))
  .emits({ Opened: z.object({ title: z.string() }), Noted: z.object({}) })
  .patch({ Opened: (e) => ({ title: e.data.title }), Noted: () => ({}) })
  .on("open", z.object({ title: z.string() }))
  .emit(({ title }) => ["Opened", { title }])
  .build();

const request = (name: "Opened" | "Noted" = "Opened") => ({
  stream: "t-1",
  messages: [{ name, data: name === "Opened" ? { title: "Printer" } : {} }],
  meta: { correlation: "c", causation: {} },
});

/** An in-memory store that says it runs projection handlers synchronously, as SQLite does. */
class SynchronousStore extends InMemoryStore {
  readonly synchronousHandlers = true;
}

const titles = new Map<string, string>();
const Titles = projection("Titles")
  .with(Ticket)
  .on("Opened", (event) => void titles.set(event.stream, event.data.title))
  .build();

afterEach(() => {
  titles.clear();
  vi.restoreAllMocks();
});

const events = async (store: Store) => store.query(() => {});

describe("committing with inline projections", () => {
  it("runs the projections handling an event inside the commit", async () => {
    const store = new InMemoryStore();
    const inline = vi.spyOn(store, "commitInline");
    await commitEvents(store, [Titles], request());
    expect(inline).toHaveBeenCalledTimes(1);
    expect(titles.get("t-1")).toBe("Printer");
  });

  it("takes the plain commit when no inline projection handles the events", async () => {
    const store = new InMemoryStore();
    const inline = vi.spyOn(store, "commitInline");
    await commitEvents(store, [Titles], request("Noted"));
    expect(inline).not.toHaveBeenCalled();
    expect(await events(store)).toBe(1);
  });

  it("refuses a store without commitInline, naming the projection and the store", async () => {
    const plain = new InMemoryStore() as Store & { commitInline?: unknown };
    Object.defineProperty(plain, "commitInline", { value: undefined });
    expect(() => commitEvents(plain, [Titles], request())).toThrow(
      /^Inline projection "Titles" needs a store that runs handlers inside its commit \(Store\.commitInline\), and InMemoryStore has none: nothing was committed/
    );
    const nameless = Object.assign(Object.create(null), { commit: () => Promise.resolve([]) }) as Store;
    expect(() => commitEvents(nameless, [Titles], request())).toThrow(/, and this store has none/);
  });

  it("on a synchronous store, refuses an async handler before committing anything", async () => {
    const store = new SynchronousStore();
    const Async = projection("AsyncTitles")
      .with(Ticket)
      .on("Opened", async () => {})
      .build();
    expect(() => commitEvents(store, [Async], request())).toThrow(
      /^Inline projection "AsyncTitles" cannot run for the events of stream "t-1" \(nothing was committed\): its handler of "Opened" is an async function, but SynchronousStore runs projection handlers synchronously/
    );
    expect(await events(store)).toBe(0);
  });

  it("on a synchronous store, refuses a handler that returned a promise, and commits nothing", async () => {
    const store = new SynchronousStore();
    const Sneaky = projection("Sneaky")
      .with(Ticket)
      .on("Opened", () => Promise.resolve() as unknown as undefined)
      .build();
    await expect(commitEvents(store, [Sneaky], request())).rejects.toThrow(
      /^An inline projection's handler for "Opened" of stream "t-1" returned a promise \(nothing was committed\)/
    );
    expect(await events(store)).toBe(0);
  });

  it("on a synchronous store, commits with a synchronous handler", async () => {
    const store = new SynchronousStore();
    await commitEvents(store, [Titles], request());
    expect(titles.get("t-1")).toBe("Printer");
    expect(await events(store)).toBe(1);
  });
});
