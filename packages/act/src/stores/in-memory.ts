import { checkOptions, OptionSchemas } from "../core/inputs.js";
import type { Query } from "../core/schemas.js";
import type { Committed, Schemas } from "../types/action.js";
import type { Commit, InlineCommit, KeyedVersions, Store } from "../types/ports.js";
import type { PollRequest, ReactionFilter, ReactionStream } from "../types/reaction-streams.js";
import type { BlockedLease, Lease, Poll } from "../types/lease.js";
import { Appender } from "./in-memory/append.js";
import { Archive } from "./in-memory/archive.js";
import { Database } from "./in-memory/database.js";
import { Leases } from "./in-memory/leases.js";
import { Notifier } from "./in-memory/notify.js";
import { project } from "./in-memory/projections.js";
import { query as read } from "./in-memory/read.js";
import { Timers } from "./in-memory/timers.js";
import { Transfer } from "./in-memory/transfer.js";
import type { TimerStore } from "../types/timers.js";
import type { StoreTransfer } from "../types/transfer.js";
import { SubjectKeys } from "./in-memory/subject-keys.js";
import type { SubjectKeyStore } from "../types/personal.js";

/**
 * Everything a store holds, for the tests that prove what is (and is not)
 * in it — the package's entry point does not export it.
 */
export let databaseOf: (store: InMemoryStore) => Database;
import type { ArchiveStore } from "../types/archive.js";

/**
 * The default {@link Store}: events and watermarks in process memory. It is
 * exact (stream names match exactly), costs O(1) amortised per commit and
 * O(events read) per query, and adds no artificial delay. Everything is lost
 * when the process ends — use it for tests, examples and the browser.
 *
 * It keeps data as JSON, like `PostgresStore`: it refuses what JSON cannot
 * hold (functions, bigints, maps, class instances, cycles…) with the same
 * error, and a date comes back as its ISO string (the app restores dates
 * where an event's schema declares them). The events it hands out are
 * frozen: changing one cannot change the log.
 *
 * @stable
 * @see [Event sourcing](/docs/concepts/event-sourcing#the-two-stores) — compares the two stores.
 * @example
 * ```ts
 * const memory = new InMemoryStore();
 * store(memory);
 * ```
 */
export class InMemoryStore implements Store {
  static {
    databaseOf = (store) => store.#db;
  }
  readonly #db = new Database();
  readonly #notifier = new Notifier();
  readonly #appender: Appender;
  readonly #leases = new Leases(this.#db);
  /** Scheduled actions, kept in memory with the events (see {@link TimerStore}). */
  readonly timers: TimerStore;
  readonly #timers = new Timers(this.#db);
  /** Copies into this store verbatim (see {@link StoreTransfer}); only logs whose ids have no gaps (but archived ones) fit. */
  readonly transfer: StoreTransfer;
  readonly #archive = new Archive(this.#db);
  /** Keys of data subjects, kept in memory with the events (see {@link SubjectKeyStore}). */
  readonly keys: SubjectKeyStore = new SubjectKeys(this.#db, this.#archive);
  /** The events of closed streams moved out of the log, kept in memory beside it (see {@link ArchiveStore}). */
  readonly archive: ArchiveStore = this.#archive;

  /**
   * @param options - the store's settings; all optional
   * @throws {@link ValidationError} naming an option that is not a whole number of at least 1
   */
  constructor(
    options: {
      /** How long an idempotency key is remembered, in ms (default 24 hours; a whole number, at least 1). */
      idempotencyMillis?: number;
    } = {}
  ) {
    checkOptions("store", options, OptionSchemas.store);
    this.#appender = new Appender(this.#db, this.#notifier, options.idempotencyMillis ?? 24 * 3600 * 1000);
    this.timers = this.#timers;
    this.transfer = new Transfer(this.#db, this.#archive);
  }

  /** Nothing to create. */
  async seed(): Promise<void> {}

  /** Forgets every event (archived ones too), watermark, idempotency key, discovery position and timer; ids go on from where they were. */
  async drop(): Promise<void> {
    this.#db.drop();
    this.#archive.drop();
  }

  /** Same as {@link InMemoryStore.drop}. */
  async dispose(): Promise<void> {
    await this.drop();
  }

  async commit<E extends Schemas>(commit: Commit<E>): Promise<Committed<E, keyof E>[]> {
    return this.#appender.commit(commit);
  }

  /**
   * Commits like `commit`, running `work` with the events (ids assigned)
   * before they are appended: a throw from `work` appends nothing and is
   * rethrown as it is. There is no transaction to undo what `work` wrote
   * before throwing, and `tx` is `undefined`. While a `work` that returns a
   * promise runs, other commits to this store wait for it, as they would
   * for a database transaction holding the ids.
   *
   * @param commit - what `commit` takes, and the timers to schedule or cancel with the events
   * @param work - the inline projections' handlers
   * @returns the committed events
   * @throws ConcurrencyError as `commit` does
   * @example
   * ```ts
   * const titles = new Map<number, string>();
   * await new InMemoryStore().commitInline(
   *   { stream: "t-1", messages: [{ name: "Opened", data: { title: "Printer" } }], meta: { correlation: "c", causation: {} } },
   *   (events) => void titles.set(events[0].id, "Printer")
   * );
   * ```
   */
  async commitInline<E extends Schemas>(
    commit: InlineCommit<E>,
    work: (events: Committed<E, keyof E>[], tx: undefined) => unknown
  ): Promise<Committed<E, keyof E>[]> {
    // The timers are checked before anything runs, and written in the step that appends the events.
    const along = commit.timers && this.#timers.within(commit.timers);
    return this.#appender.commitInline(commit, work, along);
  }

  async recall(stream: string, idempotencyKey: string): Promise<KeyedVersions | undefined> {
    return this.#appender.recall(stream, idempotencyKey);
  }

  async query<E extends Schemas>(callback: (event: Committed<E, keyof E>) => void, query: Query = {}): Promise<number> {
    return read(this.#db, callback, query);
  }

  async poll(request: PollRequest): Promise<Poll[]> {
    return this.#leases.poll(request);
  }

  async lease(leases: Lease[], millis: number): Promise<Lease[]> {
    return this.#leases.lease(leases, millis);
  }

  async ack(leases: Lease[]): Promise<Lease[]> {
    return this.#leases.ack(leases);
  }

  /**
   * Runs `work` with no handle — a read model kept next to this store lives
   * in the process's memory like the store, and no crash can leave one
   * without the other — then acknowledges `lease`. A lease that is not the
   * caller's any more runs nothing; a throw leaves the position untouched
   * and undoes nothing. Because it hands `work` no handle, the app then
   * records the progress of the events applied before the failing one, so
   * they are not applied again; what the failing handler wrote before
   * throwing stays (write it last, or make it idempotent).
   *
   * @param lease - the lease to acknowledge, with the last event projected as `at`
   * @param work - applies the events to the read model
   * @returns whether the lease was acknowledged
   * @example
   * ```ts
   * const memory = new InMemoryStore();
   * const totals = new Map<string, number>();
   * const moved = await memory.project({ ...granted, at: 57, retry: 0 }, () => void totals.set("n", 1));
   * ```
   */
  async project(lease: Lease, work: (tx: undefined) => unknown): Promise<boolean> {
    return project(this.#leases, lease, work);
  }

  async block(leases: BlockedLease[]): Promise<BlockedLease[]> {
    return this.#leases.block(leases);
  }

  async reactions(filter: ReactionFilter = {}): Promise<ReactionStream[]> {
    return this.#leases.reactions(filter);
  }

  async unblock(streams: string[]): Promise<string[]> {
    return this.#leases.unblock(streams);
  }

  async reset(streams: string[], at = -1): Promise<string[]> {
    return this.#leases.reset(streams, at);
  }

  async retire(reactions: string[]): Promise<string[]> {
    return this.#leases.retire(reactions);
  }

  async discovered(reactions: readonly string[]): Promise<Map<string, number>> {
    return this.#leases.discovered(reactions);
  }

  async discover(reactions: readonly string[], at: number): Promise<void> {
    this.#leases.discover(reactions, at);
  }

  /**
   * Calls `listener` after each commit to this store (apps in this process share it).
   *
   * @param listener - called after the commit with the names of the events committed; it should only schedule work (e.g. a drain)
   * @returns a function that stops the notifications
   */
  subscribe(listener: (names?: readonly string[]) => void): () => void {
    return this.#notifier.subscribe(listener);
  }
}
