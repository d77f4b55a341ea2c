import type {
  BlockedLease,
  Commit,
  Committed,
  InlineCommit,
  KeyedVersions,
  Lease,
  Poll,
  PollRequest,
  Query,
  ReactionFilter,
  ReactionStream,
  Schemas,
  Store,
  StoreTransfer,
  SubjectKeyStore,
  TimerStore,
  ArchiveStore,
} from "@act-root/act";
import { Appender } from "./append.js";
import { checkConfig, type SqliteStoreOptions } from "./config.js";
import { Database } from "./database.js";
import type { Connection } from "./driver.js";
import { Leases } from "./leases.js";
import { backup, close, drop, seed } from "./lifecycle.js";
import { Notifier } from "./notify.js";
import { project } from "./projections.js";
import { query as read } from "./read.js";
import { Timers } from "./timers.js";
import { Transfer } from "./transfer.js";
import { SubjectKeys } from "./subject-keys.js";
import { Archive } from "./archive.js";

/**
 * The {@link Store} port on SQLite: a durable event store in one file, for
 * apps on one machine — a CLI, a desktop or edge app, a small service, tests
 * that want real durability — with no server to run.
 *
 * - **Commits** run in `BEGIN IMMEDIATE` transactions: the write lock is
 *   taken before the stream's version is read, so of two commits with the
 *   same expected version — in this process or another — exactly one lands,
 *   and the other gets a `ConcurrencyError`. Ids grow with every commit and
 *   are never reused, not even after `drop()`.
 * - **Durable by default**: WAL mode with `synchronous=FULL`, one disk sync
 *   per commit. `synchronous: "NORMAL"` trades the last commits before a
 *   power loss for several times the write rate.
 * - **Several processes** can share the file: each waits up to `busyTimeoutMillis` for the write lock, leases
 *   keep two drainers off the same reaction stream, and a busy database surfaces as a retryable `StoreError`,
 *   never as a raw driver error.
 * - **Loads** start at the stream's latest snapshot (a partial index finds it).
 * - **Wake-ups**: `subscribe` listeners hear about commits of this store at
 *   once, and about other processes' commits within `changeCheckMillis`
 *   (a `PRAGMA data_version` check, which costs no disk read).
 * - **Data** is JSON text, read back as parsed JSON (a date comes back as its
 *   ISO string, as in every store); `created` has millisecond precision.
 * - **Files**: the schema carries a version (`PRAGMA user_version`) and `seed()` moves older files forward. A
 *   missing directory, a read-only file, a file that is not SQLite or one written by a newer version of this
 *   package is refused with a `StoreError` naming the file, which is left untouched. The file is opened on the
 *   first call.
 *
 * @stable
 * @see [Embedded store (SQLite)](/docs/guides/sqlite) — when to choose it, backups, several processes.
 * @example
 * ```ts
 * import { act, store } from "@act-root/act";
 * import { SqliteStore } from "@act-root/act-sqlite";
 *
 * store(new SqliteStore({ filename: "./data/app.db" }));
 * await store().seed(); // creates the tables if missing
 *
 * const app = act().with(Counter).build();
 * await app.do("increment", { stream: "counter-1", actor: { id: "u1", name: "Ada" } }, { by: 1 });
 * ```
 */
export class SqliteStore implements Store {
  readonly #db: Database;
  readonly #notifier: Notifier;
  readonly #appender: Appender;
  readonly #leases: Leases;
  /** Scheduled actions, in the file's `act_timers` table (see {@link TimerStore}). */
  readonly timers: TimerStore;
  /** Copies into and out of the file verbatim (see `StoreTransfer` and `copyStore`). */
  readonly transfer: StoreTransfer;
  /** Keys of data subjects, in `act_subject_keys`; forgetting zeroes their bytes (see {@link SubjectKeyStore}). */
  readonly keys: SubjectKeyStore;
  /** The events of closed streams moved out of the log, in the file's `act_archive` table (see {@link ArchiveStore}). */
  readonly archive: ArchiveStore;

  /** Projection handlers run synchronously in the write transaction: `async` ones are refused first (see `Store.synchronousHandlers`). */
  readonly synchronousHandlers = true;

  /**
   * Checks the options; the file is opened on the first call.
   *
   * @param options - the file and its settings (see {@link SqliteStoreOptions})
   * @throws ValidationError when an option is out of range
   * @example
   * ```ts
   * const durable = new SqliteStore({ filename: "./data/app.db" });
   * const scratch = new SqliteStore({ filename: ":memory:" });
   * ```
   */
  constructor(options: SqliteStoreOptions) {
    this.#db = new Database(checkConfig(options));
    this.#notifier = new Notifier(this.#db);
    this.#appender = new Appender(this.#db, this.#notifier);
    this.#leases = new Leases(this.#db);
    this.timers = new Timers(this.#db);
    this.transfer = new Transfer(this.#db);
    this.keys = new SubjectKeys(this.#db);
    this.archive = new Archive(this.#db);
  }

  /** What `util.inspect` and `console.log` show. */
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `SqliteStore { filename: ${JSON.stringify(this.#db.settings.filename)} }`;
  }

  /**
   * Opens the file (creating it if missing) and creates the tables and
   * indexes, or moves a file written by an older version of this package to
   * the current schema. Idempotent: events are kept.
   *
   * @throws StoreError naming the file when it cannot be used (missing directory, read-only, not SQLite, newer schema)
   * @example
   * ```ts
   * await new SqliteStore({ filename: "./data/app.db" }).seed();
   * ```
   */
  async seed(): Promise<void> {
    seed(this.#db);
  }

  /**
   * Drops the store's tables — every event, archived event, watermark, timer and subject key is lost. One row
   * remembering the last id stays (`act_meta`), so ids go on from where they were after `seed()`.
   *
   * @example
   * ```ts
   * await store.drop(); await store.seed(); // e.g. between tests
   * ```
   */
  async drop(): Promise<void> {
    drop(this.#db);
  }

  /**
   * Stops the change checks and closes the file. Calling it again does nothing; other
   * calls fail afterwards with a `StoreError` whose reason is `"disposed"`.
   *
   * @example
   * ```ts
   * await store.dispose();
   * ```
   */
  async dispose(): Promise<void> {
    close(this.#db, this.#notifier);
  }

  /**
   * Closes the file until the next call opens it again (with a first open's checks): a store kept for an
   * occasional user gives back its three file descriptors meanwhile (once the driver's prepared statements are
   * garbage-collected). Listeners stay subscribed, but other processes' commits are not checked for until then
   * (polls still find them). Every commit is in the file; an in-memory database is left open (closing would
   * erase it). `sqliteTenants` rests an idle tenant's store.
   * @example
   * ```ts
   * store.rest(); // the next query opens the file again
   * ```
   */
  rest(): void {
    this.#db.rest();
  }

  /**
   * Writes a consistent copy of the database to `destination` while the app
   * keeps running (`VACUUM INTO`): every commit made before the call, compact,
   * in one file with no WAL beside it. Other processes keep committing
   * meanwhile; the copy does not see their later commits.
   *
   * @param destination - the path of the new file (not a `file:` URI); its directory must exist and the file must not. It is created readable by its owner only (mode 0600)
   * @throws StoreError when the destination is a `file:` URI, a symbolic link or an existing file, or cannot be written
   * @example
   * ```ts
   * await store.backup(`./backups/app-${new Date().toISOString().slice(0, 10)}.db`);
   * ```
   */
  async backup(destination: string): Promise<void> {
    backup(this.#db, destination);
  }

  /**
   * Appends events to a stream in one transaction: all or nothing.
   *
   * @param commit - the stream (see `StreamSchema`), the events in order, the metadata stored with each,
   *   and the checks: `expectedVersion`, `lastId`, `idempotencyKey` with its `request` digest (see `Commit`)
   * @returns the committed events with ids, versions and the commit time
   * @throws ConcurrencyError when the stream is not at `expectedVersion`, its last event is not `lastId`, or the key was used
   * @throws ValidationError when a name or number breaks the rules every store shares (see `checkCommit`)
   * @throws TypeError when `data` or `meta` is not JSON-serialisable (naming the path)
   * @throws StoreError when the file cannot be used, or stayed locked longer than `busyTimeoutMillis` (retryable)
   * @example
   * ```ts
   * const [event] = await store.commit({ stream: "order-1", messages: [{ name: "Placed", data: { total: 10 } }], meta, expectedVersion: -1 });
   * ```
   */
  async commit<E extends Schemas>(commit: Commit<E>): Promise<Committed<E, keyof E>[]> {
    return this.#appender.commit(commit);
  }

  /**
   * Commits like `commit`, running `work` with the committed events and the
   * store's connection inside the same write transaction, before it
   * commits: the events and `work`'s writes commit together, or — when
   * `work` throws or the commit conflicts — neither, and `work`'s error is
   * rethrown as it is. `work` runs synchronously, as with `project`: a
   * `work` that returns a promise is refused (rolled back, with an error
   * saying so), and its connection works only while `work` runs.
   *
   * @param commit - what `commit` takes, and the timers to schedule or cancel with the events
   * @param work - writes the read model with `db.prepare(sql).run(...)` or `db.exec(sql)`
   * @returns the committed events
   * @throws ConcurrencyError as `commit` does (nothing committed, `work` not run)
   * @throws Error when `work` returned a promise
   * @example
   * ```ts
   * await store.commitInline(
   *   { stream: "order-1", messages: [{ name: "Placed", data: { total: 10 } }], meta, expectedVersion: -1 },
   *   (events, db) => db.prepare("INSERT INTO orders (id, total) VALUES (?, 10)").run(events[0].stream)
   * );
   * ```
   */
  async commitInline<E extends Schemas>(
    commit: InlineCommit<E>,
    work: (events: Committed<E, keyof E>[], db: Connection) => unknown
  ): Promise<Committed<E, keyof E>[]> {
    // The commit's timers, checked now, are written in its transaction before the handlers run.
    const timers = commit.timers && (this.timers as Timers).within(commit.timers, `commit to "${commit.stream}"`, work);
    return this.#appender.commit(commit, timers ?? work);
  }

  /**
   * Looks an idempotency key up: the versions a commit under it wrote to the
   * stream, unless it is older than `idempotencyMillis` (a day by default).
   *
   * @param stream - where the keyed action committed
   * @param idempotencyKey - the action's key
   * @returns `{ from, to }`, the versions it wrote (and `request`, what the request asked for, when recorded), or `undefined` for an unknown or expired key
   * @example
   * ```ts
   * const written = await store.recall("cart-9", "checkout-7");
   * if (written) console.log(`already done: versions ${written.from}..${written.to}`);
   * ```
   */
  async recall(stream: string, idempotencyKey: string): Promise<KeyedVersions | undefined> {
    return this.#appender.recall(stream, idempotencyKey);
  }

  /**
   * Reads events: those matching every filter of `query`, oldest first (by
   * id; a stream's in version order, the same order) or newest first with
   * `backward`, handed to `callback` one by one, 1,000 rows per statement.
   *
   * @param callback - gets each event, synchronously, before the promise resolves
   * @param query - the filters (`Query` from `@act-root/act`); snapshot events come only with `with_snaps` or `from_snapshot`
   * @returns the number of events read
   * @throws ValidationError for a query `QuerySchema` refuses
   * @example
   * ```ts
   * const names: string[] = [];
   * await store.query((e) => names.push(e.name), { stream: "cart-9", backward: true, limit: 10 });
   * ```
   */
  async query<E extends Schemas>(callback: (event: Committed<E, keyof E>) => void, query: Query = {}): Promise<number> {
    return read(this.#db, callback, query);
  }

  /**
   * Lists reaction streams with work after their watermark that are neither
   * blocked, leased nor waiting out a retry's backoff: up to `lagging` with
   * the lowest watermarks, then up to `leading` of the rest with the highest.
   *
   * @param request - how many of the most lagging (`lagging`) and most leading (`leading`) streams, and the
   *   reactions this drainer runs (`reactions`: only streams all of whose recorded reactions are among them)
   * @returns the streams, lagging ones first (lowest `at` first), then leading ones (highest `at` first)
   * @example
   * ```ts
   * const ready = await store.poll({ lagging: 5, leading: 5 });
   * ```
   */
  async poll(request: PollRequest): Promise<Poll[]> {
    return this.#leases.poll(request);
  }

  /**
   * Registers the leases' streams — a missing one starts at its `at`; an
   * existing watermark moves only back, for a reaction that joins it late
   * (see `Lease.joining`), its `head` only grows, and the
   * `reactions` named are added to the stream's set — and, when `millis` > 0,
   * leases each one to `lease.by` for `millis`, unless it is blocked, held by
   * another drainer (or waiting out a backoff), or its watermark moved past
   * `lease.at`. A grant starts a new generation (`token`); a lease that
   * carries the current `token` of its holder is a renewal: it keeps the
   * token and extends the lease, even after it expired, as long as nobody
   * else took it. A renewal with a stale token is refused. One transaction.
   *
   * @param leases - the streams to register or lease
   * @param millis - lease length in ms; 0 only registers
   * @returns the leases obtained with the stored `retry`, `done` and `token` (every registered one when `millis` is 0)
   * @example
   * ```ts
   * const [granted] = await store.lease([{ stream: "r-1", by: "drainer-a", at: 41, retry: 0 }], 10_000);
   * ```
   */
  async lease(leases: Lease[], millis: number): Promise<Lease[]> {
    return this.#leases.lease(leases, millis);
  }

  /**
   * Moves each stream's watermark to `lease.at` (never backwards), stores
   * `lease.retry` and `lease.done` and releases the lease — only where
   * `lease.by` holds it under the lease's `token` (the current generation)
   * and, when `lease.reactions` says which reactions the drainer has, only if
   * the stream carries no other. With `lease.delay` the stream stays out of `poll`
   * that long. One transaction.
   *
   * @param leases - the leases to acknowledge
   * @returns the leases acknowledged, in input order
   * @example
   * ```ts
   * await store.ack([{ ...granted, at: 57, retry: 0 }]);
   * ```
   */
  async ack(leases: Lease[]): Promise<Lease[]> {
    return this.#leases.ack(leases);
  }

  /**
   * Runs `work` in a write transaction, handing it the store's connection,
   * then acknowledges `lease` in the same transaction (the rule of `ack`)
   * and commits — or rolls back when the acknowledgement is refused (the
   * stream was reset, unblocked or taken by another drainer since). A throw
   * from `work` rolls back and is rethrown as it is. A crash anywhere leaves
   * both as they were: each event is applied to a read model in this file
   * exactly once.
   *
   * `work` runs synchronously — the driver is synchronous, and the
   * connection is shared with the rest of the store, so nothing else may
   * run inside the transaction. A `work` that returns a promise is refused
   * (rolled back, with an error saying so). The connection `work` gets
   * works only while `work` runs: code that still runs after it returned
   * (after an `await`) cannot write through it.
   *
   * @param lease - the lease to acknowledge, with the last event projected as `at`
   * @param work - writes the read model with `db.prepare(sql).run(...)` or `db.exec(sql)`
   * @returns whether the lease was acknowledged and the writes committed
   * @throws Error when `work` returned a promise
   * @throws StoreError when the file cannot be written (nothing was done)
   * @example
   * ```ts
   * const moved = await store.project({ ...granted, at: 57, retry: 0 }, (db) =>
   *   db.prepare("UPDATE totals SET n = n + 1").run()
   * );
   * ```
   */
  async project(lease: Lease, work: (db: Connection) => unknown): Promise<boolean> {
    return project(this.#db, lease, work);
  }

  /**
   * Blocks each stream with its error — no longer polled or leased — keeping
   * the progress made before the failure (`lease.at`, `lease.done`), stores
   * `lease.retry` and releases the lease; only where `lease.by` holds it
   * under the lease's `token`, and has every reaction the stream carries
   * (when `lease.reactions` is given). One transaction.
   *
   * @param leases - the leases to block, each with the error that caused it
   * @returns the leases blocked, in input order
   * @example
   * ```ts
   * await store.block([{ ...granted, retry: 4, error: "handler failed 4 times" }]);
   * ```
   */
  async block(leases: BlockedLease[]): Promise<BlockedLease[]> {
    return this.#leases.block(leases);
  }

  /**
   * Lists reaction streams with their watermark, head, retries, blocked
   * state, lease and the reactions that target them, by stream name.
   *
   * @param filter - which streams to list; omitted, all of them
   * @returns the reaction streams, by name
   * @example
   * ```ts
   * const blocked = await store.reactions({ blocked: true });
   * ```
   */
  async reactions(filter: ReactionFilter = {}): Promise<ReactionStream[]> {
    return this.#leases.reactions(filter);
  }

  /**
   * Unblocks streams: they resume at their watermark with retries reset. A
   * new lease generation starts, so an ack begun before is refused.
   *
   * @param streams - the reaction streams to unblock; names that are not blocked are skipped
   * @returns the streams that were blocked and are not any more
   * @example
   * ```ts
   * await store.unblock(["audit"]);
   * ```
   */
  async unblock(streams: string[]): Promise<string[]> {
    return this.#leases.unblock(streams);
  }

  /**
   * Moves streams' watermarks back to the start of the log (or to `at`),
   * unblocked, retries reset and a new lease generation started; a lease in
   * force stays until it runs out, so no second drainer starts beside a
   * handler that may still run. `head` stays: a stream reset to the end of the log has no work.
   *
   * @param streams - the reaction streams to reset; names the store does not have are skipped
   * @param at - the id of the last event to count as handled; omitted (-1), every event is handled again
   * @returns the streams reset
   * @example
   * ```ts
   * await store.reset(["report-projection"]);
   * ```
   */
  async reset(streams: string[], at = -1): Promise<string[]> {
    return this.#leases.reset(streams, at);
  }

  /**
   * Forgets reactions no release has any more on every reaction stream that
   * carries them, so apps without them can lease those streams again. One
   * transaction.
   *
   * @param reactions - the reaction names, as `"<event>/<reaction key>"`
   * @returns the reaction streams that carried one of them, by name
   * @example
   * ```ts
   * await store.retire(["TicketOpened/notifyLegacy"]);
   * ```
   */
  async retire(reactions: string[]): Promise<string[]> {
    return this.#leases.retire(reactions);
  }

  /**
   * How far correlation has gone for each of `reactions`, as every process
   * on the file recorded it (table `act_discovery`).
   *
   * @param reactions - the reaction names, as `"<event>/<reaction key>"`
   * @returns the position of each reaction that has one; a reaction never discovered is absent
   * @example
   * ```ts
   * const positions = await store.discovered(["TicketOpened/assign#1"]);
   * ```
   */
  async discovered(reactions: readonly string[]): Promise<Map<string, number>> {
    return this.#leases.discovered(reactions);
  }

  /**
   * Moves each of `reactions` forward to `at` — never back: a position
   * already past it stays, so racing processes are harmless. One transaction.
   *
   * @param reactions - the reaction names, as `"<event>/<reaction key>"`
   * @param at - the id of the last event correlated for them
   * @example
   * ```ts
   * await store.discover(["TicketOpened/assign#1"], 41);
   * ```
   */
  async discover(reactions: readonly string[], at: number): Promise<void> {
    this.#leases.discover(reactions, at);
  }

  /**
   * Calls `listener` after each commit through this store (right after it
   * commits), and within `changeCheckMillis` (100 ms by default) of a commit
   * by any other connection to the file — another process included — found
   * by a `PRAGMA data_version` check on a timer that does not keep the
   * process alive.
   *
   * @param listener - called with the names of the events committed through this store (without names for other connections' commits); it should only schedule work (e.g. a drain), not wait for it
   * @returns a function that stops the notifications
   * @example
   * ```ts
   * const stop = store.subscribe(() => console.log("something was committed"));
   * ```
   */
  subscribe(listener: (names?: readonly string[]) => void): () => void {
    return this.#notifier.subscribe(listener);
  }
}
