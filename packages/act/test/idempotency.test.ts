import { beforeEach, describe, expect, it, vi } from "vitest";
import { act, disposeAndExit, IdempotencyKeyReusedError, InMemoryStore, sleep, store } from "../src/index.js";
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

  it("give the winner's outcome to an action that found the key unused but lost the commit to it", async () => {
    const [a, b] = [act().with(Counter).build(), act().with(Counter).build()];
    const first = await a.do("increment", target("w", "pay-8"), { by: 3 });
    // b's look-up ran before a's commit (another process, a moment earlier): it found nothing.
    vi.spyOn(store(), "recall").mockResolvedValueOnce(undefined);
    expect(await b.do("increment", target("w", "pay-8"), { by: 3 })).toEqual(first);
    expect((await a.load(Counter, "w")).state.count).toBe(3);
    vi.restoreAllMocks();
  });

  it("replay exactly the events the key committed, not the stream's later ones nor other streams'", async () => {
    const app = act().with(Counter).build();
    await app.do("increment", target("other"), { by: 100 });
    await app.do("increment", target("x"), { by: 1 });
    const first = await app.do("tag", target("x", "tags-1"), { tags: ["a", "b"] });
    await app.do("tag", target("x"), { tags: ["c"] });
    await app.do("increment", target("other"), { by: 100 });
    const again = await app.do("tag", target("x", "tags-1"), { tags: ["a", "b"] });
    expect(again.map(({ event, state }) => [event?.version, state.tags])).toEqual([
      [1, ["a"]],
      [2, ["a", "b"]],
    ]);
    expect(again).toEqual(first);
  });

  describe("a key bound to its request", () => {
    const other = { id: "2", name: "Grace" };

    it("refuses the key for another payload, action or actor — nothing runs, nothing is committed", async () => {
      const app = act().with(Counter).build();
      await app.do("increment", target("c", "req-1"), { by: 5 });
      const attempts = [
        () => app.do("increment", target("c", "req-1"), { by: 6 }),
        () => app.do("tag", target("c", "req-1"), { tags: ["x"] }),
        () => app.do("increment", { stream: "c", actor: other, idempotencyKey: "req-1" }, { by: 5 }),
      ];
      for (const attempt of attempts) {
        const error = await attempt().then(
          () => undefined,
          (e: unknown) => e
        );
        expect(error).toBeInstanceOf(IdempotencyKeyReusedError);
        expect(error).toMatchObject({ name: "ERR_IDEMPOTENCY_KEY_REUSED", stream: "c", key: "req-1" });
        expect((error as Error).message).toMatch(/"req-1" of stream "c" was already used for another request/);
      }
      expect(await app.query({ stream: "c" })).toMatchObject({ count: 1 });
      // The same request still gets its first outcome, whatever order its keys came in.
      expect(await app.do("increment", { idempotencyKey: "req-1", actor, stream: "c" }, { by: 5 })).toHaveLength(1);
      expect(await app.query({ stream: "c" })).toMatchObject({ count: 1 });
    });

    it("refuses the loser of a race with another request under the same key", async () => {
      const [a, b] = [act().with(Counter).build(), act().with(Counter).build()];
      const results = await Promise.allSettled([
        a.do("increment", target("r", "pay-8"), { by: 10 }),
        b.do("increment", target("r", "pay-8"), { by: 20 }),
      ]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const [lost] = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
      expect(lost.reason).toBeInstanceOf(IdempotencyKeyReusedError);
      expect(await a.query({ stream: "r" })).toMatchObject({ count: 1 });
    });

    it("replays a key stored without its request (by an earlier release) for any request", async () => {
      const app = act().with(Counter).build();
      const [first] = await store().commit({
        stream: "legacy",
        messages: [{ name: "Incremented", data: { by: 3 } }],
        meta: { correlation: "c", causation: {} },
        expectedVersion: -1,
        idempotencyKey: "old-key",
      });
      const replay = await app.do("increment", target("legacy", "old-key"), { by: 99 });
      expect(replay.map((s) => s.event?.id)).toEqual([first.id]);
      expect((await app.load(Counter, "legacy")).state.count).toBe(3);
    });
  });
});
