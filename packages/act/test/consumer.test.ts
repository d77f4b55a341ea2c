import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { act, disposeAndExit, InMemoryStore, sleep, state, store } from "../src/index.js";
import { actor, freshStore } from "./fixtures.js";

const Inbox = state("Inbox", z.object({ n: z.number() }))
  .init(() => ({ n: 0 }))
  .emits({ Received: z.object({ text: z.string() }) })
  .patch({ Received: (_, s) => ({ n: s.n + 1 }) })
  .on("receive", z.object({ text: z.string() }))
  .emit(({ text }) => ["Received", { text }])
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
