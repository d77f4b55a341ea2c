import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { act, disposeAndExit, InMemoryStore, sleep, state, store } from "../../src/index.js";
import { actor, freshStore } from "../fixtures.js";

const Inbox = state("Inbox", z.object({ n: z.number() }))
  .init(() => ({ n: 0 }))
  .emits({ Received: z.object({ text: z.string() }) })
  .patch({ Received: (_, s) => ({ n: s.n + 1 }) })
  .on("receive", z.object({ text: z.string() }))
  .emit(({ text }) => ["Received", { text }])
  .build();

/** A ledger the reaction writes to: its events have no reaction. */
const Ledger = state("Ledger", z.object({ n: z.number() }))
  .init(() => ({ n: 0 }))
  .emits({ Noted: z.object({ text: z.string() }) })
  .patch({ Noted: (_, s) => ({ n: s.n + 1 }) })
  .on("note", z.object({ text: z.string() }))
  .emit(({ text }) => ["Noted", { text }])
  .build();

const apps: Array<{ stop: () => Promise<void> }> = [];
beforeEach(async () => {
  await freshStore();
});
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.stop()));
});

/** An app whose reaction records what it handled. */
function build(seen: string[], handler?: (text: string) => Promise<void>) {
  const app = act()
    .with(Inbox)
    .on("Received")
    .do(async (event) => {
      await handler?.(event.data.text);
      seen.push(event.data.text);
    })
    .to("outbox")
    .build();
  apps.push(app);
  return app;
}

describe("a running consumer", () => {
  it("runs reactions soon after a commit in this process, without a drain loop of your own", async () => {
    const seen: string[] = [];
    const app = build(seen);
    expect(app.start({ pollMillis: 60_000 })).toBe(true);
    expect(app.start()).toBe(false);
    await app.do("receive", { stream: "in", actor }, { text: "hello" });
    await vi.waitFor(() => expect(seen).toEqual(["hello"]), { timeout: 500, interval: 2 });
    const { latency } = await app.stats();
    expect(latency.count).toBe(1);
  });

  it("wakes when another app commits to the same store", async () => {
    const seen: string[] = [];
    const worker = build(seen);
    const api = build([]);
    worker.start({ pollMillis: 60_000 });
    await sleep(20); // the worker is idle, waiting
    await api.do("receive", { stream: "in", actor }, { text: "from the api" });
    await vi.waitFor(() => expect(seen).toEqual(["from the api"]), { timeout: 500, interval: 2 });
  });

  it("keeps running when the store fails for a while", async () => {
    const seen: string[] = [];
    const app = build(seen);
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const poll = vi
      .spyOn(store(), "poll")
      .mockRejectedValueOnce(new Error("connection refused"))
      .mockRejectedValueOnce(new Error("connection refused"));
    app.start({ pollMillis: 20 });
    await app.do("receive", { stream: "in", actor }, { text: "after the outage" });
    await vi.waitFor(() => expect(seen).toEqual(["after the outage"]), { timeout: 2_000, interval: 5 });
    expect(poll.mock.calls.length).toBeGreaterThan(2);
    errors.mockRestore();
  });

  it("stops cleanly: the running handler finishes and its progress is recorded, later commits wait", async () => {
    const seen: string[] = [];
    const app = build(seen, async (text) => {
      if (text === "slow") await sleep(80);
    });
    app.start({ pollMillis: 10, leaseMillis: 20 });
    await app.do("receive", { stream: "in", actor }, { text: "slow" });
    await sleep(10);
    await app.stop();
    expect(seen).toEqual(["slow"]);
    const [outbox] = await store().reactions();
    expect(outbox).toMatchObject({ stream: "outbox", at: 0 });
    expect(outbox.leasedBy).toBeUndefined(); // released: nobody has to wait for it to expire
    await app.do("receive", { stream: "in", actor }, { text: "later" });
    await sleep(40);
    expect(seen).toEqual(["slow"]);
    // Another process (here: another app) takes over at once.
    const other = build(seen);
    await other.drain();
    expect(seen).toEqual(["slow", "later"]);
  });

  it("is stopped by disposeAndExit before the store is closed", async () => {
    const app = build([]);
    const order: string[] = [];
    const stop = app.stop.bind(app);
    vi.spyOn(app, "stop").mockImplementation(async () => {
      await stop();
      order.push("consumer stopped");
    });
    vi.spyOn(store(), "dispose").mockImplementation(async () => void order.push("store disposed"));
    app.start({ pollMillis: 10 });
    await disposeAndExit();
    expect(order).toEqual(["consumer stopped", "store disposed"]);
    store(new InMemoryStore());
  });
});

describe("a running consumer drains only when there may be work", () => {
  // Fake timers hold back the consumer's polling, so only drains started by
  // wake-ups and by drains that left work run; setImmediate stays real to let
  // the in-memory store's calls settle.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  const settle = async () => {
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
  };

  /** An app whose reaction notes each received text in the ledger; counts its drains (store polls). */
  function noting(seen: string[]) {
    const app = act()
      .with(Inbox)
      .with(Ledger)
      .on("Received")
      .do(async (event, stream, app) => {
        await app.do("note", { stream, actor }, { text: event.data.text }, { reactingTo: event });
        seen.push(event.data.text);
      })
      .to((event) => ({ target: `ledger-${event.stream}` }))
      .build();
    apps.push(app);
    return { app, polls: vi.spyOn(store(), "poll") };
  }

  it("a commit no reaction handles starts no drain: neither the app's own nor the store's wake-up", async () => {
    const seen: string[] = [];
    const { app, polls } = noting(seen);
    app.start({ pollMillis: 60_000 });
    await settle();
    expect(polls).toHaveBeenCalledTimes(1); // the first drain, then it waits
    await app.do("note", { stream: "ledger-x", actor }, { text: "no reaction" });
    await settle();
    expect(polls).toHaveBeenCalledTimes(1);
    await app.do("receive", { stream: "in", actor }, { text: "hello" });
    await settle();
    expect(seen).toEqual(["hello"]);
  });

  it("after a drain that handled all it found, it waits for a wake-up or its poll instead of draining again at once", async () => {
    const seen: string[] = [];
    const { app, polls } = noting(seen);
    app.start({ pollMillis: 60_000 });
    await settle();
    await app.do("receive", { stream: "in", actor }, { text: "hello" });
    await settle();
    expect(seen).toEqual(["hello"]);
    // The first drain and the one the commit woke; the reaction's own commit
    // (a Noted event) and the finished drain start none.
    expect(polls).toHaveBeenCalledTimes(2);
    // Polling still runs: the short wait after work ends in a drain.
    await vi.advanceTimersByTimeAsync(5);
    await settle();
    expect(polls).toHaveBeenCalledTimes(3);
  });

  it("on a store without wake-ups, drains again at once after a drain that did work: nothing else would find what arrived meanwhile", async () => {
    const seen: string[] = [];
    (store() as { subscribe?: unknown }).subscribe = undefined;
    const { app, polls } = noting(seen);
    app.start({ pollMillis: 60_000 });
    await settle();
    await app.do("receive", { stream: "in", actor }, { text: "hello" });
    await settle();
    expect(seen).toEqual(["hello"]);
    // The first drain, the one the commit woke, and the one right after it.
    expect(polls).toHaveBeenCalledTimes(3);
  });

  it("drains again at once when a drain took as many streams or events as it may", async () => {
    const seen: string[] = [];
    const { app } = noting(seen);
    app.start({ pollMillis: 60_000, streamLimit: 1, eventLimit: 2 });
    await settle();
    // Committed before the consumer hears of them: one wake-up, three drains' worth of work.
    await store().commit({
      stream: "a",
      messages: [{ name: "Received", data: { text: "a1" } }],
      meta: { correlation: "c", causation: {} },
    });
    await store().commit({
      stream: "a",
      messages: [{ name: "Received", data: { text: "a2" } }],
      meta: { correlation: "c", causation: {} },
    });
    await store().commit({
      stream: "a",
      messages: [{ name: "Received", data: { text: "a3" } }],
      meta: { correlation: "c", causation: {} },
    });
    await store().commit({
      stream: "b",
      messages: [{ name: "Received", data: { text: "b1" } }],
      meta: { correlation: "c", causation: {} },
    });
    await settle();
    expect([...seen].sort()).toEqual(["a1", "a2", "a3", "b1"]);
  });
});
