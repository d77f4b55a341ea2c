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
      store.commit(
        "a",
        [
          { name: "A", data: {} },
          { name: "B", data: bad },
        ],
        { correlation: "c", causation: {} }
      )
    ).rejects.toThrow();
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
