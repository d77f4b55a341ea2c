import { around } from "../instrumentation/instrumentation.js";
import { logger } from "../core/ports.js";
import type { Projection } from "../builders/projection.js";
import type { Committed, Schemas } from "../types/action.js";
import type { Store } from "../types/ports.js";
import type { ReactionOptions } from "../types/reaction.js";
import type { BlockedLease, Lease } from "../types/lease.js";

/** One projection batch: the lease, its events in log order (each with why it cannot be decoded, if so), and where the watermark ends. */
export type ProjectionBatch = {
  lease: Lease;
  events: { event: Committed<Schemas, string>; invalid?: unknown }[];
  end: number;
  projection: Projection<any, any>;
  options: ReactionOptions;
};

/** What projecting one batch came to: `acked` when the position moved (with the writes), else a retry or a block to record. */
export type ProjectionOutcome = { acked?: Lease; refused?: Lease; retry?: Lease; block?: BlockedLease };

const thenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as PromiseLike<unknown> | undefined)?.then === "function";

/** Whether `fn` is an `async` function (or async generator): its body runs past its first `await` after it returned. */
const isAsync = (fn: unknown) => {
  const tag = (fn as { [Symbol.toStringTag]?: string } | undefined)?.[Symbol.toStringTag];
  return tag === "AsyncFunction" || tag === "AsyncGeneratorFunction";
};

/** Projections whose handlers were found synchronous, so each is looked at once. */
const synchronous = new WeakSet<Projection<any, any>>();

/**
 * Why `projection` cannot run on a store that runs handlers synchronously
 * inside its transaction (see `Store.synchronousHandlers`): the event whose
 * handler (or the batched handler) is an `async` function, whose writes
 * after an `await` would land outside the transaction. Undefined when it can.
 */
export function asyncHandler(projection: Projection<any, any>, log: Store): string | undefined {
  if (!log.synchronousHandlers || synchronous.has(projection)) return undefined;
  if (projection.batch && isAsync(projection.batch)) return projection.events[0];
  const found = Object.entries(projection.handlers).find(([, handler]) => isAsync(handler));
  if (found) return found[0];
  synchronous.add(projection);
  return undefined;
}

/** What a store that runs handlers synchronously says about a handler that is, or returned, a promise. */
export function notSynchronous(log: Store, what: string): Error {
  return new Error(
    `${what}, but ${log.constructor?.name ?? "the store"} runs projection handlers synchronously inside its write transaction, so its writes after an await would land outside it: write with the handle's synchronous calls and return nothing`
  );
}

/** The error a handler's failure becomes: which projection, which event, why. */
function failure(projection: Projection<any, any>, events: Committed<Schemas, string>[], cause: unknown): Error {
  const what =
    events.length === 1
      ? `event "${events[0].name}" #${events[0].id}`
      : `events #${events[0].id}…#${events[events.length - 1].id}`;
  return new Error(`Projection "${projection.name}" failed on ${what}: ${(cause as Error)?.message ?? String(cause)}`, {
    cause,
  });
}

/**
 * Applies `events` to `projection` in log order with the store's
 * transaction handle. Stays synchronous as long as the handlers are (a
 * synchronous store transaction, such as SQLite's, needs that) and returns a
 * promise from the first handler that does. `applied` hears of each event
 * whose handler finished (not of a batched handler's events).
 */
export function applyProjection(
  projection: Projection<any, any>,
  events: Committed<Schemas, string>[],
  tx: unknown,
  applied?: (event: Committed<Schemas, string>) => void
): void | Promise<void> {
  if (!events.length) return;
  if (projection.batch) {
    const result = call(() => projection.batch!(events as never, tx), projection, events);
    return thenable(result) ? Promise.resolve(result).then(() => {}) : undefined;
  }
  for (let i = 0; i < events.length; i++) {
    const event = events[i];
    const handler = projection.handlers[event.name];
    // Only events the projection handles are routed to it; this guards a registry changed by hand.
    if (!handler) throw failure(projection, [event], new Error("no handler for this event"));
    const result = call(() => handler(event, tx), projection, [event]);
    if (thenable(result))
      return Promise.resolve(result).then(() => {
        applied?.(event);
        return applyProjection(projection, events.slice(i + 1), tx, applied);
      });
    applied?.(event);
  }
}

/**
 * Runs the inline projections' handlers for the events one commit appends,
 * each projection with the events it handles, in log order. Synchronous as
 * long as the handlers are (SQLite's transaction needs that); a failure is
 * thrown as {@link failure} names it: which projection, which event, the cause.
 */
export function applyInline(
  projections: readonly Projection<any, any>[],
  events: Committed<Schemas, string>[],
  tx: unknown
): void | Promise<void> {
  for (let i = 0; i < projections.length; i++) {
    const projection = projections[i];
    const handled = events.filter((event) => projection.events.includes(event.name));
    const result = applyProjection(projection, handled, tx);
    if (thenable(result)) return result.then(() => applyInline(projections.slice(i + 1), events, tx));
  }
}

/** Runs a handler; a throw or a rejection becomes a {@link failure}. */
function call(run: () => unknown, projection: Projection<any, any>, events: Committed<Schemas, string>[]): unknown {
  try {
    const result = run();
    if (!thenable(result)) return result;
    return Promise.resolve(result).catch((cause) => {
      throw failure(projection, events, cause);
    });
  } catch (cause) {
    throw failure(projection, events, cause);
  }
}

/**
 * Projects one batch. With a store that has `project`, the handlers' writes
 * and the new watermark commit in one transaction — a crash anywhere applies
 * nothing or everything, and a lease another drainer took meanwhile rolls the
 * writes back — so every event is applied exactly once. Without it, the
 * handlers run and the watermark is acknowledged afterwards: at least once.
 *
 * A failing handler stops the batch. Where the store handed the handlers a
 * transaction the whole batch rolls back; where it handed them none (the
 * in-memory store, a store without `project`) the writes of the events
 * before the failing one cannot be undone, so the position moves past them
 * and only the failing event is tried again. Either way the failure is
 * retried after a backoff and, once `maxRetries` retries failed too (so
 * after `maxRetries` + 1 failed runs), blocks the projection's stream with
 * the error.
 *
 * @param owned - the reactions this app has; the acknowledgement is refused when the stream gained another
 * @param backoff - the delay before retry number `retry`
 */
export async function project(
  log: Store,
  { lease, events, end, projection, options }: ProjectionBatch,
  owned: readonly string[],
  backoff: (retry: number, options: ReactionOptions) => number
): Promise<ProjectionOutcome> {
  const at = Math.max(lease.at, end, ...events.map(({ event }) => event.id));
  const moved: Lease = { ...lease, at, done: [], retry: 0, reactions: owned };
  const plain = events.map(({ event }) => event);
  // The last event whose handler finished, and whether the handlers got no
  // transaction handle: then nothing rolls their writes back on a failure.
  let applied = lease.at;
  let unguarded = false;
  const work = (tx: unknown) => {
    unguarded = tx === undefined;
    const result = applyProjection(projection, plain, tx, (event) => {
      applied = event.id;
    });
    if (!log.synchronousHandlers || !thenable(result)) return result;
    // Its failure is this error. What it still does after returning is for the
    // store to fence: SqliteStore's connection refuses it.
    Promise.resolve(result).catch(() => {});
    const event = plain.find(({ id }) => id > applied) ?? plain[0];
    throw failure(projection, [event], notSynchronous(log, `its handler returned a promise`));
  };
  const info = {
    projection: projection.name,
    stream: lease.stream,
    events: plain,
    attempt: lease.retry + 1,
    options,
    store: log,
  };
  try {
    const acked = await around("projection", info, async () => {
      const bad = events.find(({ invalid }) => invalid !== undefined);
      if (bad) throw failure(projection, [bad.event], bad.invalid);
      // Refused before any handler runs, so nothing is written.
      const refused = asyncHandler(projection, log);
      if (refused !== undefined) {
        const event = plain.find(({ name }) => name === refused);
        throw failure(
          projection,
          event ? [event] : plain,
          notSynchronous(log, `its handler of "${refused}" is an async function`)
        );
      }
      if (log.project) return log.project(moved, work);
      await work(undefined);
      return (await log.ack([moved])).length > 0;
    });
    return acked ? { acked: moved } : { refused: moved };
  } catch (error) {
    logger.error(error, (error as Error)?.message);
    // Writes made without a transaction stay: the position keeps the events
    // applied before the failure, so a retry starts at the failing one
    // instead of applying them again. Its failures are counted from one.
    const keptAt = unguarded ? Math.max(lease.at, applied) : lease.at;
    const retry = keptAt > lease.at ? 1 : lease.retry + 1;
    const kept = { ...lease, at: keptAt, done: [], retry, reactions: owned };
    if (retry <= options.maxRetries) return { retry: { ...kept, delay: backoff(retry, options) } };
    return { block: { ...kept, error: (error as Error)?.message ?? String(error) } };
  }
}
