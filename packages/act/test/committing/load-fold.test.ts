import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { act, state, store } from "../../src/index.js";
import { actor, freshStore } from "../fixtures.js";

// A load folds a stream's events into one working copy of the state and
// writes a patch of primitives into it in place. These hold it to what a
// fold event by event gives: nothing a caller, a handler or the log holds
// ever changes, and the state handed out is the merged state.

const target = (stream: string) => ({ stream, actor });
const meta = { correlation: "load-fold", causation: {} };

beforeEach(async () => {
  await freshStore();
});

/** Commits `Added` events straight to the store (no action, so no cached snapshot moves). */
const added = (stream: string, ...by: number[]) =>
  store().commit({ stream, messages: by.map((n) => ({ name: "Added", data: { by: n } })), meta });

const Tally = state("Tally", z.object({ n: z.number(), flag: z.boolean().optional() }))
  .init(() => ({ n: 0 }))
  .emits({ Added: z.object({ by: z.number() }) })
  .patch({
    // A negative amount removes the flag, any other sets it: removals and keys added back, in place.
    Added: (e, s) => ({ n: s.n + e.data.by, flag: e.data.by < 0 ? null : true }),
  })
  .on("add", z.object({ by: z.number() }))
  .emit(({ by }) => ["Added", { by }])
  .build();

describe("a load folding into one working copy", () => {
  it("merges primitives and removals as patch does, in the same key order", async () => {
    await added("t", 1, -2, 5);
    const { state: folded } = await act().with(Tally).build().load(Tally, "t");
    expect(folded).toEqual({ n: 4, flag: true });
    // `flag` was removed by -2 and set again by 5: a new key goes last, as with patch.
    expect(Object.keys(folded)).toEqual(["n", "flag"]);
    await added("u", 3, -1);
    const { state: removed } = await act().with(Tally).build().load(Tally, "u");
    expect(removed).toEqual({ n: 2 });
    expect("flag" in removed).toBe(false);
  });

  it("never changes a state the caller holds: an action folding newer events onto its cached snapshot", async () => {
    const app = act().with(Tally).build();
    const [first] = await app.do("add", target("held"), { by: 1 });
    const before = structuredClone(first.state);
    // Events the cache has not seen: the next action folds them onto the snapshot it holds.
    await added("held", 10, 20);
    const [next] = await app.do("add", { ...target("held"), expectedVersion: 2 }, { by: 2 });
    expect(next.state.n).toBe(33);
    expect(first.state).toEqual(before);
    expect(first.state).not.toBe(next.state);
  });

  it("never changes the object init() returns, even when init() hands out the same one every time", async () => {
    const initial = Object.freeze({ n: 0 });
    const shared = { n: 0 };
    const Shared = state("Shared", z.object({ n: z.number() }))
      .init(() => shared)
      .emits({ Added: z.object({ by: z.number() }) })
      .patch({ Added: (e, s) => ({ n: s.n + e.data.by }) })
      .on("add", z.object({ by: z.number() }))
      .emit(({ by }) => ["Added", { by }])
      .build();
    await added("s", 1, 2, 3);
    const app = act().with(Shared).build();
    expect((await app.load(Shared, "s")).state.n).toBe(6);
    expect((await app.load(Shared, "s")).state.n).toBe(6);
    expect(shared).toEqual(initial);
  });

  it("keeps every state a patch handler was given as it was, when the handler's result holds it", async () => {
    type Kept = { n: number; seen: { n: number }[] };
    const History = state("History", z.object({ n: z.number(), seen: z.array(z.object({ n: z.number() })) }))
      .init(() => ({ n: 0, seen: [] }))
      .emits({ Added: z.object({ by: z.number() }), Noted: z.object({}) })
      .patch({
        Added: (e, s) => ({ n: s.n + e.data.by }),
        // Keeps the state it was given: that object must not change afterwards.
        Noted: (_, s: Kept) => ({ seen: [...s.seen, s] }),
      })
      .on("add", z.object({ by: z.number() }))
      .emit(({ by }) => ["Added", { by }])
      .build();
    await store().commit({
      stream: "h",
      messages: [
        { name: "Added", data: { by: 1 } },
        { name: "Noted", data: {} },
        { name: "Added", data: { by: 2 } },
        { name: "Noted", data: {} },
        { name: "Added", data: { by: 4 } },
      ],
      meta,
    });
    const { state: folded } = await act().with(History).build().load(History, "h");
    expect(folded.n).toBe(7);
    expect(folded.seen.map((s) => s.n)).toEqual([1, 3]);
  });

  it("hands each snapshot to onSnapshot with a state of its own, which later events do not change", async () => {
    await added("cb", 1, 2, 3);
    const seen: { n: number }[] = [];
    await act()
      .with(Tally)
      .build()
      .load(Tally, "cb", { onSnapshot: (snapshot) => seen.push(snapshot.state) });
    expect(seen.map((s) => s.n)).toEqual([1, 3, 6]);
    expect(new Set(seen).size).toBe(3);
  });

  it("never changes the events it read, nor a stored snapshot's data it started from", async () => {
    const Snapped = state("Snapped", z.object({ n: z.number() }))
      .init(() => ({ n: 0 }))
      .emits({ Added: z.object({ by: z.number() }) })
      .patch({ Added: (e, s) => ({ n: s.n + e.data.by }) })
      .on("add", z.object({ by: z.number() }))
      .emit(({ by }) => ["Added", { by }])
      .snap((s) => s.patches >= 2)
      .build();
    const app = act().with(Snapped).build();
    for (const by of [1, 2, 3, 4, 5]) await app.do("add", target("snapped"), { by });
    const before: unknown[] = [];
    await store().query((e) => before.push(structuredClone(e.data)), { stream: "snapped", with_snaps: true });
    // A fresh app: no cache, the load starts from the latest stored snapshot.
    const fresh = act().with(Snapped).build();
    expect((await fresh.load(Snapped, "snapped")).state.n).toBe(15);
    expect((await fresh.load(Snapped, "snapped")).state.n).toBe(15);
    const after: unknown[] = [];
    await store().query((e) => after.push(e.data), { stream: "snapped", with_snaps: true });
    expect(after).toEqual(before);
  });
});
