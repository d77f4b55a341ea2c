import { describe, expect, it } from "vitest";
import { InMemoryStore } from "../src/index.js";
import { copySuite } from "./copy.suite.js";

const meta = { correlation: "c", causation: {} };

copySuite("memory → memory", {
  source: async () => new InMemoryStore(),
  target: async () => new InMemoryStore(),
});

describe("a copy into memory", () => {
  it("refuses archived events below the ids a dropped store goes on from, writing nothing", async () => {
    const target = new InMemoryStore();
    await target.commit({ stream: "a", messages: [{ name: "E", data: {} }], meta });
    await target.drop(); // ids go on from 1
    const event = { id: 0, stream: "z", version: 0, name: "E", data: {}, meta, created: new Date() };
    await expect(target.transfer.archive([{ event, archived: 1 }], -1)).rejects.toThrow(/below 1/);
    await expect(target.transfer.archive([{ event, archived: 1 }], 0)).rejects.toThrow(/last event is -1, not 0/);
    expect(await target.transfer.archived(-1, 10)).toEqual([]);
    await target.transfer.archive([{ event: { ...event, id: 1 }, archived: 1 }], -1);
    expect(await target.transfer.archived(-1, 10)).toHaveLength(1);
  });
});
