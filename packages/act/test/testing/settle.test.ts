import { beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { act, state, store } from "../../src/index.js";
import { SettleError, settle } from "../../src/testing/index.js";
import { actor, freshStore } from "../fixtures.js";

beforeEach(async () => {
  await freshStore();
});

/** A relay: each stream passes a baton on to the next. */
const Relay = state("Relay", z.object({ hops: z.array(z.number()) }))
  .init(() => ({ hops: [] }))
  .emits({ Passed: z.object({ hop: z.number().int() }) })
  .patch({ Passed: (event, s) => ({ hops: [...s.hops, event.data.hop] }) })
  .on("pass", z.object({ hop: z.number().int() }))
  .emit(({ hop }) => ["Passed", { hop }])
  .build();

const rejected = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail("settle should have thrown"),
    (e: unknown) => e as SettleError
  );

describe("settle", () => {
  it("runs a reaction chain of several hops to its end, keeping the correlation", async () => {
    const app = act()
      .with(Relay)
      .on("Passed")
      .do(async (event, _stream, app) => {
        if (event.data.hop < 4)
          await app.do(
            "pass",
            { stream: `relay-${event.data.hop + 1}`, actor },
            { hop: event.data.hop + 1 },
            { reactingTo: event }
          );
      })
      .build();
    const [first] = await app.do("pass", { stream: "relay-0", actor }, { hop: 0 });
    await app.drain();
    expect((await app.load(Relay, "relay-2")).state.hops).toEqual([]); // one drain is not enough

    const settled = await settle(app);

    for (let hop = 0; hop <= 4; hop++) expect((await app.load(Relay, `relay-${hop}`)).state.hops).toEqual([hop]);
    const chain = await app.queryArray({ correlation: first.event!.meta.correlation });
    expect(chain.map((e) => e.stream)).toEqual(["relay-0", "relay-1", "relay-2", "relay-3", "relay-4"]);
    expect(settled).toEqual({ drains: expect.any(Number), blocked: [] });
    expect(settled.drains).toBeGreaterThanOrEqual(4);
    // Settled means settled: nothing is left for another drain.
    expect((await app.drain()).leased).toEqual([]);
  });

  it("returns at once when there is nothing to do", async () => {
    const app = act().with(Relay).build();
    await app.do("pass", { stream: "r", actor }, { hop: 0 });
    expect(await settle(app)).toEqual({ drains: 0, blocked: [] });
  });

  it("waits out the backoff of a reaction that fails and then succeeds", async () => {
    let calls = 0;
    const app = act()
      .with(Relay)
      .on("Passed")
      .do(
        async () => {
          if (++calls < 3) throw new Error("not yet");
        },
        // Backoffs of 50–100 ms and 100–200 ms: longer than settle's pauses between looks.
        { retryBaseMillis: 100 }
      )
      .to("audit")
      .build();
    await app.do("pass", { stream: "r", actor }, { hop: 0 });
    await settle(app);
    expect(calls).toBe(3);
    expect((await app.stats()).streams).toEqual([
      expect.objectContaining({ stream: "audit", retry: 0, blocked: false, lag: 0 }),
    ]);
  });

  describe("a reaction that keeps failing", () => {
    const failing = () => {
      const calls = { count: 0 };
      const app = act()
        .with(Relay)
        .on("Passed")
        .do(
          async function audit() {
            calls.count++;
            throw new Error("the audit service is down");
          },
          { maxRetries: 2, retryBaseMillis: 5 }
        )
        .to("audit")
        .build();
      return { app, calls };
    };

    it("ends blocked: settle throws, naming the stream and the error", async () => {
      const { app, calls } = failing();
      await app.do("pass", { stream: "r", actor }, { hop: 0 });
      const error = await rejected(settle(app));
      expect(error).toBeInstanceOf(SettleError);
      expect(error.reason).toBe("blocked");
      expect(error.streams).toEqual(["audit"]);
      expect(error.message).toMatch(/"audit" .*3 failed attempts.*the audit service is down/);
      expect(calls.count).toBe(3); // the first attempt and two retries
    });

    it("ends blocked: with allowBlocked, settle returns the blocked stream", async () => {
      const { app } = failing();
      await app.do("pass", { stream: "r", actor }, { hop: 0 });
      const { blocked } = await settle(app, { allowBlocked: true });
      expect(blocked).toEqual([
        expect.objectContaining({ stream: "audit", blocked: true, error: expect.stringContaining("down") }),
      ]);
    });

    it("gives up waiting for a retry after timeoutMillis, naming the stream that waits", async () => {
      const app = act()
        .with(Relay)
        .on("Passed")
        .do(async () => Promise.reject(new Error("down")), { retryBaseMillis: 60_000 })
        .to("mail")
        .build();
      await app.do("pass", { stream: "r", actor }, { hop: 0 });
      const started = Date.now();
      const error = await rejected(settle(app, { timeoutMillis: 200 }));
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(error.reason).toBe("pending");
      expect(error.streams).toEqual(["mail"]);
      expect(error.message).toMatch(/"mail" waits to retry after 1 failed attempt/);
    });
  });

  describe("a reaction loop that never settles", () => {
    const looping = () =>
      act()
        .with(Relay)
        .on("Passed")
        .do(async (event, _stream, app) => {
          await app.do("pass", { stream: event.stream, actor }, { hop: event.data.hop + 1 }, { reactingTo: event });
        })
        .build();

    it("throws after maxDrains, naming the stream and the events the last drain handled", async () => {
      const app = looping();
      await app.do("pass", { stream: "ping", actor }, { hop: 0 });
      const error = await rejected(settle(app, { maxDrains: 20 }));
      expect(error.reason).toBe("moving");
      expect(error.streams).toEqual(["ping"]);
      expect(error.message).toMatch(/after 20 drains.*"ping" handled Passed #\d+/);
      const hops = (await app.load(Relay, "ping")).state.hops.length;
      expect(hops).toBeGreaterThanOrEqual(20);
      expect(hops).toBeLessThan(40);
    });

    it("throws after timeoutMillis when the drains allowed would take longer", async () => {
      const app = looping();
      await app.do("pass", { stream: "ping", actor }, { hop: 0 });
      const started = Date.now();
      const error = await rejected(settle(app, { maxDrains: Number.MAX_SAFE_INTEGER, timeoutMillis: 300 }));
      expect(error.reason).toBe("moving");
      expect(error.message).toMatch(/after 300 ms/);
      expect(Date.now() - started).toBeLessThan(5_000);
    });
  });

  it("looks twice before it returns: a read across streams may leave out the newest events for a moment", async () => {
    const handled: number[] = [];
    const app = act()
      .with(Relay)
      .on("Passed")
      .do(async (event) => {
        handled.push(event.data.hop);
      })
      .to("audit")
      .build();
    await app.do("pass", { stream: "r", actor }, { hop: 7 });
    // As PostgreSQL's reads across streams do while an older transaction
    // ends: the first pass (settle's correlation, then the drain's) reads nothing.
    const real = store().query.bind(store());
    let hidden = 2;
    const spy = vi
      .spyOn(store(), "query")
      .mockImplementation(async (callback, query) =>
        query?.stream === undefined && hidden-- > 0 ? 0 : real(callback, query)
      );
    try {
      await settle(app);
    } finally {
      spy.mockRestore();
    }
    expect(hidden).toBeLessThan(0);
    expect(handled).toEqual([7]);
  });

  it("finds new events after the store was dropped, with an app built before", async () => {
    const handled: number[] = [];
    const app = act()
      .with(Relay)
      .on("Passed")
      .do(async (event) => {
        handled.push(event.data.hop);
      })
      .to("audit")
      .build();
    for (let hop = 1; hop <= 3; hop++) await app.do("pass", { stream: `r-${hop}`, actor }, { hop });
    await settle(app);
    await store().drop();
    await app.do("pass", { stream: "after-drop", actor }, { hop: 99 });
    await settle(app);
    expect(handled).toEqual([1, 2, 3, 99]);
  });
});
