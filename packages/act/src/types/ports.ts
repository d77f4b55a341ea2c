import type { Committed, Message, Schemas } from "./action.js";
import type { BlockedLease, Lease, Poll } from "./lease.js";
import type { EventMeta, Query } from "../core/schemas.js";
import type { TimerChanges, TimerStore } from "./timers.js";
import type { StoreTransfer } from "./transfer.js";
import type { SubjectKeyStore } from "./personal.js";
import type { PollRequest, ReactionFilter, ReactionStream } from "./reaction-streams.js";
import type { ArchiveStore } from "./archive.js";
import type { KeyedVersions } from "./keyed-versions.js";

export type { KeyedVersions };

/**
 * Anything holding resources that must be released: stores, loggers, servers.
 *
 * @stable
 * @example
 * ```ts
 * const cache: Disposable = { dispose: async () => map.clear() };
 * ```
 */
export type Disposable = {
  /** Releases the resources. */
  dispose(): Promise<void>;
};

/**
 * A clean-up function registered with {@link dispose}. It may be async (its
 * promise is awaited) or not; a throw or a rejection is logged and the other
 * clean-ups still run.
 *
 * @stable
 * @example
 * ```ts
 * const closeServer: Disposer = () => server.close();
 * dispose(closeServer);
 * ```
 */
export type Disposer = () => unknown;

/**
 * The logger port: the methods Act and your code log with. The default
 * adapter is pino.
 *
 * @stable
 * @example
 * ```ts
 * logger.info({ stream: "calc-1" }, "loaded");
 * ```
 */
export type Logger = Disposable & {
  [L in "fatal" | "error" | "warn" | "info" | "debug" | "trace"]: (objOrMsg: unknown, msg?: string) => void;
};

/**
 * The store port: where events are committed and read, and where reaction
 * watermarks and leases live. {@link InMemoryStore} is the default adapter;
 * `PostgresStore` (package `@act-root/act-pg`) is the production one. Both
 * pass the same conformance suite.
 *
 * @experimental
 * @see [Event sourcing](/docs/concepts/event-sourcing#the-two-stores) — compares the two stores.
 * @example
 * ```ts
 * const s: Store = store();
 * await s.seed();
 * const count = await s.query((e) => console.log(e.name), { stream: "calc-1" });
 * ```
 */
export interface Store extends Disposable {
  /** Creates what the store needs (tables, indexes); idempotent. */
  seed(): Promise<void>;
  /** Removes everything `seed` created, events included. */
  drop(): Promise<void>;
  /**
   * Appends events to a stream, all or nothing.
   *
   * @param commit - the stream, the events in order and the metadata stored with each, with the checks that
   *   guard the append: `expectedVersion` (-1 for a new stream), `lastId` (the stream's last event as the caller
   *   knows it: another event there — the stream was dropped and written again up to the same version — is a
   *   conflict, so state cached from the old event is never built on) and `idempotencyKey` with its `request`
   *   digest (see {@link Commit})
   * @returns the committed events, with ids, versions and creation time
   * @throws {@link ConcurrencyError} when the stream is not at `expectedVersion`, its last event is not
   *   `lastId`, or the key was used
   */
  commit<E extends Schemas>(commit: Commit<E>): Promise<Committed<E, keyof E>[]>;
  /**
   * The stream versions committed under an idempotency key, if the stream
   * used it and it has not expired (how long keys are kept is the store's
   * setting; a day by default).
   *
   * @param stream - the stream the action was addressed to
   * @param idempotencyKey - the key the action was committed under
   * @returns the first and last version committed under the key, or `undefined` when the stream never used it or it expired
   */
  recall(stream: string, idempotencyKey: string): Promise<KeyedVersions | undefined>;
  /**
   * Commits like `commit`, running `work` with the committed events (ids and
   * versions assigned) and the store's transaction handle before the commit
   * completes: the events and `work`'s writes commit together, or — when
   * `work` throws, or the commit conflicts — neither, and the error is
   * rethrown as it is. On a conflict `work` does not run (or its writes are
   * rolled back). Inline projections use it. Optional: an app with an inline
   * projection refuses to commit on a store without it.
   *
   * @param commit - what `commit` takes, and the timers to schedule or cancel with the events
   * @param work - writes the read model through the handle; a store may require it to be synchronous (and say so)
   * @returns the committed events
   * @throws {@link ConcurrencyError} as `commit` does
   */
  commitInline?<E extends Schemas>(
    commit: InlineCommit<E>,
    work: (events: Committed<E, keyof E>[], tx: any) => unknown
  ): Promise<Committed<E, keyof E>[]>;
  /**
   * Calls `callback` with each event matching `query`, in global order
   * (reverse with `backward`). Snapshot events only with `with_snaps`.
   *
   * @param callback - called once per matching event, in order, before the promise resolves
   * @param query - the filters, combined with AND; omitted, every event except snapshots
   * @returns how many events were passed to the callback
   */
  query<E extends Schemas>(callback: (event: Committed<E, keyof E>) => void, query?: Query): Promise<number>;
  /**
   * Lists reaction streams with work to do — correlation found an event
   * reacting into them (`head`, see `lease`) after their watermark — that are
   * not blocked, not leased and not waiting out a retry's backoff: up to
   * `lagging` with the lowest watermarks and up to `leading` with the highest.
   *
   * @param request - how many of the furthest-behind streams to list (`lagging`), how many of the others (`leading`),
   *   and the reactions the caller can run (`reactions`; see {@link PollRequest})
   * @returns the streams found, each with its watermark, its source and whether it was picked as lagging
   */
  poll(request: PollRequest): Promise<Poll[]>;
  /**
   * Registers the leases' streams (idempotent: an existing watermark never
   * moves, and a stream named with two different sources reads every stream)
   * and, when `millis` > 0, leases each one to `lease.by` for `millis` — unless
   * it is blocked, another drainer holds it, or its watermark moved past
   * `lease.at` (the watermark the drainer polled) since. `millis` = 0 only
   * registers: it moves each stream's `head` (the last event found reacting
   * into it) up to `lease.head` and adds `lease.reactions` to the stream's
   * reactions. A reaction in `lease.joining` that is new to a stream which
   * already carries reactions moves its watermark back to where that
   * reaction's events start, when the watermark is past them (see
   * `Lease.joining`): a reaction that joins a stream late, in a rolling
   * deploy or after a backfill, still runs for those events.
   *
   * A granted lease carries the stream's stored `at`, `head` (the `at` it
   * was registered at when the lease created it), `ahead` and `reactions`:
   * the drain reads from the stored watermark, no event past `head`
   * (correlation has found nothing after it reacting into the stream),
   * skips each reaction in `ahead` up to the event it names, and knows from
   * `reactions` which events can react into the stream.
   *
   * A new lease moves the stream's `token` on and returns it. A lease that
   * carries the `token` it was granted, from the same `by`, is a renewal: it
   * keeps the token and extends the lease (even one that ran out, as long as
   * no one took the stream since); with any other token it is refused. A
   * renewal waits for a row another transaction is registering, rather than
   * taking it for a lease held elsewhere.
   *
   * @param leases - one per stream: the stream, its source, the drainer (`by`), the polled watermark (`at`) and the `head` found by correlation
   * @param millis - how long the leases last, in ms; 0 to register the streams without leasing them
   * @returns the leases obtained (with the stored `at`, `retry`, `done`, `head`, `ahead` and `reactions`), or all registered ones when `millis` is 0
   */
  lease(leases: Lease[], millis: number): Promise<Lease[]>;
  /**
   * Moves each leased stream's watermark to `lease.at`, stores `lease.retry`
   * and `lease.done`, and releases the lease — only where `lease.by` still
   * holds it with the same `token`. With `lease.delay` > 0 the stream stays out of `poll` for that
   * many ms (the backoff before a retry).
   *
   * @param leases - the leases to acknowledge, each with the last event handled as `at`
   * @returns the leases acknowledged
   */
  ack(leases: Lease[]): Promise<Lease[]>;
  /**
   * Blocks each leased stream (no more polling) with the error that caused it,
   * moving its watermark to `lease.at` (what was handled before the failure)
   * and storing `retry` and `done` — only where `lease.by` still holds it
   * with the same `token`.
   *
   * @param leases - the leases to block, each with the `error` that blocked it
   * @returns the leases blocked
   */
  block(leases: BlockedLease[]): Promise<BlockedLease[]>;
  /**
   * Runs `work` in a transaction of the store's database, handing it the
   * transaction's handle, then acknowledges `lease` in the same transaction
   * (same rule as `ack`: only while `lease.by` holds it with the same
   * `token`). Both commit together, or neither: a refused acknowledgement
   * rolls `work`'s writes back, and a throw from `work` rolls everything
   * back and is rethrown. Projections whose read model lives in the store's
   * database use it to apply each event exactly once. Optional: without it,
   * projections run `work` with no handle and acknowledge afterwards (at
   * least once). A store that hands `work` no handle (`undefined`) has
   * nothing to roll back, and the app then records the progress of the
   * events applied before a failure.
   *
   * @param lease - the lease to acknowledge, with the last event handled as `at`
   * @param work - writes the read model through the handle; a store may require it to be synchronous (and say so)
   * @returns whether the lease was acknowledged (and `work`'s writes committed)
   */
  project?(lease: Lease, work: (tx: any) => unknown): Promise<boolean>;
  /**
   * `true` when the store runs projection handlers synchronously inside its
   * transaction (`project`, `commitInline`), as a store on a synchronous
   * driver must. The app then refuses a projection whose handler is an
   * `async` function before any of its handlers runs, and a handler that
   * returns a promise, naming the projection and the event. Omitted: handlers
   * may be asynchronous.
   */
  readonly synchronousHandlers?: boolean;
  /**
   * Lists reaction streams with their watermark, retries, blocked state and
   * lease, ordered by stream name.
   *
   * @param filter - which streams to list; omitted, all of them
   * @returns the reaction streams, by name
   */
  reactions(filter?: ReactionFilter): Promise<ReactionStream[]>;
  /**
   * Unblocks streams: they resume at their watermark with retries reset. The
   * stream's `token` moves on, so no drainer that leased it before can record
   * anything on it.
   *
   * @param streams - the reaction streams to unblock; names that are not blocked are skipped
   * @returns the streams that were blocked and are not any more
   */
  unblock(streams: string[]): Promise<string[]>;
  /**
   * Moves streams' watermarks back to the start of the log (or to `at`),
   * unblocked and with retries reset, so their reactions run again — e.g. to
   * rebuild a read model. The stream's `token` moves on, so a drain in flight
   * can neither renew its lease nor acknowledge its old position over the
   * reset. The lease itself stays until it runs out: its holder may still be
   * running a handler, and no other drainer may start one on the stream
   * meanwhile (the holder itself may take the stream again at once). The
   * stream's `head` stays: reset past it, and there is nothing to do until a
   * new event reacts into the stream.
   *
   * @param streams - the reaction streams to reset; names the store does not know are skipped
   * @param at - the id of the last event to count as handled; omitted (-1), every event is handled again
   * @returns the streams reset
   */
  reset(streams: string[], at?: number): Promise<string[]>;
  /**
   * Forgets reactions no release has any more — removed, or renamed — on
   * every reaction stream that carries them, so apps without them can lease
   * those streams again (`poll` offers a stream only to apps that have all
   * its reactions). Run it once no worker of a release that had them is left.
   *
   * @param reactions - the reaction names, as `"<event>/<reaction key>"` (see `ReactionStream.reactions`)
   * @returns the reaction streams that carried one of them, by name
   */
  retire(reactions: string[]): Promise<string[]>;
  /**
   * How far correlation has gone for each of `reactions`, shared by every
   * process on the store: the id of the last event whose reaction streams
   * were registered for that reaction (see `discover`). A process that starts
   * continues from these positions instead of reading the log from its start.
   *
   * @param reactions - the reaction names, as `"<event>/<reaction key>"`
   * @returns the position of each reaction the store has one for; a reaction never discovered is absent
   * @throws {@link ValidationError} when a name is not a non-empty string without NUL characters
   */
  discovered(reactions: readonly string[]): Promise<Map<string, number>>;
  /**
   * Records that correlation has registered the reaction streams of every
   * event up to `at` for each of `reactions`. A position only moves forward:
   * one already past `at` stays, so processes that race, or a slow one
   * finishing late, never move it back.
   *
   * @param reactions - the reaction names, as `"<event>/<reaction key>"`
   * @param at - the id of the last event correlated for them (-1 for none)
   * @throws {@link ValidationError} when a name is not a non-empty string without NUL characters, or `at` is not a whole number of at least -1
   */
  discover(reactions: readonly string[], at: number): Promise<void>;
  /**
   * Calls `listener` when events may have been committed — by this process or,
   * where the store can tell, by another one — so a running consumer drains
   * at once instead of waiting for its next poll. Optional: without it, the
   * consumer polls. Notifications may be lost or repeated; they are only a
   * hint to look now.
   *
   * A store that knows which events were committed passes their names, so a
   * consumer none of whose reactions handles them need not look; without
   * names, anything may have been committed.
   *
   * @param listener - called with the names of the events committed, when the store knows them; it should only schedule work (e.g. a drain), not wait for it
   * @returns a function that stops the notifications
   */
  subscribe?(listener: (names?: readonly string[]) => void): () => void;
  /**
   * The store's timers: scheduled actions, claimed and fired exactly once
   * (see {@link TimerStore}). Optional: an app refuses to schedule on a store
   * without them, and its drains fire none.
   */
  readonly timers?: TimerStore;
  /**
   * Writes events and records verbatim, for copying a store into this one
   * (see {@link StoreTransfer} and `copyStore`). Optional: a store without it
   * cannot be copied into.
   */
  readonly transfer?: StoreTransfer;
  /**
   * The keys of data subjects, for personal fields (see {@link SubjectKeyStore}).
   * Optional: an app refuses to commit personal fields on a store without.
   */
  readonly keys?: SubjectKeyStore;
  /** The archive of closed streams (see {@link ArchiveStore}). Optional: an app refuses to archive on a store without it. */
  readonly archive?: ArchiveStore;
}

/**
 * What `Store.commit` appends: a stream, its new events and their metadata,
 * with the checks that guard the append. Every field but the first three is
 * optional; an omitted check is not made.
 *
 * @experimental
 * @typeParam E - the event schemas
 * @example
 * ```ts
 * const commit: Commit<{ Opened: { title: string } }> = {
 *   stream: "ticket-1",
 *   messages: [{ name: "Opened", data: { title: "Printer" } }],
 *   meta: { correlation: "c-1", causation: {} },
 *   expectedVersion: -1,
 * };
 * const [opened] = await store().commit(commit);
 * ```
 */
export type Commit<E extends Schemas> = {
  /** The stream name. */
  readonly stream: string;
  /** The events to append, in order. */
  readonly messages: Message<E, keyof E>[];
  /** Correlation and causation stored with each event. */
  readonly meta: EventMeta;
  /** The version the stream must be at (-1 for a new stream); omitted, no check. */
  readonly expectedVersion?: number;
  /**
   * Remembered with the versions committed (see `Store.recall`); a key the stream already used, and that has
   * not expired, commits nothing and throws a `ConcurrencyError`.
   */
  readonly idempotencyKey?: string;
  /** The id of the stream's last event as the caller knows it; another event there is a conflict. */
  readonly lastId?: number;
  /**
   * With `idempotencyKey`: what the request asked for (a digest of its action, actor and payload), kept with
   * the key and returned by `recall`, so a key reused for another request can be told from a retry (see
   * `KeyedVersions.request`).
   */
  readonly request?: string;
};

/**
 * What `Store.commitInline` commits: a {@link Commit}, with the timers to
 * schedule and cancel in the same transaction.
 *
 * @experimental
 * @typeParam E - the event schemas
 * @example
 * ```ts
 * const commit: InlineCommit<{ Opened: { title: string } }> = {
 *   stream: "ticket-1",
 *   messages: [{ name: "Opened", data: { title: "Printer" } }],
 *   meta: { correlation: "c-1", causation: {} },
 *   expectedVersion: -1,
 *   timers: { schedule: [], cancel: ["remind-ticket-1"], now: new Date() },
 * };
 * ```
 */
export type InlineCommit<E extends Schemas> = Commit<E> & {
  /**
   * Timers to schedule and cancel in the same transaction as the events
   * (see {@link TimerChanges}): a store with `timers` writes them before the
   * commit completes, so they are kept exactly when the events are.
   */
  readonly timers?: TimerChanges;
};
