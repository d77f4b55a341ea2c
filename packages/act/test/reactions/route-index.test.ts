/**
 * The route index against a brute-force model: whatever it answers for a
 * stream and a range must be exactly the ids of the events reacting into that
 * stream there, and where it cannot vouch for the range it must say so
 * (`undefined`) — including after it dropped ids a drain read past and an
 * operator moved the watermark back.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InMemoryStore } from "../../src/index.js";
import { RouteIndex } from "../../src/reactions/route-index.js";
import { announce, replayPath, seedLabel, seedRuns } from "../seeds.js";

const runs = seedRuns("ROUTES", { seed: 4_112_026, numRuns: 300 }, 200);

/** The routes of the log's events in `(after, last]`: target → ids, ascending. */
function pass(log: string[][], after: number, last: number): Map<string, number[]> {
  const routes = new Map<string, number[]>();
  for (let id = after + 1; id <= last; id++)
    for (const target of new Set(log[id])) routes.set(target, [...(routes.get(target) ?? []), id]);
  return routes;
}

/** What the index must answer when it answers: the ids in `(at, head]` reacting into `stream`. */
const truth = (log: string[][], stream: string, at: number, head: number) =>
  log.flatMap((targets, id) => (id > at && id <= head && targets.includes(stream) ? [id] : []));

describe("RouteIndex", () => {
  const a = new InMemoryStore();
  // Event 0 → s1; 1 → s2; 2 → s1 twice (two reactions); 3 → s1 and s2; 4 → nothing.
  const log = [["s1"], ["s2"], ["s1", "s1"], ["s1", "s2"], []];

  it("vouches for every stream after passes over every event, and after a backfill's passes only for streams its events alone feed", () => {
    const index = new RouteIndex();
    expect(index.vouches(["A", "B"])).toBe(true);
    const scope = new Set(["A"]);
    index.add(a, -1, 2, pass(log, -1, 2), [], scope);
    expect(index.vouches(["A"])).toBe(true);
    expect(index.vouches(["A", "B"])).toBe(false);
    expect(index.vouches([undefined])).toBe(false); // a reaction the app does not know
    expect(index.ids(a, "s1", -1, 2)).toEqual([0, 2]);
    // The same names continue the range; other names start it over.
    index.add(a, 2, 3, pass(log, 2, 3), [], new Set(["A"]));
    expect(index.ids(a, "s1", -1, 3)).toEqual([0, 2, 3]);
    index.add(a, 3, 4, pass(log, 3, 4), [], new Set(["A", "B"]));
    expect(index.ids(a, "s1", -1, 4)).toBeUndefined();
    expect(index.ids(a, "s1", 3, 4)).toEqual([]);
    expect(index.vouches(["A", "B"])).toBe(true);
    // Passes over every event after scoped ones start over as well.
    index.add(a, 4, 4, new Map());
    expect(index.vouches(["C"])).toBe(true);
    expect(index.ids(a, "s1", 3, 4)).toBeUndefined();
  });

  it("answers the ids of a covered range, and undefined past what correlation read", () => {
    const index = new RouteIndex();
    index.add(a, -1, 2, pass(log, -1, 2));
    expect(index.ids(a, "s1", -1, 2)).toEqual([0, 2]);
    expect(index.ids(a, "s2", -1, 2)).toEqual([1]);
    expect(index.ids(a, "s3", -1, 2)).toEqual([]);
    expect(index.ids(a, "s1", -1, 3)).toBeUndefined();
    index.add(a, 2, 4, pass(log, 2, 4));
    expect(index.ids(a, "s1", -1, 4)).toEqual([0, 2, 3]);
    // Ids are not repeated when a pass overlaps what is covered.
    index.add(a, 1, 4, pass(log, 1, 4));
    expect(index.ids(a, "s1", -1, 4)).toEqual([0, 2, 3]);
  });

  it("drops ids a drain read past, and answers undefined when a reset moves the watermark back before them", () => {
    const index = new RouteIndex();
    index.add(a, -1, 4, pass(log, -1, 4));
    expect(index.ids(a, "s1", 0, 4)).toEqual([2, 3]);
    expect(index.ids(a, "s1", 2, 4)).toEqual([3]);
    // An operator reset the stream to the start: the dropped ids are gone.
    expect(index.ids(a, "s1", -1, 4)).toBeUndefined();
    expect(index.ids(a, "s1", 1, 4)).toBeUndefined();
    // Other streams keep their coverage.
    expect(index.ids(a, "s2", -1, 4)).toEqual([1, 3]);
  });

  it("starts over after a gap, on another store, and past its limit", () => {
    const index = new RouteIndex();
    index.add(a, -1, 1, pass(log, -1, 1));
    index.add(a, 2, 4, pass(log, 2, 4)); // event 2 was never given
    expect(index.ids(a, "s1", -1, 4)).toBeUndefined();
    expect(index.ids(a, "s1", 2, 4)).toEqual([3]);
    const b = new InMemoryStore();
    expect(index.ids(b, "s1", 2, 4)).toBeUndefined();
    index.add(b, -1, 0, pass(log, -1, 0));
    expect(index.ids(a, "s1", 2, 4)).toBeUndefined();
    expect(index.ids(b, "s1", -1, 0)).toEqual([0]);
    // Three entries (streams and ids) kept at most: a pass that overflows restarts coverage at its end.
    const small = new RouteIndex(3);
    small.add(b, -1, 0, pass(log, -1, 0));
    expect(small.ids(b, "s1", -1, 0)).toEqual([0]);
    small.add(b, 0, 4, pass(log, 0, 4));
    expect(small.ids(b, "s1", -1, 4)).toBeUndefined();
    expect(small.ids(b, "s1", 4, 4)).toEqual([]);
  });

  it("keeps the events a pass read for the next drain, hands each out once, and forgets the oldest past its room", () => {
    const index = new RouteIndex(100, 2);
    const event = (id: number) =>
      ({ id, name: "E", stream: "x", version: id, created: new Date(0), data: {}, meta: {} }) as never;
    const [e0, e1, e2, e3] = [0, 1, 2, 3].map(event);
    index.add(a, -1, 2, pass(log, -1, 2), [e0, e1, e2]);
    // Room for two: the oldest went first.
    expect([...index.take(a, [0, 1, 2]).values()]).toEqual([e1, e2]);
    expect(index.take(a, [1, 2]).size).toBe(0);
    index.add(a, 2, 3, pass(log, 2, 3), [e3]);
    // Another store's drain gets nothing; a gap starts over without them.
    expect(index.take(new InMemoryStore(), [3]).size).toBe(0);
    index.add(a, 4, 4, pass(log, 4, 4));
    expect(index.take(a, [3]).size).toBe(0);
  });

  it("keeps again the events a drain put back, for the same store only and within its room", () => {
    const index = new RouteIndex(100, 2);
    const event = (id: number) =>
      ({ id, name: "E", stream: "x", version: id, created: new Date(0), data: {}, meta: {} }) as never;
    const [e0, e1, e2] = [0, 1, 2].map(event);
    index.add(a, -1, 1, pass(log, -1, 1), [e0, e1]);
    expect(index.take(a, [0, 1]).size).toBe(2);
    index.restore(new InMemoryStore(), [e0]);
    expect(index.take(a, [0]).size).toBe(0);
    index.restore(a, [e0, e1, e2]);
    // Room for two: the third is read from the store.
    expect([...index.take(a, [0, 1, 2]).values()]).toEqual([e0, e1]);
  });

  /** A program: a log, correlation passes of random lengths (some leaving gaps, some reading again), and reads with watermarks that move forward or back. */
  const programArb = fc.record({
    log: fc.array(fc.array(fc.constantFrom("s1", "s2", "s3"), { maxLength: 3 }), { minLength: 1, maxLength: 30 }),
    limit: fc.integer({ min: 2, max: 40 }),
    keep: fc.integer({ min: 0, max: 12 }),
    steps: fc.array(
      fc.oneof(
        fc.record({
          kind: fc.constant("pass" as const),
          length: fc.integer({ min: 0, max: 8 }),
          gap: fc.boolean(),
          overlap: fc.integer({ min: 0, max: 3 }),
        }),
        fc.record({
          kind: fc.constant("take" as const),
          ids: fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 31 }),
        }),
        fc.record({
          kind: fc.constant("read" as const),
          stream: fc.constantFrom("s1", "s2", "s3"),
          at: fc.integer({ min: -1, max: 30 }),
          head: fc.integer({ min: 0, max: 30 }),
        })
      ),
      { maxLength: 40 }
    ),
  });

  for (const run of runs)
    it(`answers only what the log holds, whatever the passes and watermarks (${seedLabel(run)})`, () => {
      announce("route index", "ROUTES", run);
      let answered = 0;
      fc.assert(
        fc.property(programArb, ({ log, limit, keep, steps }) => {
          const index = new RouteIndex(limit, keep);
          const store = new InMemoryStore();
          let correlated = -1;
          // Each pass reads fresh event objects; one may be handed out once at most.
          const handedOut = new Set<object>();
          for (const step of steps) {
            if (step.kind === "pass") {
              const after = step.gap
                ? Math.min(log.length - 1, correlated + 1)
                : Math.max(-1, correlated - step.overlap);
              const last = Math.min(log.length - 1, after + step.length);
              const routes = pass(log, after, last);
              const read = [...new Set([...routes.values()].flat())]
                .sort((x, y) => x - y)
                .map((id) => ({
                  id,
                  name: "E",
                  stream: `e-${id}`,
                  version: 0,
                  created: new Date(0),
                  data: {},
                  meta: {},
                }));
              index.add(store, after, last, routes, read as never);
              correlated = Math.max(correlated, last);
            } else if (step.kind === "take") {
              const taken = index.take(store, step.ids);
              expect(taken.size).toBeLessThanOrEqual(keep);
              for (const [id, event] of taken) {
                expect(step.ids).toContain(id);
                expect(event.id).toBe(id);
                expect(log[id]?.length).toBeGreaterThan(0);
                expect(handedOut.has(event)).toBe(false);
                handedOut.add(event);
              }
            } else {
              const head = Math.min(step.head, log.length - 1);
              const count = index.count(store, step.stream, Math.min(step.at, head), head);
              const ids = index.ids(store, step.stream, Math.min(step.at, head), head);
              // stats() counts what a drain would read.
              expect(count).toBe(ids?.length);
              // As far as the index goes, whether or not that reaches the head.
              const covered = index.covered(store, step.stream, Math.min(step.at, head));
              if (covered) expect(covered.ids).toEqual(truth(log, step.stream, Math.min(step.at, head), covered.to));
              if (ids === undefined) continue;
              answered++;
              expect(ids).toEqual(truth(log, step.stream, Math.min(step.at, head), head));
            }
          }
        }),
        { seed: run.seed, numRuns: run.numRuns, ...replayPath("ROUTES") }
      );
      // The property says nothing if the index never answers: it must, in a
      // good share of the programs (about one answer per program on average;
      // a quarter leaves room for any seed).
      expect(answered).toBeGreaterThan(run.numRuns / 4);
    });
});
