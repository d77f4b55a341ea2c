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
import type pg from "pg";
import { Appender } from "./append.js";
import { Archive } from "./archive.js";
import { checkConfig, type PostgresStoreConfig } from "./config.js";
import { Database } from "./database.js";
import { Leases } from "./leases.js";
import { close, drop, IdCheck, seed } from "./lifecycle.js";
import { Notifier } from "./notify.js";
import { project } from "./projections.js";
import { query as read } from "./read.js";
import { Timers } from "./timers.js";
import { Transfer } from "./transfer.js";
import { SubjectKeys } from "./subject-keys.js";

/**
 * The {@link Store} port on PostgreSQL: events, reaction watermarks and leases in two tables, shared safely by
 * any number of app processes.
 *
 * - **Commits** are one statement — one round trip, one transaction — for any number of events. The database
 *   decides concurrency: a unique `(stream, version)` index and a version check inside the statement. A conflict
 *   always surfaces as a `ConcurrencyError`, never as a driver error.
 * - **Loads** are one statement that starts at the stream's latest snapshot (an index finds it) and reads only
 *   the events after it.
 * - **Reading is visibility-safe**: an event's id is derived from its transaction id, and reads across streams
 *   (`query` without `stream`, and so every drain) stop before any transaction still in flight that can write
 *   the events table, so an event that commits late is never skipped. Transactions that only read, or write
 *   other tables, hold nothing back; a writer of the events table left open does, and is named in a warning once
 *   it has been open longer than `slowWriterMillis`. A read of one stream always sees every committed event of
 *   that stream.
 * - **Wake-ups**: every commit is announced with a `NOTIFY` delivered once it is visible, at most one per 5 ms
 *   (inside a commit that starts when one is due, or on its own once commits stop; only those commits take
 *   PostgreSQL's lock on notifying transactions, so concurrent commits still share disk flushes), and `subscribe`
 *   listens on a connection of its own, so a running consumer in another process drains at once; its polling
 *   stays the safety net.
 * - **Idempotency keys** live in a table of their own with a primary key on `(stream, key)` claimed in the
 *   commit's statement, so two processes racing with one key commit once. Keys expire after `idempotencyMillis`;
 *   expired ones are deleted in batches, at most once a minute, by a statement of its own after a keyed commit
 *   (never inside it).
 * - **Leases** lock watermark rows with `FOR UPDATE SKIP LOCKED`, so competing drainers in several processes
 *   never handle a stream at the same time and never wait for each other.
 * - **Data** is stored as `json`, exactly as written, and read back as parsed JSON (a date is its ISO string, as
 *   in every store; the app restores dates where the event's schema declares them). `created` is a `timestamptz`
 *   at millisecond precision. Values JSON cannot round-trip (functions, bigints, maps, cycles…) are refused with
 *   an error naming the path.
 * - **Failures** are `StoreError`s with a `reason` and `retryable`: the database unreachable, a connection lost
 *   mid-call, every pooled connection busy, the store disposed, or the statement refused. The pool replaces
 *   broken connections and the next call works. A commit is atomic, so no half commit is ever visible.
 *
 * Configuration can never inject SQL: schema and table names are validated identifiers, every value is a query parameter.
 *
 * @stable
 * @see [Configuration](/docs/concepts/configuration#switching-to-postgres) — sets it up step by step.
 * @example
 * ```ts
 * import { act, store } from "@act-root/act";
 * import { PostgresStore } from "@act-root/act-pg";
 *
 * store(new PostgresStore({ host: "localhost", database: "app", user: "app", password: "secret" }));
 * await store().seed(); // creates the schema, tables and indexes if missing
 *
 * const app = act().with(Counter).build();
 * await app.do("increment", { stream: "counter-1", actor: { id: "u1", name: "Ada" } }, { by: 1 });
 * ```
 */
export class PostgresStore implements Store {
  // Private fields (not TypeScript `private`): the database handle holds the
  // connection settings, password included, and must not show in `util.inspect` or logs.
  readonly #db: Database;
  readonly #ids: IdCheck;
  readonly #notifier: Notifier;
  readonly #appender: Appender;
  readonly #leases: Leases;
  /** Scheduled actions, in the `<table>_timers` table (see {@link TimerStore}). */
  readonly timers: TimerStore;
  /** Copies into and out of the tables verbatim (see `StoreTransfer` and `copyStore`). */
  readonly transfer: StoreTransfer;
  /** Keys of data subjects, in the `<table>_subject_keys` table (see {@link SubjectKeyStore}). */
  readonly keys: SubjectKeyStore;
  readonly #timers: Timers;
  /** The events of closed streams moved out of the log, in the `<table>_archive` table (see {@link ArchiveStore}). */
  readonly archive: ArchiveStore;

  /**
   * Creates the store and its connection pool (no connection is opened until
   * the first call).
   *
   * @param config - connection, schema and table; every field optional (see {@link PostgresStoreConfig})
   * @throws Error naming the field when `schema` or `table` is not a plain SQL identifier, or `port` is not a port
   * @example
   * ```ts
   * const local = new PostgresStore(); // localhost:5432, database postgres, table public.events
   * const url = new PostgresStore({ connectionString: process.env.DATABASE_URL, schema: "billing" });
   * ```
   */
  constructor(config: PostgresStoreConfig = {}) {
    const { schema, table } = checkConfig(config);
    this.#db = new Database(config, schema, table);
    this.#ids = new IdCheck(this.#db);
    this.#notifier = new Notifier(this.#db);
    this.#appender = new Appender(this.#db, this.#ids, this.#notifier);
    this.#leases = new Leases(this.#db);
    this.#timers = new Timers(this.#db);
    this.timers = this.#timers;
    this.transfer = new Transfer(this.#db);
    this.keys = new SubjectKeys(this.#db);
    this.archive = new Archive(this.#db);
  }

  /** What `util.inspect` and `console.log` show: the table, never the connection settings. */
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `PostgresStore { table: ${this.#db.names.events} }`;
  }

  /** What `JSON.stringify` shows: the table, never the connection settings. */
  toJSON(): {
    /** The events table, schema-qualified. */
    table: string;
  } {
    return { table: this.#db.names.events };
  }

  /**
   * Creates the schema, the events table and the tables beside it (watermarks, idempotency keys, discovery
   * positions, timers, the archive) with their indexes — unique `(stream, version)`, `(stream, id)` for stream
   * reads, a partial index of snapshot events for loads — and adds columns a newer version of this library
   * needs to existing tables. Idempotent: existing objects and events are kept. On tables already current
   * (stamped by the last `seed` with this version's DDL, and unchanged since) it only reads the catalog and
   * takes no lock on them, so processes starting beside running drains never hold those drains up.
   *
   * @throws StoreError when the database is unreachable or the user may not create them
   * @example
   * ```ts
   * await new PostgresStore({ schema: "app" }).seed();
   * ```
   */
  async seed(): Promise<void> {
    await seed(this.#db, this.#ids);
  }

  /**
   * Drops the tables — every event, archived event and watermark is lost — and the schema if `seed` created
   * it and it is now empty (never `public`). An app that keeps running afterwards starts the streams it knew
   * again from an empty log.
   *
   * @example
   * ```ts
   * await store.drop(); await store.seed(); // e.g. between tests
   * ```
   */
  async drop(): Promise<void> {
    await drop(this.#db);
  }

  /**
   * Closes the connection pool (after the calls in progress finish) and the wake-up listener. Calling it
   * again does nothing; other calls fail afterwards with a `StoreError` whose reason is `"disposed"`.
   *
   * @example
   * ```ts
   * await store.dispose();
   * ```
   */
  async dispose(): Promise<void> {
    await close(this.#db, this.#notifier, this.#appender);
  }

  /**
   * Appends events to a stream in one statement: all or nothing.
   *
   * @param commit - the stream (see `StreamSchema`), the events in order (at most 65,536 events per commit), the metadata stored with each,
   *   and the checks: `expectedVersion`, `lastId`, `idempotencyKey` with its `request` digest (see `Commit`)
   * @returns the committed events with ids, versions and the commit time
   * @throws ConcurrencyError when the stream is not at `expectedVersion`, another commit to the stream won the race, or the key was used
   * @throws ValidationError when the stream name breaks the rules of `StreamSchema`
   * @throws TypeError when `data` or `meta` is not JSON-serialisable (naming the path)
   * @throws StoreError when the database cannot be used (a lost connection: the commit applied entirely or not at all)
   * @example
   * ```ts
   * const [event] = await store.commit({ stream: "order-1", messages: [{ name: "Placed", data: { total: 10 } }], meta, expectedVersion: -1 });
   * ```
   */
  async commit<E extends Schemas>(commit: Commit<E>): Promise<Committed<E, keyof E>[]> {
    return this.#appender.commit(commit);
  }

  /**
   * Commits like `commit`, on one pooled connection inside `BEGIN`/`COMMIT`,
   * running `work` with the committed events and the transaction's client
   * before `COMMIT`: the events and `work`'s writes commit together, or —
   * when `work` throws or the commit conflicts — neither. A collision with a
   * concurrent commit that `commit` would retry rolls back and tries again
   * (`work` runs again, in the new transaction).
   *
   * @param commit - what `commit` takes, and the timers to schedule or cancel with the events
   * @param work - writes the read model with the client; must use no other connection for them
   * @returns the committed events
   * @throws ConcurrencyError as `commit` does (nothing committed, `work` not run)
   * @throws StoreError when the database cannot be used (the transaction rolled back, or — connection lost at `COMMIT` — applied entirely or not at all)
   * @example
   * ```ts
   * await store.commitInline(
   *   { stream: "order-1", messages: [{ name: "Placed", data: { total: 10 } }], meta, expectedVersion: -1 },
   *   (events, client) => client.query("INSERT INTO orders (id, total) VALUES ($1, 10)", [events[0].stream])
   * );
   * ```
   */
  async commitInline<E extends Schemas>(
    commit: InlineCommit<E>,
    work: (events: Committed<E, keyof E>[], client: pg.PoolClient) => unknown
  ): Promise<Committed<E, keyof E>[]> {
    // The commit's timers, checked now, are written on its transaction's client before the handlers run.
    const timers = commit.timers && this.#timers.within(commit.timers);
    if (!timers) return this.#appender.commitInline(commit, work);
    return this.#appender.commitInline(commit, async (events, client) => {
      await timers(client);
      return work(events, client);
    });
  }

  /**
   * The stream versions committed under an idempotency key, if the stream
   * holds it and it has not expired (`idempotencyMillis`, a day by default).
   *
   * @param stream - the stream the action was addressed to
   * @param idempotencyKey - the key the action was committed under
   * @returns the first and last version committed under the key, or `undefined`
   * @example
   * ```ts
   * const range = await store.recall("order-1", "request-42"); // { from: 3, to: 4 } or undefined
   * ```
   */
  async recall(stream: string, idempotencyKey: string): Promise<KeyedVersions | undefined> {
    return this.#appender.recall(stream, idempotencyKey);
  }

  /**
   * Calls `callback` with each event matching `query`, in global order (by
   * id), or newest first with `backward`. The result is read a page of 1,000
   * rows at a time, so a large log is walked in constant memory.
   *
   * Reads across streams stop before the first transaction still in flight
   * that can write the events table (see the class notes), so a reader that
   * continues from the last id it saw never skips an event. A read of one
   * stream sees every committed event of that stream.
   *
   * @param callback - called once per event, in order
   * @param query - filters (see `Query` in `@act-root/act`); snapshot events only with `with_snaps` or `from_snapshot`
   * @returns how many events were passed to `callback`
   * @throws ValidationError when the query does not match `QuerySchema`
   * @example
   * ```ts
   * const count = await store.query((e) => console.log(e.version, e.name), { stream: "order-1" });
   * ```
   */
  async query<E extends Schemas>(callback: (event: Committed<E, keyof E>) => void, query: Query = {}): Promise<number> {
    return read(this.#db, callback, query);
  }

  /**
   * Lists reaction streams with work after their watermark (see `Store.poll`)
   * that are neither blocked, leased nor waiting out a retry's backoff: up to
   * `lagging` with the lowest watermarks (flagged `lagging: true`), then up to
   * `leading` of the rest with the highest. One statement. Every
   * `slowWriterMillis` it also looks for writers of the events table open
   * longer than that — they hold reactions back — and logs a warning naming
   * each one's backend pid and age.
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
   * (see `Lease.joining`), its `head` only grows — and, when
   * `millis` > 0, leases each one to `lease.by` for `millis` unless it is
   * blocked, another drainer holds an unexpired lease (or it waits out a
   * retry's backoff), or its watermark already moved past `lease.at`
   * (another drainer handled those events since this one polled). The holder
   * renews its own lease when it passes the `token` it was granted (a renewal
   * waits for a row lock instead of skipping the row); a new lease moves the
   * token on. Rows another transaction is locking at that moment are skipped
   * (`FOR UPDATE SKIP LOCKED`) by new leases, never waited for. One statement.
   *
   * @param leases - the streams to register or lease
   * @param millis - lease length (any non-negative integer); 0 only registers
   * @returns the leases obtained, in input order, with the stored `at`, `retry`, `done`, `head`, `ahead` and `reactions` (every registered one when `millis` is 0)
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
   * `lease.by` still holds it; with `lease.delay` the stream stays out of
   * `poll` that long. One statement.
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
   * Runs `work` in a transaction on one pooled connection, handing it the
   * connection, then acknowledges `lease` in the same transaction (the rule
   * of `ack`) and commits — or rolls back when the acknowledgement is
   * refused (the stream was reset, unblocked or taken by another drainer
   * since), so the read model never gets writes for a position that did not
   * move. A throw from `work` rolls back and is rethrown as it is. A crash
   * anywhere leaves both as they were before the transaction: each event is
   * applied to a read model in this database exactly once.
   *
   * @param lease - the lease to acknowledge, with the last event projected as `at`
   * @param work - writes the read model with the client; must use no other connection for them
   * @returns whether the lease was acknowledged and the writes committed
   * @throws StoreError when the database cannot be used (the transaction rolled back, or — connection lost at `COMMIT` — applied entirely or not at all)
   * @example
   * ```ts
   * const moved = await store.project({ ...granted, at: 57, retry: 0 }, (client) =>
   *   client.query("UPDATE totals SET n = n + 1")
   * );
   * ```
   */
  async project(lease: Lease, work: (client: pg.PoolClient) => unknown): Promise<boolean> {
    return project(this.#db, lease, work);
  }

  /**
   * Blocks each stream with its error — it is no longer polled or leased —
   * keeping the progress made before the failure (`lease.at`, `lease.done`),
   * stores `lease.retry` and releases the lease, only where `lease.by` still
   * holds it. One statement.
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
   * Lists reaction streams with their watermark, retries, blocked state and
   * lease, by stream name.
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
   * Unblocks streams: they resume at their watermark with retries reset.
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
   * unblocked, retries reset, under a new lease generation; a lease in force
   * stays until it runs out, so no second drainer starts beside a handler
   * that may still run.
   *
   * @param streams - the reaction streams to reset; names the table does not have are skipped
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
   * Forgets reactions no release has any more on every stream that carries
   * them, so apps without them can lease those streams again. One statement.
   *
   * @param reactions - the reaction names, as `"<event>/<reaction key>"`
   * @returns the reaction streams that carried one of them, by name
   * @example
   * ```ts
   * await store.retire(["Placed/welcome"]);
   * ```
   */
  async retire(reactions: string[]): Promise<string[]> {
    return this.#leases.retire(reactions);
  }

  /**
   * How far correlation has gone for each of `reactions`, as every process
   * on this table recorded it (table `<table>_discovery`). One statement.
   *
   * @param reactions - the reaction names, as `"<event>/<reaction key>"`
   * @returns the position of each reaction that has one; a reaction never discovered is absent
   * @example
   * ```ts
   * const positions = await store.discovered(["Placed/invoice#1"]);
   * console.log(positions.get("Placed/invoice#1") ?? "never discovered");
   * ```
   */
  async discovered(reactions: readonly string[]): Promise<Map<string, number>> {
    return this.#leases.discovered(reactions);
  }

  /**
   * Moves each of `reactions` forward to `at` — never back: a position
   * already past it stays, so racing processes are harmless. One statement.
   *
   * @param reactions - the reaction names, as `"<event>/<reaction key>"`
   * @param at - the id of the last event correlated for them
   * @example
   * ```ts
   * await store.discover(["Placed/invoice#1"], 41);
   * ```
   */
  async discover(reactions: readonly string[], at: number): Promise<void> {
    await this.#leases.discover(reactions, at);
  }

  /**
   * Calls `listener` when a commit to this table is announced — by this
   * process or any other — through `LISTEN` on a connection of its own. After
   * that connection is lost it listens again and calls every listener once,
   * since notifications may have been missed meanwhile.
   *
   * Commits through this store are told at once, in this process, with
   * the names of the events committed; commits elsewhere arrive with their
   * names too when the announcing store sends them (up to about 8 KB of
   * names), and without names otherwise.
   *
   * @param listener - called with the names of the events committed when known; it should only schedule work (e.g. a drain), not wait for it
   * @returns a function that stops the notifications (the connection closes with the last listener)
   * @example
   * ```ts
   * const stop = store.subscribe(() => console.log("something was committed"));
   * ```
   */
  subscribe(listener: (names?: readonly string[]) => void): () => void {
    return this.#notifier.subscribe(listener);
  }
}
