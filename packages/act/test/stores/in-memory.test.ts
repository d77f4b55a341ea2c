import { describe, expect, it } from "vitest";
import { InMemoryStore } from "../../src/index.js";
import { storeConformance } from "../store.conformance.js";

storeConformance("InMemoryStore", () => new InMemoryStore());

describe("InMemoryStore", () => {
  it("rejects data that cannot be cloned and appends nothing", async () => {
    const store = new InMemoryStore();
    const bad = { fn: () => 1 };
    await expect(store.commit("a", [{ name: "A", data: {} }, { name: "B", data: bad }], { correlation: "c", causation: {} })).rejects.toThrow();
    expect(await store.query(() => {})).toBe(0);
  });

  it("keeps its log safe from callers mutating what they committed", async () => {
    const store = new InMemoryStore();
    const data = { list: [1] };
    await store.commit("a", [{ name: "A", data }], { correlation: "c", causation: {} });
    data.list.push(2);
    const seen: unknown[] = [];
    await store.query((e) => seen.push(e.data));
    expect(seen).toEqual([{ list: [1] }]);
  });
});
