import { beforeEach, describe, expect, it, vi } from "vitest";
import { SnapshotCache } from "../../src/committing/cache.js";
import { act, ConcurrencyError, InMemoryStore, InvariantError, store } from "../../src/index.js";
import { actor, Counter, freshStore } from "../fixtures.js";

beforeEach(async () => {
  await freshStore();
});

describe("SnapshotCache", () => {
  const snap = (n: number) => ({ state: { n }, patches: 0, snaps: 0 });

  it("keeps the most recently stored entries up to its size", () => {
    const owner = new InMemoryStore();
    const cache = new SnapshotCache(2);
    cache.set("a", snap(1));
    cache.set("b", snap(2));
    cache.get(owner, "a"); // first get binds the store and clears
    cache.set("a", snap(1));
    cache.set("b", snap(2));
    cache.set("a", snap(4)); // an action on a stores where it ends: a is now the most recent
    cache.set("c", snap(3)); // evicts b
    expect(cache.get(owner, "b")).toBeUndefined();
    expect(cache.get(owner, "a")?.state).toEqual({ n: 4 });
    expect(cache.get(owner, "c")?.state).toEqual({ n: 3 });
    cache.get(owner, "a"); // a read alone does not keep a
    cache.set("d", snap(5)); // evicts a, stored before c
    expect(cache.get(owner, "a")).toBeUndefined();
    expect(cache.get(owner, "c")?.state).toEqual({ n: 3 });
  });

  it("empties when the store changes", () => {
    const cache = new SnapshotCache();
    const first = new InMemoryStore();
    cache.get(first, "x");
    cache.set("x", snap(1));
    expect(cache.get(first, "x")).toBeDefined();
    expect(cache.get(new InMemoryStore(), "x")).toBeUndefined();
  });
});

describe("actions with cached snapshots", () => {
  it("fold events another writer committed since", async () => {
    const app = act().with(Counter).build();
    await app.do("increment", { stream: "s", actor }, { by: 1 });
    await store().commit({
      stream: "s",
      messages: [{ name: "Incremented", data: { by: 10 } }],
      meta: { correlation: "x", causation: {} },
    });
    const [snap] = await app.do("increment", { stream: "s", actor }, { by: 1 });
    expect(snap.state.count).toBe(12);
    expect(snap.event?.version).toBe(2);
  });

  it("fail with the store's error when the read after a cached snapshot fails, instead of taking it for a gap", async () => {
    const app = act().with(Counter).build();
    await app.do("increment", { stream: "s", actor }, { by: 1 });
    await app.do("increment", { stream: "s", actor }, { by: 1 });
    const log = store();
    const read = log.query.bind(log);
    const query = vi.spyOn(log, "query");
    query.mockImplementationOnce(async () => {
      throw new Error("connection lost");
    });
    query.mockImplementation(read);
    // An expected version makes the action read after its cached snapshot.
    await expect(app.do("increment", { stream: "s", actor, expectedVersion: 1 }, { by: 1 })).rejects.toThrow(
      "connection lost"
    );
    query.mockRestore();
    expect((await app.load(Counter, "s")).state.count).toBe(2);
  });

  it("recover after a conflict proves the cache stale, e.g. when the store was dropped", async () => {
    const app = act().with(Counter).build();
    await app.do("increment", { stream: "s", actor }, { by: 1 });
    await app.do("increment", { stream: "s", actor }, { by: 1 });
    await store().drop(); // the log is gone, the cached snapshot is not
    const [snap] = await app.do("increment", { stream: "s", actor }, { by: 1 });
    expect(snap.state.count).toBe(1);
    expect(snap.event?.version).toBe(0);
    expect((await app.load(Counter, "s")).state.count).toBe(1);
  });

  it("never decide on a cached snapshot when the events read after it do not continue it", async () => {
    const app = act().with(Counter).build();
    const other = act().with(Counter).build();
    await app.do("increment", { stream: "s", actor }, { by: 1 });
    await other.do("increment", { stream: "s", actor }, { by: 10 });
    await other.do("increment", { stream: "s", actor }, { by: 100 });
    // A store whose position-based read of the stream misses the first new
    // event (as a read bounded below an open transaction would).
    const real = store().query.bind(store());
    vi.spyOn(store(), "query").mockImplementation(async (callback, query) => {
      let first = true;
      return real((event) => {
        if (query?.after !== undefined && first) {
          first = false;
          return;
        }
        callback(event);
      }, query);
    });
    const [snap] = await app.do("increment", { stream: "s", actor, expectedVersion: 2 }, { by: 1000 });
    expect(snap.state.count).toBe(1111);
    vi.restoreAllMocks();
    expect((await act().with(Counter).build().load(Counter, "s")).state.count).toBe(1111);
  });

  it("refuse an expectedVersion the stream is not at before running any rule or handler", async () => {
    const app = act().with(Counter).build();
    await app.do("increment", { stream: "s", actor }, { by: 1 });
    await app.do("increment", { stream: "s", actor }, { by: 1 });
    await expect(app.do("reset", { stream: "s", actor, expectedVersion: 0 }, {})).rejects.toBeInstanceOf(
      ConcurrencyError
    );
    await expect(app.do("increment", { stream: "s", actor, expectedVersion: 5 }, { by: 1 })).rejects.toThrow(
      /expected version 5 but the stream is at 1 \(nothing was committed\)/
    );
    expect((await app.load(Counter, "s")).state.count).toBe(2);
  });
});

describe("optimistic actions on cached streams", () => {
  it("skip the read: the commit's version check proves the snapshot current", async () => {
    const app = act().with(Counter).build();
    await app.do("increment", { stream: "o", actor }, { by: 1 });
    const query = vi.spyOn(store(), "query");
    const [snap] = await app.do("increment", { stream: "o", actor }, { by: 1 });
    expect(query).not.toHaveBeenCalled();
    expect(snap.state.count).toBe(2);
    await app.do("increment", { stream: "o", actor, expectedVersion: 1 }, { by: 1 });
    expect(query).toHaveBeenCalledTimes(1); // an explicit expected version reads
  });

  it("re-check a rule that failed on a stale snapshot against the events since", async () => {
    const app = act().with(Counter).build();
    await app.do("tag", { stream: "o", actor }, { tags: ["x"] }); // cached: count 0
    await store().commit({
      stream: "o",
      messages: [{ name: "Incremented", data: { by: 5 } }],
      meta: { correlation: "x", causation: {} },
    });
    const [snap] = await app.do("reset", { stream: "o", actor }, {}); // "must not be zero" holds now
    expect(snap.state.count).toBe(0);
    expect(snap.event?.version).toBe(2);
    await expect(app.do("reset", { stream: "o", actor }, {})).rejects.toBeInstanceOf(InvariantError);
  });

  it("return the fresh state when nothing is emitted", async () => {
    const app = act().with(Counter).build();
    await app.do("tag", { stream: "o", actor }, { tags: ["x"] });
    await store().commit({
      stream: "o",
      messages: [{ name: "Incremented", data: { by: 5 } }],
      meta: { correlation: "x", causation: {} },
    });
    const [snap] = await app.do("tag", { stream: "o", actor }, { tags: [] });
    expect(snap.state).toEqual({ count: 5, tags: ["x"] });
  });
});

describe("a cached snapshot knows the event it was built from", () => {
  it("is not reused after the stream is dropped and written again up to the same version", async () => {
    const app = act().with(Counter).build();
    await app.do("increment", { stream: "dropped", actor }, { by: 5 }); // cached at version 0, count 5
    await store().drop();
    await store().seed();
    // Another writer starts the stream again: a new first event, the same version.
    await store().commit({
      stream: "dropped",
      messages: [{ name: "Incremented", data: { by: 1 } }],
      meta: {
        correlation: "c",
        causation: {},
      },
    });
    const [snap] = await app.do("increment", { stream: "dropped", actor }, { by: 1 });
    expect(snap.state.count).toBe(2);
    expect((await app.load(Counter, "dropped")).state.count).toBe(2);
  });
});
