import { BatchSizes } from "../projections/batch-size.js";
import { project } from "../projections/project.js";
import { backoff, type Budget, handle, type Outcome } from "./handle.js";
import { Keeper, MAX_TIMER } from "./lease-keeper.js";
import { logger } from "../core/ports.js";
import { ownedNames } from "../builders/reaction-names.js";
import { type Batch, type Known, readBatches, type Scanned } from "./read-batches.js";
import { RouteIndex } from "./route-index.js";
import { BACKLOG_EVENTS, Pace, reachedBefore, Scans } from "./read-ahead.js";
import type { build_tracer } from "../instrumentation/tracer.js";
import type { Committed, Schemas } from "../types/action.js";
import type { Store } from "../types/ports.js";
import type { Dispatcher } from "../types/app.js";
import type { Drain, DrainOptions, EventRegister, Fetch } from "../types/reaction.js";
import type { BlockedLease, Lease } from "../types/lease.js";

/** Streams one drain handles at most, by default. */
export const STREAM_LIMIT = 10;
/** Events one drain handles per stream, by default, before a backlog's time allowance (`backlogMillis`) counts. */
export const EVENT_LIMIT = 10;
/** How long a stream with a backlog goes on past the event limit, by default, in ms. */
export const BACKLOG_MILLIS = 100;
/** How many of the latest reactions the latency figures cover. */
const LATENCY_SAMPLES = 1_024;

/**
 * Runs reactions for an app: one drain at a time, a lease per reaction
 * stream that is renewed while its handlers run (so no other drainer can
 * take the stream while a handler is still working on it), progress per
 * event and reaction, and retries with backoff.
 */
export class Drainer<E extends Schemas> {
  private running = false;
  /** Streams whose batch is still running after the drain that started it returned. */
  private readonly busy = new Set<string>();
  /** Commit-to-handled times of the latest reactions run, in ms (a ring of {@link LATENCY_SAMPLES}). */
  private readonly latencies: number[] = [];
  private latencyAt = 0;
  /** The leases of the batches running now, by stream. */
  private readonly keepers = new Map<string, Keeper>();
  /** Events per transaction each projection stream has learned to take (see `BatchSizes`). */
  private readonly batchSizes = new BatchSizes(BACKLOG_EVENTS);
  /** Events a stream with a backlog reads per drain, learned from the drains before. */
  private readonly pace = new Pace();
  /** The names this app's reactions answer to: it leases only streams whose every reaction is among them. */
  private readonly owned: string[];
  /** Which events react into which stream, from this app's correlation passes (see `Act.correlate`). */
  readonly routes = new RouteIndex();
  /**
   * Which events react into which stream, from the passes of a reaction's
   * backfill, which read only its events: it serves the streams only those
   * events react into (see `RouteIndex.vouches`).
   */
  readonly backfill = new RouteIndex();
  /** Which events react into which stream, from this drainer's own shared reads of the log. */
  private readonly scans = new Scans();
  /** The streams of the app's projections. */
  private readonly projections = new Set<string>();
  /** The event each reaction name (and each name it had before) reacts to. */
  private readonly eventOf = new Map<string, string>();

  /**
   * @param events - the app's events and their reactions
   * @param app - what handlers receive to dispatch actions
   * @param id - identifies this drainer in leases
   * @param tracer - traces each drain step
   * @param report - tells the app's listeners what was acknowledged or blocked
   * @param store - the app's store, read at the start of each drain
   */
  constructor(
    private readonly events: EventRegister<E, any>,
    private readonly app: Dispatcher<Schemas>,
    private readonly id: string,
    private readonly tracer: ReturnType<typeof build_tracer>,
    private readonly report: (acked: Lease[], blocked: BlockedLease[]) => void,
    private readonly store: () => Store
  ) {
    this.owned = ownedNames(events);
    for (const [event, { reactions }] of Object.entries(events))
      for (const [key, reaction] of reactions)
        for (const name of [key, ...(reaction.aliases ?? [])]) {
          this.eventOf.set(`${event}/${name}`, event);
          if (reaction.projection) this.projections.add(reaction.projection.stream);
        }
  }

  /** Streams this drainer is still working on (a handler outlived the drain that started it). */
  get working(): ReadonlySet<string> {
    return this.busy;
  }

  /**
   * Gives up this drainer's leases on `streams` at once — the app's operator
   * commands (reset, unblock) call it — so no handler of this process starts
   * on them after the command. Drainers of other processes learn it from the
   * store at their next renewal.
   */
  revoke(streams: string[]): void {
    for (const stream of streams) this.keepers.get(stream)?.revoke();
  }

  /** Commit-to-handled latency of the latest reactions: count, p50, p99 and max, in ms. */
  latency(): { count: number; p50: number; p99: number; max: number } {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
    return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? 0 };
  }

  private handled(event: Committed<Schemas, string>) {
    this.latencies[this.latencyAt] = Date.now() - event.created.getTime();
    this.latencyAt = (this.latencyAt + 1) % LATENCY_SAMPLES;
  }

  /** One drain cycle: poll, lease, fetch, run, acknowledge or block. */
  async drain({
    streamLimit = STREAM_LIMIT,
    eventLimit = EVENT_LIMIT,
    leaseMillis = 10_000,
    backlogMillis = BACKLOG_MILLIS,
  }: DrainOptions = {}): Promise<Drain<E>> {
    const none: Drain<E> = { fetched: [], leased: [], acked: [], blocked: [] };
    if (this.running) return none;
    this.running = true;
    try {
      // Everything this drain does, including work that outlives it, stays on
      // the store it started with.
      const log = this.store();
      const lagging = Math.ceil(streamLimit / 2);
      // Only streams whose every reaction this app has: an app that lacks one
      // (another service, or an older release during a rolling deploy) would
      // move the watermark past events that reaction never saw.
      const polled = (await log.poll({ lagging, leading: streamLimit - lagging, reactions: this.owned })).filter(
        (p) => !this.busy.has(p.stream)
      );
      if (!polled.length) return none;
      // Lease first, at the polled watermark: the store refuses a stream another
      // drainer moved since, so no event is handled twice.
      const leasedAt = Date.now();
      const leased = await log.lease(
        polled.map(({ stream, source, at, lagging }) => ({ stream, source, at, lagging, by: this.id, retry: 0 })),
        leaseMillis
      );
      if (!leased.length) return none;
      this.tracer.leased(leased);
      const known = (lease: Lease): Known | undefined => {
        const ids =
          this.routes.ids(log, lease.stream, lease.at, lease.head!) ??
          // A stream only a backfill's events react into (as the lease's reactions say).
          (lease.reactions?.length && this.backfill.vouches(lease.reactions.map((name) => this.eventOf.get(name)))
            ? this.backfill.ids(log, lease.stream, lease.at, lease.head!)
            : undefined);
        // Else what this drainer's earlier shared reads found, as far as they went.
        return ids ? { ids, to: lease.head! } : this.scans.covered(log, lease.stream, lease.at);
      };
      const scanned = (page: Scanned) => this.scans.add(log, page);
      // The events taken from the route index, so those no batch reached (a
      // time allowance ran out first) are put back for the next drain.
      const taken = new Map<number, Committed<Schemas, string>>();
      const kept = (ids: number[]) => {
        const found = this.routes.take(log, ids);
        for (const [id, event] of found) taken.set(id, event);
        const rest = ids.filter((id) => !found.has(id));
        for (const [id, event] of this.backfill.take(log, rest)) found.set(id, event);
        return found;
      };
      // With a time allowance for backlogs, a stream reads more than it must
      // handle: its handlers stop at `eventLimit` once the allowance is spent.
      // A projection's batch grows on its own (see `BatchSizes`): it reads a
      // page, whatever the reactions' pace.
      const readLimit = (lease: Lease) =>
        backlogMillis > 0
          ? Math.max(eventLimit, this.projections.has(lease.stream) ? BACKLOG_EVENTS : this.pace.events)
          : eventLimit;
      const batches = await readBatches(this.events, leased, readLimit, log, known, kept, scanned, eventLimit).catch(
        async (error) => {
          await this.release(log, leased);
          throw error;
        }
      );
      const fetched: Fetch<E> = batches.map(({ lease, events }) => ({
        stream: lease.stream,
        source: lease.source,
        lagging: lease.lagging ?? false,
        events,
      }));
      this.tracer.fetched(fetched);
      const budget: Budget = { events: eventLimit, until: Date.now() + backlogMillis, allowance: backlogMillis };
      const stopped = new Map<string, number>();
      const settled = await Promise.all(
        batches.map((batch) => this.settle(log, batch, budget, leaseMillis, leasedAt, stopped))
      );
      if (taken.size) this.putBack(log, batches, taken, stopped);
      if (backlogMillis > 0)
        this.pace.learn(
          batches.flatMap(({ lease, events }) =>
            stopped.has(lease.stream) ? [reachedBefore(events, stopped.get(lease.stream)!)] : []
          ),
          eventLimit
        );
      const acked = settled.flatMap((s) => s.acked);
      const blocked = settled.flatMap((s) => s.blocked);
      this.report(acked, blocked);
      return { fetched, leased, acked, blocked };
    } finally {
      this.running = false;
    }
  }

  /**
   * Puts back into the route index the events taken from it that no handler
   * was given: those past where each batch holding them stopped when its time
   * allowance ran out (a batch still running, or one that handled all it
   * read, reached all of its events). Without this the next drain reads them
   * from the store again; an event a handler was given is never put back, so
   * nothing a handler did to it reaches a later run.
   */
  private putBack(
    log: Store,
    batches: readonly Batch<E>[],
    taken: ReadonlyMap<number, Committed<Schemas, string>>,
    stopped: ReadonlyMap<string, number>
  ): void {
    const reached = new Set<number>();
    for (const { lease, events } of batches) {
      const stop = stopped.get(lease.stream) ?? Number.POSITIVE_INFINITY;
      for (const { id } of events) if (id < stop) reached.add(id);
    }
    this.routes.restore(
      log,
      [...taken.values()].filter(({ id }) => !reached.has(id))
    );
  }

  /** Gives leases back untouched, so another drainer can take them at once. */
  private async release(log: Store, leases: Lease[]): Promise<void> {
    await log
      .ack(leases)
      .catch((error) => logger.error(error, "leases could not be released; they expire on their own"));
  }

  /**
   * Runs a batch while renewing its lease, and records the outcome. The
   * drain waits for it at most `leaseMillis`; a batch still running then
   * finishes in the background — its stream stays leased and renewed until
   * its handlers settle — and reports its outcome to the app's listeners.
   */
  private async settle(
    log: Store,
    batch: Batch<E>,
    budget: Budget,
    leaseMillis: number,
    leasedAt: number,
    stopped: Map<string, number>
  ): Promise<{ acked: Lease[]; blocked: BlockedLease[] }> {
    const { stream } = batch.lease;
    const lease = new Keeper(log, batch.lease, leaseMillis, leasedAt);
    this.keepers.set(stream, lease);
    const work = (async () => {
      try {
        const outcome = batch.jobs[0]?.reaction.projection
          ? await this.project(log, batch, lease, budget)
          : await handle(batch, this.app, lease, (event) => this.handled(event), budget, log);
        if (outcome.stoppedBefore !== undefined) stopped.set(stream, outcome.stoppedBefore);
        return await this.record(log, outcome);
      } finally {
        lease.stop();
        if (this.keepers.get(stream) === lease) this.keepers.delete(stream);
      }
    })();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), Math.min(MAX_TIMER, leaseMillis));
    });
    const first = await Promise.race([work, late]);
    clearTimeout(timer);
    if (first !== "late") return first;
    this.busy.add(stream);
    logger.warn(
      `reactions on stream "${stream}" still run after ${leaseMillis} ms; the stream stays leased until they settle`
    );
    void work
      .then(
        ({ acked, blocked }) => this.report(acked, blocked),
        (error) => logger.error(error, `reactions on stream "${stream}" could not be recorded`)
      )
      .finally(() => this.busy.delete(stream));
    return { acked: [], blocked: [] };
  }

  /**
   * Runs a projection's batch (see `project`), its writes and position in one
   * store transaction where the store can — as many events of it as the
   * projection's learned batch size allows (see `BatchSizes`): a transaction
   * cannot stop half-way when a time allowance runs out.
   */
  private async project(log: Store, batch: Batch<E>, keeper: Keeper, budget: Budget): Promise<Outcome> {
    const { lease, jobs } = batch;
    if (!(await keeper.ready())) return { ack: lease, progress: false };
    const { projection, options } = jobs[0].reaction;
    const limit = this.batchSizes.next(lease.stream, budget.events, budget.allowance);
    const events = jobs.slice(0, limit).map(({ event, invalid }) => ({ event, invalid }));
    const end = jobs.length > limit ? events[limit - 1].event.id : batch.end;
    const started = Date.now();
    const outcome = await project(log, { lease, events, end, projection: projection!, options }, this.owned, backoff);
    if (outcome.acked)
      this.batchSizes.learn(
        lease.stream,
        { size: limit, full: jobs.length > limit, millis: Date.now() - started },
        budget.events,
        budget.allowance
      );
    // A failure after events applied without a transaction keeps their progress.
    if (outcome.retry) return { ack: outcome.retry, progress: outcome.retry.at > lease.at };
    if (outcome.block) return { block: outcome.block, progress: outcome.block.at > lease.at };
    if (outcome.acked) {
      for (const { event } of events) this.handled(event);
      return { ack: outcome.acked, acked: [outcome.acked], progress: outcome.acked.at > lease.at };
    }
    // Refused, and rolled back: acknowledge the lease as granted (no progress), which the
    // store refuses again — but a holder an operator overtook gives the stream back that way.
    return { ack: lease, progress: false };
  }

  /** Acknowledges or blocks in the store; only real progress counts as acknowledged. */
  private async record(
    log: Store,
    { ack, block, progress, acked: made }: Outcome
  ): Promise<{ acked: Lease[]; blocked: BlockedLease[] }> {
    // Saying which reactions this app has lets the store refuse a stream that
    // gained one meanwhile: its events then run again where all are known.
    const acked = made ?? (ack ? await log.ack([{ ...ack, reactions: this.owned }]) : []);
    const blocked = block ? await log.block([{ ...block, reactions: this.owned }]) : [];
    const refused = (ack && !acked.length && ack) || (block && !blocked.length && block);
    if (refused)
      logger.error(
        `reaction stream "${refused.stream}" was reset, unblocked, leased by another drainer or given a reaction this app lacks meanwhile; its progress here was not recorded (for a reaction it lacks, what this app's reactions ran is kept, and the stream is left to an app that has them all)`
      );
    const moved = progress ? acked : [];
    if (moved.length) this.tracer.acked(moved);
    if (blocked.length) this.tracer.blocked(blocked);
    return { acked: moved, blocked };
  }
}
