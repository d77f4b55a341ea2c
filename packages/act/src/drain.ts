import { decode } from "./event-sourcing.js";
import { logger, store } from "./ports.js";
import type { Committed, CommittedOf, Schemas } from "./types/action.js";
import type { BlockedLease, Dispatcher, EventRegister, Fetch, Lease, Reaction } from "./types/reaction.js";

/** One reaction to run: the event and the reaction registered on it. */
type Job = { event: Committed<Schemas, string>; reaction: Reaction<Schemas, string> };

/** What came out of handling one leased stream. */
type Outcome = { ack?: Lease; block?: BlockedLease };

/** Reads each leased stream's next events and the reactions that resolve to it, in lease order. */
export async function fetch<E extends Schemas>(
  events: EventRegister<E, any>,
  leased: Lease[],
  eventLimit: number
): Promise<{ fetched: Fetch<E>; jobs: Map<string, Job[]> }> {
  const jobs = new Map<string, Job[]>();
  const fetched = await Promise.all(
    leased.map(async ({ stream, source, at, lagging = false }) => {
      const list: CommittedOf<E>[] = [];
      const todo: Job[] = [];
      await store().query<E>(
        (stored) => {
          const event = decode(events[stored.name]?.schema, stored);
          list.push(event as CommittedOf<E>);
          for (const reaction of events[event.name]?.reactions.values() ?? []) {
            if (reaction.resolver(event as never)?.target === stream)
              todo.push({ event: event as Committed<Schemas, string>, reaction: reaction as never });
          }
        },
        { stream: source, after: at, limit: eventLimit }
      );
      jobs.set(stream, todo);
      return { stream, source, lagging, events: list };
    })
  );
  return { fetched, jobs };
}

/**
 * Rejects when `millis` pass first: a handler that outlives its lease has
 * failed. It cannot be cancelled, so `onTimeout` lets the caller keep the
 * stream off-limits until it settles.
 */
function within<T>(promise: Promise<T>, millis: number, what: string, onTimeout: () => void): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new Error(`${what} did not finish within its ${millis} ms lease`));
    }, millis);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Runs one leased stream's jobs in order, starting after its watermark `from`.
 * All handled: ack up to `lease.at`, the last fetched event. A failure: ack up to the event before it and count a retry;
 * past `maxRetries`, block the stream (or skip the event without `blockOnError`).
 */
export async function handle(
  lease: Lease,
  from: number,
  jobs: Job[],
  app: Dispatcher<Schemas>,
  leaseMillis: number,
  stuck: Set<string>
): Promise<Outcome> {
  let at = from;
  for (const { event, reaction } of jobs) {
    const what = `Reaction "${reaction.handler.name || "anonymous"}" to event "${event.name}" #${event.id} on stream "${lease.stream}"`;
    try {
      const running = Promise.resolve().then(() => reaction.handler(event, lease.stream, app));
      await within(running, leaseMillis, what, () => {
        stuck.add(lease.stream);
        running.then(
          () => stuck.delete(lease.stream),
          () => stuck.delete(lease.stream)
        );
      });
      at = event.id;
    } catch (cause) {
      const error = `${what} failed: ${(cause as Error)?.message ?? String(cause)}`;
      const retry = lease.retry + 1;
      logger.error(cause, error);
      if (retry <= reaction.options.maxRetries) return { ack: { ...lease, at, retry } };
      if (reaction.options.blockOnError) return { block: { ...lease, at, retry, error } };
      logger.warn(`${what} skipped after ${retry} failures (blockOnError is off)`);
      at = event.id;
    }
  }
  return { ack: { ...lease, retry: 0 } };
}
