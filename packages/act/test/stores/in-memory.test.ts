import * as vitest from "vitest";
import { describe, expect, it } from "vitest";
import { storeConformance } from "@act-root/act/testing";
import { InMemoryStore } from "../../src/index.js";

// The conformance suite as users import it (the package entry, built from
// src/testing — see vitest.config.ts), against the in-memory store.
storeConformance("InMemoryStore", () => new InMemoryStore(), vitest);

describe("InMemoryStore", () => {
  it("rejects data that cannot be cloned and appends nothing", async () => {
    const store = new InMemoryStore();
    const bad = { fn: () => 1 };
    await expect(
      store.commit({
        stream: "a",
        messages: [
          { name: "A", data: {} },
          { name: "B", data: bad },
        ],
        meta: { correlation: "c", causation: {} },
      })
    ).rejects.toThrow();
    expect(await store.query(() => {})).toBe(0);
  });

  it("keeps its log safe from callers mutating what they committed", async () => {
    const store = new InMemoryStore();
    const data = { list: [1] };
    await store.commit({ stream: "a", messages: [{ name: "A", data }], meta: { correlation: "c", causation: {} } });
    data.list.push(2);
    const seen: unknown[] = [];
    await store.query((e) => seen.push(e.data));
    expect(seen).toEqual([{ list: [1] }]);
  });
});

describe("InMemoryStore's reaction streams", () => {
  const meta = { correlation: "c", causation: {} };
  /** Registers `stream` at watermark `at` with work up to `head`. */
  const register = (store: InMemoryStore, stream: string, at: number, head: number, source?: string) =>
    store.lease([{ stream, source, by: "correlation", at, retry: 0, head }], 0);

  it("polls the most lagging first and the most leading from the other end, ties by name, as the database stores do", async () => {
    const store = new InMemoryStore();
    await store.commit({ stream: "s", messages: Array.from({ length: 10 }, () => ({ name: "A", data: {} })), meta });
    // Registered out of name order, so ties are ordered by the poll, not by arrival.
    await register(store, "f", 5, 9);
    await register(store, "d", 5, 9);
    await register(store, "c", 1, 9);
    await register(store, "b", 1, 9);
    await register(store, "a", 7, 9);
    await register(store, "e", 3, 9);
    expect((await store.poll({ lagging: 3, leading: 0 })).map((p) => [p.stream, p.lagging])).toEqual([
      ["b", true],
      ["c", true],
      ["e", true],
    ]);
    expect((await store.poll({ lagging: 0, leading: 3 })).map((p) => [p.stream, p.lagging])).toEqual([
      ["a", false],
      ["d", false],
      ["f", false],
    ]);
    expect((await store.poll({ lagging: 2, leading: 2 })).map((p) => p.stream)).toEqual(["b", "c", "a", "d"]);
  });

  it("lists a lease's holder and end only while it lasts, a source and an error only where there is one", async () => {
    const store = new InMemoryStore();
    await store.commit({ stream: "s", messages: [{ name: "A", data: {} }], meta });
    await register(store, "plain", -1, 0);
    await register(store, "sourced", -1, 0, "s");
    const [held] = await store.lease([{ stream: "plain", by: "d", at: -1, retry: 0 }], 60_000);
    await store.lease([{ stream: "sourced", source: "s", by: "d", at: -1, retry: 0 }], 1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const listed = new Map((await store.reactions()).map((r) => [r.stream, r]));
    expect(listed.get("plain")).toMatchObject({ leasedBy: "d" });
    expect(listed.get("plain")!.leasedUntil!.getTime()).toBeGreaterThan(Date.now());
    expect(listed.get("plain")).not.toHaveProperty("source");
    expect(listed.get("plain")).not.toHaveProperty("error");
    // The other lease ran out: no holder, no end.
    expect(listed.get("sourced")).toMatchObject({ source: "s" });
    expect(listed.get("sourced")).not.toHaveProperty("leasedBy");
    expect(listed.get("sourced")).not.toHaveProperty("leasedUntil");
    await store.block([{ ...held, error: "boom" }]);
    expect((await store.reactions({ streams: ["plain"] }))[0]).toMatchObject({ error: "boom", blocked: true });
  });
});

describe("InMemoryStore's timers", () => {
  it("claims and lists the earliest due first among timers kept in any order, up to the limit, ties by id", async () => {
    const store = new InMemoryStore();
    const actor = { id: "u", name: "U" };
    // Kept latest first and shuffled: the order of the map is not the order of the claims.
    const dues = [90, 10, 50, 10, 70, 30, 0, 30, 80, 20];
    await store.timers.schedule(
      dues.map((due, i) => ({ id: `t-${9 - i}`, action: "a", stream: "s", actor, payload: {}, due: new Date(due) }))
    );
    const claimed = await store.timers.claim({ now: new Date(60), by: "p", millis: 1_000, limit: 4, actions: ["a"] });
    expect(claimed.map((t) => t.id)).toEqual(["t-3", "t-6", "t-8", "t-0"]);
    const listed = await store.timers.list({ status: "pending", limit: 3 });
    expect(listed.map((t) => t.id)).toEqual(["t-3", "t-6", "t-8"]);
    expect(await store.timers.list({ limit: 0 })).toEqual([]);
    // The ones left due by 60: t-2 and t-4 (30), then t-7 (50); the claimed ones are held.
    const rest = await store.timers.claim({ now: new Date(60), by: "q", millis: 1_000, limit: 10, actions: ["a"] });
    expect(rest.map((t) => t.id)).toEqual(["t-2", "t-4", "t-7"]);
  });
});
