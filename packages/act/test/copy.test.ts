import { describe, expect, it } from "vitest";
import { z } from "zod";
import { act, copyStore, InMemoryStore, state } from "../src/index.js";
import { testClock } from "../src/testing/index.js";
import { copySuite } from "./copy.suite.js";

copySuite("memory → memory", {
  source: async () => new InMemoryStore(),
  target: async () => new InMemoryStore(),
});

describe("a source with an archive", () => {
  it("is refused before anything is written: the archive is not copied yet", async () => {
    const Tab = state("Tab", z.object({ total: z.number() }))
      .init(() => ({ total: 0 }))
      .emits({ Charged: z.object({ amount: z.number() }) })
      .patch({ Charged: ({ data }, s) => ({ total: s.total + data.amount }) })
      .on("charge", z.object({ amount: z.number() }))
      .emit(({ amount }) => ["Charged", { amount }])
      .build();
    const ada = { id: "u-1", name: "Ada" };
    const from = new InMemoryStore();
    const app = act()
      .with(Tab)
      .build({ store: from, clock: testClock(new Date(Date.now() + 60_000)) });
    await app.do("charge", { stream: "t-1", actor: ada }, { amount: 5 });
    await app.close(Tab, "t-1", { by: ada });
    expect((await app.archive({ afterMillis: 0 })).events).toBeGreaterThan(0);
    const to = new InMemoryStore();
    await expect(copyStore(from, to)).rejects.toThrow(/archived events/);
    expect(await to.query(() => {}, { with_snaps: true })).toBe(0);
  });
});
