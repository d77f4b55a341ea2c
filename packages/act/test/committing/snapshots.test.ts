import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { act, ConcurrencyError, InvariantError, SNAP_EVENT, state, store, ValidationError } from "../../src/index.js";
import { logger } from "../../src/core/ports.js";
import { actor, freshStore } from "../fixtures.js";

// What the event sourcing of an action does around its commit that users
// see only in the log and the logs: snapshots of older definitions ignored
// (and said so once), snapshot writes and rules that fail, user code that
// throws the library's own errors.

const target = (stream: string) => ({ stream, actor });

beforeEach(async () => {
  await freshStore();
  for (const level of ["info", "debug", "error", "warn"] as const) vi.spyOn(logger, level).mockImplementation(() => {});
});
afterEach(() => vi.restoreAllMocks());

/** A counter whose snapshots belong to definition `version` (a new name per test: the notice is once per definition). */
const counter = (name: string, version: number, rule: (s: { patches: number }) => boolean = () => true) =>
  state(name, z.object({ n: z.number() }))
    .init(() => ({ n: 0 }))
    .emits({ Added: z.object({ by: z.number() }) })
    .patch({ Added: (e, s) => ({ n: s.n + e.data.by }) })
    .on("add", z.object({ by: z.number() }))
    .emit(({ by }) => ["Added", { by }])
    .snap(rule, { version })
    .build();

const snapshotsOf = async (stream: string) => {
  const of: unknown[] = [];
  await store().query((e) => e.name === SNAP_EVENT && of.push((e.data as { of: string }).of), {
    stream,
    with_snaps: true,
  });
  return of;
};

describe("snapshots of an older definition", () => {
  it("are ignored, rebuilding from the events, and said so once per definition", async () => {
    const older = counter("Tally", 0);
    const newer = counter("Tally", 1);
    await act().with(older).build().do("add", target("t"), { by: 2 });
    await act().with(older).build().do("add", target("t"), { by: 3 });
    const app = act().with(newer).build();
    expect((await app.load(newer, "t")).state.n).toBe(5);
    await app.load(newer, "t");
    const notices = vi
      .mocked(logger.info)
      .mock.calls.filter(([message]) => String(message).includes("older definition"));
    expect(notices).toEqual([
      ['snapshots written by an older definition of state "Tally" are ignored; streams are rebuilt from their events'],
    ]);
  });

  it("of another state sharing the stream are not this state's older ones: nothing is said", async () => {
    await act().with(counter("Other", 0)).build().do("add", target("shared"), { by: 1 });
    const mine = counter("Mine", 0, () => false);
    // The same event folds into both; only the other state's snapshot is skipped.
    expect((await act().with(mine).build().load(mine, "shared")).state.n).toBe(1);
    expect(logger.info).not.toHaveBeenCalled();
  });
});

describe("a snapshot that cannot be written", () => {
  it("because another writer moved the stream is skipped quietly (debug), anything else is logged as an error", async () => {
    const Kept = counter("Kept", 0);
    const app = act().with(Kept).build();
    const commit = store().commit.bind(store());
    let failure: Error = new ConcurrencyError("k", 1, [], 0);
    vi.spyOn(store(), "commit").mockImplementation((asked) =>
      asked.messages[0].name === SNAP_EVENT ? Promise.reject(failure) : commit(asked)
    );
    await app.do("add", target("k"), { by: 1 });
    expect(logger.debug).toHaveBeenCalledWith(failure, 'snapshot of stream "k" skipped: the stream moved');
    expect(logger.error).not.toHaveBeenCalled();
    failure = new Error("disk full");
    await app.do("add", target("k"), { by: 1 });
    expect(logger.error).toHaveBeenCalledWith(failure, 'snapshot of stream "k" not written');
    expect(await snapshotsOf("k")).toEqual([]);
  });

  it("because the snap rule threw is not written, and the rule's failure is logged", async () => {
    const Broken = counter("Broken", 0, () => {
      throw new Error("rule bug");
    });
    const [snapshot] = await act().with(Broken).build().do("add", target("b"), { by: 1 });
    expect(snapshot.state.n).toBe(1);
    expect(await snapshotsOf("b")).toEqual([]);
    expect(logger.error).toHaveBeenCalledWith(
      expect.any(Error),
      'snap rule of state "Broken" threw; no snapshot written'
    );
  });
});

describe("user code that throws", () => {
  const Strict = state("Strict", z.object({ n: z.number() }))
    .init(() => ({ n: 0 }))
    .emits({ Set: z.object({ n: z.number() }) })
    .patch({
      Set: (e) => {
        if (e.data.n < 0) throw new RangeError("negative");
        return { n: e.data.n };
      },
    })
    .on("set", z.object({ n: z.number(), raise: z.enum(["validation", "invariant", "other"]).optional() }))
    .emit(({ n, raise }, snapshot, t) => {
      if (raise === "validation") throw new ValidationError("n", n, [{ path: "", message: "too odd" }]);
      if (raise === "invariant") throw new InvariantError("set", { n }, t, snapshot as never, "must be even");
      if (raise === "other") throw new TypeError("bug");
      return ["Set", { n }];
    })
    .build();
  const app = act().with(Strict).build();

  it("with the library's own validation or invariant error reaches the caller as it is", async () => {
    await expect(app.do("set", target("s"), { n: 1, raise: "validation" })).rejects.toBeInstanceOf(ValidationError);
    await expect(app.do("set", target("s"), { n: 1, raise: "invariant" })).rejects.toBeInstanceOf(InvariantError);
  });

  it("with anything else is named by action and stream, with what it threw as the cause", async () => {
    const handler = await app.do("set", target("s"), { n: 1, raise: "other" }).catch((error: Error) => error);
    expect(handler).toMatchObject({ message: 'Handler of action "set" on stream "s" threw: bug' });
    expect((handler as Error).cause).toBeInstanceOf(TypeError);
    const patch = await app.do("set", target("s"), { n: -1 }).catch((error: Error) => error);
    expect((patch as Error).message).toBe(
      'Patch handler of event "Set" in state "Strict" threw on stream "s": negative'
    );
    expect((patch as Error).cause).toBeInstanceOf(RangeError);
  });
});

describe("an action with an expected version on a stream this app holds", () => {
  it("reads only the events after the snapshot it holds", async () => {
    const Counted = counter("Counted", 0, () => false);
    const mine = act().with(Counted).build();
    await mine.do("add", target("c"), { by: 1 });
    await mine.do("add", target("c"), { by: 1 });
    await act().with(Counted).build().do("add", target("c"), { by: 1 }); // another process
    const reads = vi.spyOn(store(), "query");
    const [snapshot] = await mine.do("add", { ...target("c"), expectedVersion: 2 }, { by: 1 });
    expect(snapshot).toMatchObject({ state: { n: 4 }, event: { version: 3 } });
    expect(reads.mock.calls.map(([, query]) => query)).toEqual([{ stream: "c", after: 1, with_snaps: true }]);
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it("reads the stream again when it was dropped and written again since", async () => {
    const Counted = counter("Rewritten", 0, () => false);
    const mine = act().with(Counted).build();
    await mine.do("add", target("c"), { by: 1 });
    await mine.do("add", target("c"), { by: 1 });
    await store().drop();
    const other = act().with(Counted).build();
    for (const by of [10, 20, 30]) await other.do("add", target("c"), { by });
    const [snapshot] = await mine.do("add", { ...target("c"), expectedVersion: 2 }, { by: 1 });
    expect(snapshot).toMatchObject({ state: { n: 61 }, event: { version: 3 } });
    expect(logger.warn).toHaveBeenCalledWith(
      'stream "c" does not continue the snapshot held at version 1; reading it again'
    );
  });
});
