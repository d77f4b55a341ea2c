import { beforeEach, describe, expect, it } from "vitest";
import { act, disposeAndExit, InMemoryStore, sleep, store } from "../src/index.js";
import { actor, Counter, freshStore } from "./fixtures.js";

beforeEach(async () => {
  await freshStore();
});

const target = (stream: string, idempotencyKey?: string) => ({ stream, actor, idempotencyKey });

describe("idempotent actions", () => {
  it("return the first outcome and commit nothing when repeated with the same key", async () => {
    const app = act().with(Counter).build();
    const first = await app.do("increment", target("c", "req-1"), { by: 5 });
    await app.do("increment", target("c"), { by: 1 });
    const again = await app.do("increment", target("c", "req-1"), { by: 5 });
    expect(again).toEqual(first);
    expect(again[0].state.count).toBe(5); // the state the first call returned, not today's
    expect((await app.load(Counter, "c")).state.count).toBe(6);
    expect(await app.query({ stream: "c" })).toMatchObject({ count: 2 });
  });

  it("replay across apps (other processes, restarts) and run again once the key expires", async () => {
    await disposeAndExit();
    store(new InMemoryStore({ idempotencyMillis: 50 }));
    const [a, b] = [act().with(Counter).build(), act().with(Counter).build()];
    const first = await a.do("tag", target("t", "k"), { tags: ["x", "y"] });
    expect(await b.do("tag", target("t", "k"), { tags: ["x", "y"] })).toEqual(first);
    expect(await b.do("tag", target("other", "k"), { tags: ["z"] })).toHaveLength(1); // keys are per stream
    await sleep(60);
    await b.do("tag", target("t", "k"), { tags: ["x", "y"] });
    expect((await b.load(Counter, "t")).state.tags).toEqual(["x", "y", "x", "y"]);
  });

  it("let exactly one of two racing actions with the same key commit; both get its outcome", async () => {
    const [a, b] = [act().with(Counter).build(), act().with(Counter).build()];
    await a.do("increment", target("r"), { by: 1 }); // both apps hold the stream in their caches
    await b.load(Counter, "r");
    const [x, y] = await Promise.all([
      a.do("increment", target("r", "pay-7"), { by: 10 }),
      b.do("increment", target("r", "pay-7"), { by: 10 }),
    ]);
    expect(x).toEqual(y);
    expect((await a.load(Counter, "r")).state.count).toBe(11);
  });
});
