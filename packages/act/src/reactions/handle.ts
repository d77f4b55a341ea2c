/**
 * Running one leased stream's batch of reactions, in order, and what the
 * drain then records of it: the retries' backoff, the reactions already done
 * on a partly handled event, and the app as handlers see it — refusing
 * actions once the lease is lost.
 */
import { around } from "../instrumentation/instrumentation.js";
import { logger } from "../core/ports.js";
import type { Keeper } from "./lease-keeper.js";
import type { Batch, Job } from "./read-batches.js";
import type { Committed, Schemas } from "../types/action.js";
import type { Dispatcher } from "../types/app.js";
import type { Store } from "../types/ports.js";
import type { ReactionContext, ReactionOptions } from "../types/reaction.js";
import type { BlockedLease, Lease } from "../types/lease.js";

/**
 * How a batch ended: what to acknowledge or block, whether its watermark
 * moved, and — when a backlog's time allowance stopped it — the id of the
 * first event it did not reach (`stoppedBefore`).
 */
export type Outcome = { ack?: Lease; block?: BlockedLease; progress: boolean; acked?: Lease[]; stoppedBefore?: number };

/** `event id:reaction key`, how the watermark remembers reactions already run on a partly handled event. */
const doneKey = (job: Job) => `${job.event.id}:${job.key}`;

/**
 * The entries of `done` for events past `at`. Usually none: `done` holds the
 * partly handled event right after the watermark. But a stream moved back
 * for a reaction that joined it late keeps the entries of the event it had
 * reached, which the drain comes back to later.
 */
const after = (done: Iterable<string>, at: number) => [...done].filter((key) => Number.parseInt(key, 10) > at);

/** Whether `done` records the job's reaction, under its key or a name it had before. */
const isDone = (done: ReadonlySet<string>, job: Job) =>
  done.size > 0 &&
  (done.has(doneKey(job)) || (job.reaction.aliases ?? []).some((alias) => done.has(`${job.event.id}:${alias}`)));

/**
 * The delay before retry number `retry` (1-based): exponential from
 * `retryBaseMillis`, capped at `retryMaxMillis`, with jitter (50–100 %) so
 * streams that failed together do not retry together.
 */
export function backoff(retry: number, options: ReactionOptions, random = Math.random): number {
  const { retryBaseMillis = 1_000, retryMaxMillis = 60_000 } = options;
  const exponential = retryBaseMillis * 2 ** Math.max(0, retry - 1);
  const capped = Math.min(retryMaxMillis, exponential);
  return Math.round(capped * (0.5 + random() / 2));
}

/**
 * How much a batch handles: `events` events, and past them more only until
 * `until` (a time in ms) — a backlog's allowance (see `DrainOptions.backlogMillis`).
 */
export type Budget = { events: number; until: number; allowance: number };

/** What `handle` needs of a lease: whether a handler may start, and what the handlers get to know of it. */
type Held = Pick<Keeper, "ready" | "fresh" | "signal" | "reason" | "token">;

/**
 * What a handler is told of its run: plain own properties, so a copy of it
 * (`{ ...context, extra }`, as a wrapper around handlers makes) keeps them
 * all. Every handler run on a lease gets the keeper's one signal.
 */
class Context implements ReactionContext {
  readonly signal: AbortSignal;
  readonly token: number;
  readonly attempt: number;

  constructor(keeper: Held, attempt: number) {
    this.signal = keeper.signal;
    this.token = keeper.token;
    this.attempt = attempt;
  }
}

/**
 * The app as a handler sees it: actions are refused once the lease is lost,
 * so a handler that goes on after the abort commits nothing more.
 */
function fenced(app: Dispatcher<Schemas>, held: Pick<Held, "reason">): Dispatcher<Schemas> {
  // Forwarded as given: `do` tells its call shapes apart by the arguments passed.
  const act = app.do as (...args: unknown[]) => ReturnType<Dispatcher<Schemas>["do"]>;
  return {
    do: (...args: unknown[]) => {
      const lost = held.reason;
      if (lost) return Promise.reject(lost);
      return act.apply(app, args);
    },
    schedule: (timer) => (held.reason ? Promise.reject(held.reason) : app.schedule(timer)),
    cancel: (...ids) => (held.reason ? Promise.reject(held.reason) : app.cancel(...ids)),
  } as Dispatcher<Schemas>;
}

/**
 * Runs one batch's jobs in order. Each success is remembered (the event's
 * id once all its reactions ran, or the reaction under `done` while others
 * of the same event are pending), so a failure of one reaction never skips
 * it and never re-runs the ones that succeeded. A failure counts a retry of
 * that reaction on that event — the stored count belongs to the first
 * reaction not done yet, and starts from zero for the next one — and stops
 * the batch; past the reaction's `maxRetries` the stream is blocked, or with
 * `blockOnError: false` the reaction is skipped for that event. Progress is
 * only a watermark that moved. With a `budget`, a batch that handled its
 * `events` stops at the next event once the budget's time is up, and
 * records how far it got. `store` is the app's, told to the observer of
 * each run.
 */
export async function handle<E extends Schemas>(
  { lease, jobs, end }: Batch<E>,
  app: Dispatcher<Schemas>,
  keeper: Held,
  onHandled: (event: Committed<Schemas, string>) => void = () => {},
  budget: Budget = { events: Number.POSITIVE_INFINITY, until: Number.POSITIVE_INFINITY, allowance: 0 },
  store?: Store
): Promise<Outcome> {
  let at = lease.at;
  let handled = 0;
  let done = new Set(lease.done ?? []);
  // Failed attempts of the first reaction not done yet (the one a retry resumes at).
  let retries = lease.retry;
  const guarded = fenced(app, keeper);
  const finish = (job: Job, next: Job | undefined) => {
    retries = 0;
    // The event is handled once its last reaction ran: move past it (what
    // `done` held for it and the events before goes).
    if (next?.event.id !== job.event.id) {
      at = job.event.id;
      if (done.size) done = new Set(after(done, at));
    } else done.add(doneKey(job));
  };
  for (let i = 0; i < jobs.length; i++) {
    const job = jobs[i];
    if (jobs[i - 1]?.event.id !== job.event.id) {
      // A new event: past the batch's share, only while the allowance lasts.
      if (handled >= budget.events && Date.now() >= budget.until)
        return {
          ack: { ...lease, at, done: [...done], retry: retries },
          progress: at > lease.at,
          stoppedBefore: job.event.id,
        };
      handled++;
    }
    if (isDone(done, job)) {
      if (jobs[i + 1]?.event.id !== job.event.id) at = job.event.id;
      continue;
    }
    // Never start a handler on a lease that may not be ours. What ran so far is
    // still offered to the store, which records it only if the lease's token
    // is still current (no reset, unblock or other drainer since).
    if (!keeper.fresh && !(await keeper.ready()))
      return { ack: { ...lease, at, done: [...done], retry: retries }, progress: at > lease.at };
    const { event, reaction } = job;
    try {
      const observed = `${event.name}/${job.key}`;
      const attempt = retries + 1;
      const info = { reaction: observed, event, stream: lease.stream, attempt, options: reaction.options, store };
      const context = new Context(keeper, attempt);
      await around("reaction", info, async () => {
        if (job.invalid) throw job.invalid;
        return reaction.handler(event as never, lease.stream, guarded, context);
      });
      onHandled(event);
      finish(job, jobs[i + 1]);
    } catch (cause) {
      const what = `Reaction "${reaction.handler.name || "anonymous"}" to event "${event.name}" #${event.id} on stream "${lease.stream}"`;
      const error = `${what} failed: ${(cause as Error)?.message ?? String(cause)}`;
      logger.error(cause, error);
      const retry = retries + 1;
      const { maxRetries, blockOnError } = reaction.options;
      const state = { ...lease, at, done: [...done], retry };
      const progress = at > lease.at;
      if (retry <= maxRetries) return { ack: { ...state, delay: backoff(retry, reaction.options) }, progress };
      if (blockOnError) return { block: { ...state, error }, progress };
      logger.warn(`${what} skipped after ${retry} failures (blockOnError is off)`);
      finish(job, jobs[i + 1]);
    }
  }
  const last = Math.max(at, end);
  return { ack: { ...lease, at: last, done: after(done, last), retry: 0 }, progress: last > lease.at };
}
