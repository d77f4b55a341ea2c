import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { handle } from "../../src/reactions/handle.js";
import { logger } from "../../src/core/ports.js";
import type { Job } from "../../src/reactions/read-batches.js";
import type { Committed, Schemas } from "../../src/types/action.js";
import type { Lease } from "../../src/types/lease.js";
import type { ReactionContext, ReactionHandler, ReactionOptions } from "../../src/types/reaction.js";

// `handle` runs one leased stream's batch: which reactions run, what the
// acknowledgement or block then records (watermark, the reactions already
// done on a partly handled event, the retry count) and whether that is
// progress. The drains of the app tests reach it through the store; here
// each outcome is asserted exactly.

const options: ReactionOptions = { blockOnError: true, maxRetries: 2, retryBaseMillis: 100, retryMaxMillis: 100 };

const event = (id: number): Committed<Schemas, string> => ({
  id,
  stream: "source",
  version: id,
  created: new Date(0),
  name: "Ticked",
  data: {},
  meta: { correlation: "c", causation: {} },
});

type Handler = ReactionHandler<Schemas, string, Schemas>;

const job = (id: number, key: string, handler: Handler, more: Partial<ReactionOptions> = {}): Job => ({
  event: event(id),
  key,
  reaction: { handler, resolver: () => ({ target: "t" }), options: { ...options, ...more } } as Job["reaction"],
});

const lease = (more: Partial<Lease> = {}): Lease => ({ stream: "t", by: "me", at: 0, retry: 0, token: 7, ...more });

/** A lease kept for the whole batch; never fresh, so `ready` is asked before each handler. */
const held = (ready = () => Promise.resolve(true)) => ({
  ready,
  fresh: false,
  reason: undefined as Error | undefined,
  signal: new AbortController().signal,
  token: 7,
});

const app = { do: () => Promise.resolve([]) } as never;

/**
 * Handles `jobs`, read up to `end`, on `lease` (by default `lease()`) kept by
 * `keeper` (by default `held(ready)`), for `target` (by default `app`).
 */
const run = (
  jobs: Job[],
  end: number,
  more: { lease?: Lease; ready?: () => Promise<boolean>; keeper?: ReturnType<typeof held>; target?: never } = {}
) =>
  handle({ lease: more.lease ?? lease(), events: [], jobs, end }, more.target ?? app, more.keeper ?? held(more.ready));

const ok =
  (runs: string[], name: string): Handler =>
  async (e) =>
    void runs.push(`${e.id}:${name}`);
const failing =
  (runs: string[], name: string): Handler =>
  async (e) => {
    runs.push(`${e.id}:${name}`);
    throw new Error(`${name} is down`);
  };

beforeEach(() => {
  vi.spyOn(logger, "error").mockImplementation(() => {});
  vi.spyOn(logger, "warn").mockImplementation(() => {});
});
afterEach(() => vi.restoreAllMocks());

describe("a batch's outcome", () => {
  it("moves the watermark to the last event when every reaction ran, with nothing left in done", async () => {
    const runs: string[] = [];
    const outcome = await run([job(1, "a", ok(runs, "a")), job(1, "b", ok(runs, "b")), job(2, "a", ok(runs, "a"))], 2);
    expect(runs).toEqual(["1:a", "1:b", "2:a"]);
    expect(outcome).toEqual({ ack: { ...lease(), at: 2, done: [], retry: 0 }, progress: true });
  });

  it("moves the watermark to the end of what was read when it lies past the last job", async () => {
    const outcome = await run([job(1, "a", ok([], "a"))], 9);
    expect(outcome.ack).toMatchObject({ at: 9 });
  });

  it("is no progress when nothing was read past the watermark", async () => {
    const outcome = await run([], 4, { lease: lease({ at: 4 }) });
    expect(outcome).toEqual({ ack: { ...lease({ at: 4 }), at: 4, done: [], retry: 0 }, progress: false });
  });

  it("on a failure after another reaction to the same event ran, records that one as done and the retry, not the event", async () => {
    const runs: string[] = [];
    const outcome = await run([job(1, "a", ok(runs, "a")), job(1, "b", failing(runs, "b"))], 1);
    expect(outcome.progress).toBe(false);
    expect(outcome.ack).toMatchObject({ at: 0, done: ["1:a"], retry: 1 });
    expect(outcome.ack?.delay).toBeGreaterThan(0);
  });

  it("on a failure after earlier events ran, is progress up to them", async () => {
    const runs: string[] = [];
    const outcome = await run([job(1, "a", ok(runs, "a")), job(2, "a", failing(runs, "a"))], 2);
    expect(outcome.progress).toBe(true);
    expect(outcome.ack).toMatchObject({ at: 1, done: [], retry: 1 });
  });

  it("on a retry, runs only the reactions not done yet, and moves past the event once they ran", async () => {
    const runs: string[] = [];
    const outcome = await run([job(1, "a", ok(runs, "a")), job(1, "b", ok(runs, "b")), job(2, "a", ok(runs, "a"))], 2, {
      lease: lease({ done: ["1:a"], retry: 1 }),
    });
    expect(runs).toEqual(["1:b", "2:a"]);
    expect(outcome).toEqual({
      ack: { ...lease({ done: ["1:a"], retry: 1 }), at: 2, done: [], retry: 0 },
      progress: true,
    });
  });

  it("on a retry that fails again, keeps the watermark before the partly handled event", async () => {
    const runs: string[] = [];
    const outcome = await run([job(1, "a", ok(runs, "a")), job(1, "b", failing(runs, "b"))], 1, {
      lease: lease({ done: ["1:a"], retry: 1 }),
    });
    expect(runs).toEqual(["1:b"]);
    expect(outcome).toMatchObject({ ack: { at: 0, done: ["1:a"], retry: 2 }, progress: false });
  });

  it("moves past an event whose every reaction is done, even when it is the batch's last", async () => {
    const outcome = await run([job(1, "a", ok([], "a")), job(1, "b", ok([], "b"))], 0, {
      lease: lease({ done: ["1:a", "1:b"] }),
    });
    expect(outcome).toMatchObject({ ack: { at: 1, done: [] }, progress: true });
  });

  it("counts a reaction done under a name it had before", async () => {
    const runs: string[] = [];
    const renamed = job(1, "b", ok(runs, "b"));
    const outcome = await run(
      [job(1, "a", ok(runs, "a")), { ...renamed, reaction: { ...renamed.reaction, aliases: ["old-b"] } }],
      1,
      { lease: lease({ done: ["1:a", "1:old-b"] }) }
    );
    expect(runs).toEqual([]);
    expect(outcome).toMatchObject({ ack: { at: 1, done: [] }, progress: true });
  });

  it("keeps what was done on a later event the stream had reached before it moved back", async () => {
    const runs: string[] = [];
    const outcome = await run(
      [job(1, "a", ok(runs, "a")), job(2, "a", failing(runs, "a")), job(3, "a", ok(runs, "a"))],
      3,
      { lease: lease({ done: ["3:a"] }) }
    );
    expect(outcome).toMatchObject({ ack: { at: 1, done: ["3:a"], retry: 1 }, progress: true });
  });

  it("blocks past maxRetries with the reaction, event and cause in the error", async () => {
    const outcome = await run(
      // Inline, so the function has no name (a const would lend it its own).
      [
        job(1, "a", async () => {
          throw new Error("down");
        }),
      ],
      1,
      { lease: lease({ retry: 2 }) }
    );
    expect(outcome.ack).toBeUndefined();
    expect(outcome.block).toMatchObject({ at: 0, retry: 3 });
    expect(outcome.block?.error).toBe('Reaction "anonymous" to event "Ticked" #1 on stream "t" failed: down');
  });

  it("names what was thrown when it is not an error", async () => {
    const throwsNothing: Handler = async function notify() {
      throw undefined;
    };
    const outcome = await run([job(1, "a", throwsNothing, { maxRetries: 0 })], 1);
    expect(outcome.block?.error).toBe('Reaction "notify" to event "Ticked" #1 on stream "t" failed: undefined');
  });

  it("with blockOnError off, skips the reaction past maxRetries, warns, and goes on", async () => {
    const runs: string[] = [];
    const outcome = await run(
      [job(1, "a", failing(runs, "a"), { maxRetries: 0, blockOnError: false }), job(2, "a", ok(runs, "a"))],
      2,
      { lease: lease({ retry: 0 }) }
    );
    expect(runs).toEqual(["1:a", "2:a"]);
    expect(outcome).toMatchObject({ ack: { at: 2, done: [], retry: 0 }, progress: true });
    expect(logger.warn).toHaveBeenCalledWith(expect.stringContaining("skipped after 1 failures (blockOnError is off)"));
  });
});

describe("a lease that stops being ready", () => {
  it("starts no further handler and offers what ran so far, with the reactions done", async () => {
    const runs: string[] = [];
    let checks = 0;
    const outcome = await run([job(1, "a", ok(runs, "a")), job(2, "a", ok(runs, "a")), job(2, "b", ok(runs, "b"))], 2, {
      ready: () => Promise.resolve(++checks < 3),
    });
    expect(runs).toEqual(["1:a", "2:a"]);
    expect(outcome).toEqual({ ack: { ...lease(), at: 1, done: ["2:a"], retry: 0 }, progress: true });
  });

  it("is no progress when it was lost before the first handler", async () => {
    const outcome = await run([job(1, "a", ok([], "a"))], 1, { ready: () => Promise.resolve(false) });
    expect(outcome).toEqual({ ack: { ...lease(), at: 0, done: [], retry: 0 }, progress: false });
  });
});

describe("what a handler is given", () => {
  it("starts handlers on a fresh lease without asking whether it is ready", async () => {
    const runs: string[] = [];
    const ready = vi.fn(() => Promise.resolve(false));
    const outcome = await run([job(1, "a", ok(runs, "a")), job(2, "a", ok(runs, "a"))], 2, {
      keeper: { ...held(ready), fresh: true },
    });
    expect(ready).not.toHaveBeenCalled();
    expect(runs).toEqual(["1:a", "2:a"]);
    expect(outcome).toMatchObject({ ack: { at: 2 }, progress: true });
  });

  it("tells each handler its stream, its attempt and the lease's token, and hands it the keeper's signal", async () => {
    const keeper = held();
    const seen: unknown[] = [];
    const handler: Handler = async (_event, stream, _app, context) =>
      void seen.push({ stream, attempt: context.attempt, token: context.token, signal: context.signal });
    await run([job(1, "a", handler)], 1, { lease: lease({ retry: 1 }), keeper });
    expect(seen).toEqual([{ stream: "t", attempt: 2, token: 7, signal: keeper.signal }]);
  });

  it("gives a context that a wrapper can copy with a spread and keep its signal, token and attempt", async () => {
    const keeper = held();
    const copies: ReactionContext[] = [];
    // A wrapper adding a field of its own, as handler middleware does.
    const inner = async (context: ReactionContext & { wrapped: boolean }) => void copies.push(context);
    const handler: Handler = (_event, _stream, _app, context) => inner({ ...context, wrapped: true });
    await run([job(1, "a", handler)], 1, { keeper });
    expect(copies).toEqual([{ signal: keeper.signal, token: 7, attempt: 1, wrapped: true }]);
    expect(copies[0].signal).toBeInstanceOf(AbortSignal);
  });

  it("refuses the handler's actions once the lease is lost, with the loss as the reason, without reaching the app", async () => {
    const lost = new Error("lease lost");
    const reached: string[] = [];
    const target = { do: (name: string) => Promise.resolve(void reached.push(name)) } as never;
    const keeper = held();
    let refused: unknown;
    const handler: Handler = async (_event, _stream, app) => {
      await app.do("first" as never, {} as never, {} as never);
      keeper.reason = lost;
      refused = await app.do("second" as never, {} as never, {} as never).catch((error: unknown) => error);
    };
    await run([job(1, "a", handler)], 1, { keeper, target });
    expect(reached).toEqual(["first"]);
    expect(refused).toBe(lost);
  });
});
