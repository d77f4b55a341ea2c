/**
 * An app bound to its own store (`build({ store })`): everything it does goes
 * to that store, whatever the process-wide store port holds, so apps on
 * different stores run side by side in one process without seeing each
 * other's events, reaction streams or projections.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, BuilderError, disposeAndExit, InMemoryStore, projection, type Store, store } from "../src/index.js";
import { settle } from "../src/testing/index.js";
import { actor, Counter, freshStore } from "./fixtures.js";

/** Every event of a store, with snapshots. */
async function events(log: Store) {
  const all: Array<{ stream: string; name: string }> = [];
  await log.query((e) => void all.push({ stream: e.stream, name: e.name as string }), { with_snaps: true });
  return all;
}

/** The app the tests bind: a reaction that audits each increment, and a projection of the totals into `totals`. */
function build(totals: Map<string, number>, bound?: Store) {
  const Totals = projection("Totals")
    .with(Counter)
    .on("Incremented", (event) => void totals.set(event.stream, (totals.get(event.stream) ?? 0) + event.data.by))
    .build();
  const builder = act()
    .with(Counter)
    .with(Totals)
    .on("Incremented")
    .do(async (event, _stream, app) => {
      await app.do(
        "tag",
        { stream: `audit-${event.stream}`, actor },
        { tags: [`+${event.data.by}`] },
        { reactingTo: event }
      );
    })
    .to((event) => (event.stream.startsWith("audit-") ? undefined : { target: `audit-${event.stream}` }));
  return { app: bound ? builder.build({ store: bound }) : builder.build(), Totals };
}

let port: Store;
beforeEach(async () => {
  port = await freshStore();
});
afterEach(async () => {
  await disposeAndExit();
});

describe("an app bound to its own store", () => {
  it("commits, loads, queries, reacts, projects and drains in its store while the store port holds another", async () => {
    const bound = new InMemoryStore();
    const totals = new Map<string, number>();
    const { app, Totals } = build(totals, bound);
    expect(app.store).toBe(bound);
    const snapshots = await app.do("increment", { stream: "c-1", actor }, { by: 2 });
    await settle(app);
    await app.projected(Totals, snapshots);
    expect((await app.load(Counter, "c-1")).state.count).toBe(2);
    expect((await app.load(Counter, "audit-c-1")).state.tags).toEqual(["+2"]);
    expect(await app.queryArray({ stream: "audit-c-1" })).toHaveLength(1);
    expect(totals.get("c-1")).toBe(2);
    expect(await events(bound)).toEqual([
      { stream: "c-1", name: "Incremented" },
      { stream: "audit-c-1", name: "Tagged" },
    ]);
    expect((await bound.reactions()).map((r) => r.stream).sort()).toEqual(["audit-c-1", "projection:Totals"]);
    // The port's store never saw any of it.
    expect(await events(port)).toEqual([]);
    expect(await port.reactions()).toEqual([]);
    const { streams, discovery } = await app.stats();
    expect(streams.map((s) => [s.stream, s.lag]).sort()).toEqual([
      ["audit-c-1", 0],
      ["projection:Totals", 0],
    ]);
    expect(discovery.every((d) => d.at >= 0)).toBe(true);
    expect(await port.discovered(discovery.map((d) => d.reaction))).toEqual(new Map());
  });

  it("waits for its chains and runs its consumer on its store, woken by its own commits", async () => {
    const bound = new InMemoryStore();
    const { app } = build(new Map(), bound);
    app.start({ pollMillis: 60_000 });
    try {
      const snapshots = await app.do("increment", { stream: "c-2", actor }, { by: 3 });
      await app.settled(snapshots, { timeoutMillis: 4_000 });
      expect((await app.load(Counter, "audit-c-2")).state.tags).toEqual(["+3"]);
    } finally {
      await app.stop();
    }
    expect(await events(port)).toEqual([]);
  });

  it("blocks, unblocks and resets reaction streams in its store", async () => {
    const bound = new InMemoryStore();
    let fail = true;
    const app = act()
      .with(Counter)
      .on("Incremented")
      .do(
        async () => {
          if (fail) throw new Error("down");
        },
        { maxRetries: 0, retryBaseMillis: 1 }
      )
      .to("audit")
      .build({ store: bound });
    // The same stream is blocked in the port's store: the app must not see it.
    await port.lease([{ stream: "audit", by: "other", at: -1, retry: 0 }], 0);
    await app.do("increment", { stream: "c-3", actor }, { by: 1 });
    const { blocked } = await settle(app, { allowBlocked: true });
    expect(blocked.map((b) => b.stream)).toEqual(["audit"]);
    expect((await app.blocked()).map((b) => b.stream)).toEqual(["audit"]);
    expect((await port.reactions())[0].blocked).toBe(false);
    fail = false;
    expect(await app.unblock("audit")).toEqual(["audit"]);
    await settle(app);
    expect((await bound.reactions({ streams: ["audit"] }))[0].at).toBeGreaterThanOrEqual(0);
    expect(await app.reset("audit")).toEqual(["audit"]);
    expect((await bound.reactions({ streams: ["audit"] }))[0].at).toBe(-1);
    expect((await port.reactions({ streams: ["audit"] }))[0].at).toBe(-1);
  });

  it("keeps to the store it was built with after the port's adapter changes", async () => {
    const bound = new InMemoryStore();
    const { app } = build(new Map(), bound);
    await app.do("increment", { stream: "c-4", actor }, { by: 1 });
    await disposeAndExit(); // the port starts over; the bound store is disposed too
    const next = store(new InMemoryStore());
    await app.do("increment", { stream: "c-4", actor }, { by: 1 });
    expect(await events(next)).toEqual([]);
    expect(app.store).toBe(bound);
  });

  it("has disposeAndExit dispose its store after its consumer stopped, once even when the port holds it too", async () => {
    const bound = new InMemoryStore();
    const order: string[] = [];
    const dispose = vi.spyOn(bound, "dispose").mockImplementation(async () => void order.push("store"));
    const { app } = build(new Map(), bound);
    const stop = vi.spyOn(app, "stop").mockImplementation(async () => void order.push("consumer"));
    app.start();
    store(bound); // ignored: the port already holds one; the bound store is still closed once
    await disposeAndExit();
    expect(order).toEqual(["consumer", "store"]);
    expect(dispose).toHaveBeenCalledTimes(1);
    stop.mockRestore();
    await app.stop();
  });

  it("refuses a store that is not one, at build", () => {
    expect(() =>
      act()
        .with(Counter)
        .build({ store: {} as Store })
    ).toThrow(BuilderError);
  });
});

describe("two apps on two stores in one process", () => {
  it("each commits, reacts, projects and drains with its own consumer, neither seeing the other's events or streams", async () => {
    const left = new InMemoryStore();
    const right = new InMemoryStore();
    const leftTotals = new Map<string, number>();
    const rightTotals = new Map<string, number>();
    const a = build(leftTotals, left);
    const b = build(rightTotals, right);
    a.app.start({ pollMillis: 50 });
    b.app.start({ pollMillis: 50 });
    try {
      const fromA = await a.app.do("increment", { stream: "c", actor }, { by: 1 });
      const fromB = await b.app.do("increment", { stream: "c", actor }, { by: 10 });
      await b.app.do("increment", { stream: "only-b", actor }, { by: 5 });
      await a.app.settled(fromA, { timeoutMillis: 4_000 });
      await b.app.settled(fromB, { timeoutMillis: 4_000 });
      await a.app.projected(a.Totals, fromA);
      await b.app.projected(b.Totals, (await b.app.queryArray({ stream: "only-b" }))[0].id);
    } finally {
      await a.app.stop();
      await b.app.stop();
    }
    expect((await a.app.load(Counter, "c")).state.count).toBe(1);
    expect((await b.app.load(Counter, "c")).state.count).toBe(10);
    expect((await a.app.load(Counter, "audit-c")).state.tags).toEqual(["+1"]);
    expect((await b.app.load(Counter, "audit-c")).state.tags).toEqual(["+10"]);
    expect(await a.app.queryArray({ stream: "only-b" })).toEqual([]);
    expect([...leftTotals]).toEqual([["c", 1]]);
    expect([...rightTotals].sort()).toEqual([
      ["c", 10],
      ["only-b", 5],
    ]);
    expect((await left.reactions()).map((r) => r.stream).sort()).toEqual(["audit-c", "projection:Totals"]);
    expect((await right.reactions()).map((r) => r.stream).sort()).toEqual([
      "audit-c",
      "audit-only-b",
      "projection:Totals",
    ]);
    expect(await events(port)).toEqual([]);
  });
});
