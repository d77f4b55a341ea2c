/**
 * Time travel: a load at a point of a stream's history equals the fold of
 * the stream's events up to that point — checked over random streams with
 * snapshots of two states, against a trivial model (the fold of the log).
 */
import fc from "fast-check";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { act, SNAP_EVENT, sleep, state, store, ValidationError } from "../src/index.js";
import { actor, freshStore } from "./fixtures.js";
import { announce, replayPath, seedLabel, seedRuns } from "./seeds.js";

const runs = seedRuns("LOAD_AT", { seed: 424_242, numRuns: 60 }, 40);

beforeEach(async () => {
  await freshStore();
});

const tally = (snapEvery: number) =>
  state("Tally", z.object({ total: z.number(), seen: z.array(z.number()) }))
    .init(() => ({ total: 0, seen: [] }))
    .emits({ Added: z.object({ n: z.number() }) })
    .patch({ Added: (e, s) => ({ total: s.total + e.data.n, seen: [...s.seen, e.data.n] }) })
    .on("add", z.object({ n: z.number() }))
    .emit(({ n }) => ["Added", { n }])
    .snap((s) => s.patches >= snapEvery)
    .build();

const Other = state("Other", z.object({ marks: z.number() }))
  .init(() => ({ marks: 0 }))
  .emits({ Marked: z.object({}) })
  .patch({ Marked: (_, s) => ({ marks: s.marks + 1 }) })
  .on("mark", z.object({}))
  .emit(() => ["Marked", {}])
  .snap(() => true)
  .build();

describe("load at a point in time", () => {
  for (const seedRun of runs)
    it(`equals the fold of the events up to that point, by id or by version (${seedLabel(seedRun)})`, async () => {
      announce("time travel", "LOAD_AT", seedRun);
      let run = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 4 }),
          fc.array(fc.oneof(fc.integer({ min: -5, max: 9 }), fc.constant(null)), { minLength: 1, maxLength: 25 }),
          fc.nat(),
          async (snapEvery, steps, pick) => {
            const Tally = tally(snapEvery);
            const app = act().with(Tally).with(Other).build();
            const stream = `t-${run++}`;
            for (const n of steps)
              if (n === null) await app.do("mark", { stream, actor }, {});
              else await app.do("add", { stream, actor }, { n });
            const log = await app.queryArray({ stream, with_snaps: true });
            const point = log[pick % log.length];
            const fold = (upTo: (e: (typeof log)[number]) => boolean) => {
              const seen = log.filter((e) => e.name === "Added" && upTo(e)).map((e) => (e.data as { n: number }).n);
              return { total: seen.reduce((a, b) => a + b, 0), seen };
            };
            const byVersion = await app.load(Tally, stream, { at: { version: point.version } });
            expect(byVersion.state).toEqual(fold((e) => e.version <= point.version));
            expect(byVersion.event?.version).toBe(point.version);
            const byId = await app.load(Tally, stream, { at: { id: point.id } });
            expect(byId.state).toEqual(byVersion.state);
            const now = await app.load(Tally, stream);
            expect((await app.load(Tally, stream, { at: { id: log[log.length - 1].id } })).state).toEqual(now.state);
          }
        ),
        { seed: seedRun.seed, numRuns: seedRun.numRuns, ...replayPath("LOAD_AT") }
      );
    });

  it("starts at a snapshot at or before the point, and reads by time", async () => {
    const Tally = tally(2);
    const app = act().with(Tally).build();
    for (const n of [1, 2, 3]) await app.do("add", { stream: "s", actor }, { n });
    await sleep(5);
    const cut = new Date();
    await sleep(5);
    for (const n of [4, 5]) await app.do("add", { stream: "s", actor }, { n });
    const read: string[] = [];
    const then = await app.load(Tally, "s", { at: { time: cut }, onSnapshot: (s) => read.push(s.event!.name) });
    expect(then.state.total).toBe(6);
    // v0 Added, v1 Added, v2 snapshot (1+2), v3 Added: starts at the snapshot
    expect(read).toEqual(["Added"]);
    expect(then.snaps).toBe(1);
    expect((await app.load(Tally, "s", { at: { time: new Date(0) } })).state.total).toBe(0);
    expect((await app.queryArray({ stream: "s", with_snaps: true })).map((e) => e.name)).toContain(SNAP_EVENT);
  });

  it("as of a time, includes the events created at that very millisecond and none after", async () => {
    vi.useFakeTimers({ now: 1_000_000, toFake: ["Date"] });
    try {
      const Tally = tally(100);
      const app = act().with(Tally).build();
      await app.do("add", { stream: "ms", actor }, { n: 1 });
      vi.setSystemTime(1_000_001);
      await app.do("add", { stream: "ms", actor }, { n: 2 });
      vi.setSystemTime(1_000_002);
      await app.do("add", { stream: "ms", actor }, { n: 4 });
      expect((await app.load(Tally, "ms", undefined, { time: new Date(1_000_001) })).state.total).toBe(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it("refuses a point that is not exactly one of id, version or time", async () => {
    const app = act().with(tally(5)).build();
    await expect(app.load(tally(5), "s", { at: { id: 1, version: 2 } as never })).rejects.toBeInstanceOf(
      ValidationError
    );
    await expect(app.load(tally(5), "s", { at: {} as never })).rejects.toThrow(/exactly one of id, version or time/);
  });
});

describe("time travel reads few snapshots", () => {
  it("finds the newest snapshot at or before the point on a later page, reading backwards, by id and by version", async () => {
    const Tally = tally(1);
    const app = act().with(Tally).build();
    for (let n = 0; n < 30; n++) await app.do("add", { stream: "pages", actor }, { n });
    const events = await app.queryArray({ stream: "pages", with_snaps: true });
    // Versions alternate Added (even) and a snapshot (odd): 60 in all, 8 snapshots a page from the newest.
    const at = events.find((e) => e.version === 22)!; // an Added: the snapshot at 21 is where it starts
    for (const point of [{ id: at.id }, { version: 22 }]) {
      const folded: string[] = [];
      const then = await app.load(Tally, "pages", { at: point, onSnapshot: (s) => folded.push(s.event!.name) });
      expect(then.state.seen, JSON.stringify(point)).toEqual(Array.from({ length: 12 }, (_, n) => n));
      expect(folded, JSON.stringify(point)).toEqual(["Added"]);
    }
  });

  it("reads the snapshot it starts from and a few more, not every snapshot of the stream", async () => {
    const Tally = tally(1); // a snapshot after every event
    const app = act().with(Tally).build();
    for (let n = 0; n < 60; n++) await app.do("add", { stream: "many", actor }, { n });
    const original = store().query.bind(store());
    let snapshotsRead = 0;
    const query = vi.spyOn(store(), "query").mockImplementation(async (callback, q) => {
      const count = await original(callback, q);
      if (q?.names?.includes(SNAP_EVENT)) snapshotsRead += count;
      return count;
    });
    const folded: number[] = [];
    const at = await app.load(Tally, "many", {
      at: { version: 100 },
      onSnapshot: (s) => folded.push(s.event!.version),
    });
    query.mockRestore();
    expect(at.state.seen).toHaveLength(51);
    expect(snapshotsRead).toBeLessThanOrEqual(16);
    // It started at the newest snapshot at or before version 100 (every other
    // version is one), past the first page of snapshots read backwards.
    expect(folded).toEqual([100]);
  });
});
