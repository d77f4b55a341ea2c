import {
  type BlockedLease,
  checkCommit,
  checkDiscovery,
  checkName,
  checkOptions,
  type Committed,
  ConcurrencyError,
  type EventMeta,
  type InlineCommit,
  type KeyedVersions,
  type Lease,
  logger,
  type Message,
  OptionSchemas,
  type Poll,
  type Query,
  QuerySchema,
  type ReactionFilter,
  type ReactionStream,
  type Schemas,
  type Store,
  sleep,
  StoreError,
  type StoreFailure,
  StreamSchema,
  stringifyJson,
  validate,
  ValidationError,
} from "@act-root/act";
import { createHash, randomUUID } from "node:crypto";
import pg from "pg";
import { checkable, connection, identifier, type PostgresStoreConfig } from "./config.js";
import { classify, type DriverError } from "./errors.js";
import * as sql from "./sql.js";
import * as watermarks from "./watermark-sql.js";

/** PostgreSQL type ids with a custom parser. */
const INT8 = 20;
const JSON_OID = 114;
const JSONB = 3802;

/** Driver type parsers: bigint ids as numbers, JSON as plain JSON (dates are revived by the app, per event schema). */
const types = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === INT8) return (value: string) => Number(value);
    if (oid === JSONB || oid === JSON_OID) return JSON.parse;
    return pg.types.getTypeParser(oid, format as "text");
  },
};

/** The store options every store takes, plus this store's own durations and pool size. */
const PG_OPTIONS = OptionSchemas.store.extend({
  max: OptionSchemas.whole(1, 10_000).optional(),
  idleTimeoutMillis: OptionSchemas.whole(0).optional(),
  connectionTimeoutMillis: OptionSchemas.whole(0).optional(),
  slowWriterMillis: OptionSchemas.whole(1).optional(),
});

/** Expired idempotency keys are purged at most this often, and at most this many at a time. */
const PURGE_EVERY_MILLIS = 60_000;
const PURGE_BATCH = 10_000;
/**
 * Least time between two commit notifications of one store. It bounds what a
 * steady stream of commits spends on wake-ups (a statement and a transaction
 * each) at the price of at most this much extra delay for a consumer in
 * another process, which a busy consumer does not wait for anyway: it drains
 * again at once while it finds full batches.
 */
const ANNOUNCE_SPACING_MILLIS = 5;

/** Rows per page when `query` walks a large result. */
const PAGE = 1_000;

/** pg-pool's message when no pooled connection became free in time. */
const POOL_TIMEOUT = /timeout exceeded when trying to connect/i;

/** A row of `query` (see `sql.query`): id, stream, version, created (epoch ms), name, data, meta. */
type EventRow = [number, string, number, number, string, unknown, EventMeta];

/** Row of the commit statement. */
type CommitRow = {
  last: number;
  last_id: number | null;
  id: number | null;
  version: number | null;
  /** Epoch milliseconds, as the reads return it: cheaper to turn into a `Date` than timestamp text. */
  created: number | null;
};

/** Row of the reactions statement. */
/**
 * A row of `reactions()`, by position: stream, source, at, head, reactions
 * (JSON), token, retry, blocked, error, leased_by, leased_until (epoch ms).
 */
type ReactionRow = [
  string,
  string | null,
  number,
  number,
  string[],
  number,
  number,
  boolean,
  string | null,
  string | null,
  number | null,
];

/**
 * The {@link Store} port on PostgreSQL: events, reaction watermarks and leases
 * in two tables, shared safely by any number of app processes.
 *
 * - **Commits** are one statement — one round trip, one transaction — for any
 *   number of events. The database decides concurrency: a unique
 *   `(stream, version)` index and a version check inside the statement. A
 *   conflict always surfaces as a `ConcurrencyError`, never as a driver error.
 * - **Loads** are one statement that starts at the stream's latest snapshot
 *   (an index finds it) and reads only the events after it.
 * - **Reading is visibility-safe**: an event's id is derived from its
 *   transaction id, and reads across streams (`query` without `stream`, and
 *   so every drain) stop before any transaction still in flight that can
 *   write the events table, so an event that commits late is never skipped.
 *   Transactions that only read, or write other tables, hold nothing back; a
 *   writer of the events table left open does, and is named in a warning
 *   once it has been open longer than `slowWriterMillis`. A read of one
 *   stream always sees every committed event of that stream.
 * - **Wake-ups**: after a commit the store sends a `NOTIFY` (one at a time,
 *   coalescing the commits that finish meanwhile, and outside the commit's
 *   transaction so concurrent commits still share disk flushes), and
 *   `subscribe` listens on a connection of its own, so a running consumer in
 *   another process drains at once; its polling stays the safety net.
 * - **Idempotency keys** live in a table of their own with a primary key on
 *   `(stream, key)` claimed in the commit's statement, so two processes
 *   racing with one key commit once. Keys expire after `idempotencyMillis`;
 *   expired ones are deleted in batches, at most once a minute, by a
 *   statement of its own after a keyed commit (never inside it).
 * - **Leases** lock watermark rows with `FOR UPDATE SKIP LOCKED`, so competing
 *   drainers in several processes never handle a stream at the same time and
 *   never wait for each other.
 * - **Data** is stored as `json`, exactly as written, and read back as parsed
 *   JSON (a date is its ISO string, as in every store; the app restores dates
 *   where the event's schema declares them). `created` is a `timestamptz` at
 *   millisecond precision. Values JSON cannot round-trip (functions, bigints,
 *   maps, cycles…) are refused with an error naming the path.
 * - **Failures** are `StoreError`s with a `reason` and `retryable`: the
 *   database unreachable, a connection lost mid-call, every pooled
 *   connection busy, the store disposed, or the statement refused. The pool
 *   replaces broken connections and the next call works. A commit is atomic,
 *   so no half commit is ever visible.
 *
 * Configuration can never inject SQL: schema and table names are validated
 * identifiers, every value is a query parameter.
 *
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
  // Private fields (not TypeScript `private`): the pool holds the connection
  // settings, password included, and must not show in `util.inspect` or logs.
  readonly #pool: pg.Pool;
  readonly #names: sql.Names;
  readonly #statements: {
    readonly seed: string;
    readonly drop: string;
    readonly dropSchema: string;
    readonly commit: string;
    readonly commitKeyed: string;
    readonly notify: string;
    readonly lastVersion: string;
    readonly recall: string;
    readonly purgeKeys: string;
    readonly idCheck: string;
    readonly poll: string;
    readonly register: string;
    readonly lease: string;
    readonly ack: string;
    readonly block: string;
    readonly reactions: string;
    readonly blocked: string;
    readonly notBlocked: string;
    readonly reactionsIn: string;
    readonly unblock: string;
    readonly reset: string;
    readonly retire: string;
    readonly slowWriters: string;
    readonly discovered: string;
    readonly discover: string;
  };
  readonly #settings: { idempotencyMillis: number; slowWriterMillis: number; max: number; connection: object };
  #disposed?: Promise<void>;
  /** Prepared-statement names by statement text (a bounded set: fixed statements and query shapes). */
  readonly #prepared = new Map<string, string>();
  /** Wake-up listeners, and the dedicated connection listening for them. */
  readonly #listeners = new Set<(names?: readonly string[]) => void>();
  /** Tells this store's own announcements apart: its listeners heard of those commits already. */
  readonly #instance = randomUUID();
  /** Names of the events committed since the last announcement was sent. */
  readonly #unannounced = new Set<string>();
  #listener?: pg.Client;
  #listening?: Promise<void>;
  /** The notification of commits in flight, if any (see `#announce`). */
  #announcing?: Promise<void>;
  /** Whether a commit finished while a notification was in flight. */
  #announceAgain = false;
  /** When the last notification was sent (`performance.now()`). */
  #announcedAt = Number.NEGATIVE_INFINITY;
  /** The check that new ids will exceed the stored ones, once per store (see `#checkIds`). */
  #idsChecked?: Promise<void>;
  /** When expired idempotency keys were last purged (0: not yet), and the purge in flight. */
  #purgedAt = 0;
  #purging?: Promise<void>;
  /** When slow writers were last looked for. */
  #writersCheckedAt = 0;

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
    checkOptions("store", checkable(config, Object.keys(PG_OPTIONS.shape)), PG_OPTIONS);
    const schema = config.schema ?? "public";
    const table = config.table ?? "events";
    identifier("schema", schema);
    identifier("table", table, 48);
    const n = sql.names(schema, table);
    this.#names = n;
    this.#statements = {
      seed: sql.seed(n),
      drop: sql.drop(n),
      dropSchema: sql.dropSchema(n),
      commit: sql.commit(n, false),
      commitKeyed: sql.commit(n, true),
      notify: sql.notify(),
      lastVersion: sql.lastVersion(n),
      recall: sql.recall(n),
      purgeKeys: sql.purgeKeys(n),
      idCheck: sql.idCheck(n),
      poll: watermarks.poll(n),
      register: watermarks.register(n),
      lease: watermarks.lease(n),
      ack: watermarks.ack(n),
      block: watermarks.block(n),
      reactions: watermarks.reactions(n),
      blocked: watermarks.reactions(n, true),
      notBlocked: watermarks.reactions(n, false),
      reactionsIn: watermarks.reactionsIn(n),
      unblock: watermarks.unblock(n),
      reset: watermarks.reset(n),
      retire: watermarks.retire(n),
      discovered: watermarks.discovered(n),
      discover: watermarks.discover(n),
      slowWriters: sql.slowWriters(n),
    };
    const options = { ...connection(config), types };
    this.#settings = {
      idempotencyMillis: config.idempotencyMillis ?? 24 * 3600 * 1000,
      slowWriterMillis: config.slowWriterMillis ?? 30_000,
      max: options.max ?? 10,
      connection: connection(config),
    };
    this.#pool = new pg.Pool(options);
    // Idle connections killed by the server (restart, pg_terminate_backend)
    // are reported here; the pool drops them and opens new ones on demand.
    this.#pool.on("error", (error) =>
      logger.warn(error, "act-pg: an idle database connection was lost; the pool replaces it")
    );
  }

  /** What `util.inspect` and `console.log` show: the table, never the connection settings. */
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `PostgresStore { table: ${this.#names.events} }`;
  }

  /** What `JSON.stringify` shows: the table, never the connection settings. */
  toJSON(): {
    /** The events table, schema-qualified. */
    table: string;
  } {
    return { table: this.#names.events };
  }

  /** Runs a statement, prepared once per connection under a name derived from its text. */
  async #run<R extends pg.QueryResultRow>(operation: string, text: string, values: unknown[] = [], rowMode?: "array") {
    if (this.#disposed) throw this.#failure(operation, new Error("the store was disposed"), "disposed");
    try {
      return await this.#pool.query<R>({ name: this.#name(text), text, values, ...(rowMode && { rowMode }) });
    } catch (error) {
      throw this.#failure(operation, error as DriverError);
    }
  }

  /** The name a statement is prepared under on each connection, derived from its text. */
  #name(text: string): string {
    let name = this.#prepared.get(text);
    if (!name) {
      name = `act_${createHash("sha1").update(text).digest("base64url").slice(0, 20)}`;
      this.#prepared.set(text, name);
    }
    return name;
  }

  /** Turns a driver error into a `StoreError` that says which operation failed, why, and whether to retry. */
  #failure(operation: string, error: DriverError, known?: StoreFailure): Error {
    if (error instanceof ConcurrencyError || error instanceof ValidationError || error instanceof StoreError)
      return error;
    const pool = this.#pool;
    const reason: StoreFailure =
      known ??
      (this.#disposed
        ? "disposed"
        : POOL_TIMEOUT.test(error.message ?? "") && pool.totalCount >= this.#settings.max
          ? "busy"
          : classify(error));
    const what: Record<StoreFailure, string> = {
      unreachable: `could not reach the database (${error.message}). Nothing was done; retry later.`,
      "connection-lost":
        `lost its database connection (${error.message}).` +
        (operation.startsWith("commit")
          ? " The commit was applied entirely or not at all: reload the stream (or retry with the same expectedVersion) to find out."
          : " The pool reconnects on the next call; retry it."),
      busy: `found every one of its ${this.#settings.max} pooled connections busy until the wait timed out (${error.message}). Nothing was done; retry later, or give the pool more connections (max).`,
      transient: `was refused by the database for a passing reason (${error.message}; SQLSTATE ${error.code}). The transaction was rolled back, nothing was done; retry.`,
      disposed: "was called after the store was disposed.",
      rejected: `failed: ${error.message}`,
    };
    const wrapped = new StoreError(operation, reason, `PostgresStore ${operation} ${what[reason]}`, error);
    if (error.code) (wrapped as DriverError).code = error.code;
    return wrapped;
  }

  /**
   * Creates the schema, the events table, the watermark and idempotency-key
   * tables and their indexes — unique `(stream, version)`, `(stream, id)` for
   * stream reads, and a partial index of snapshot events for loads — and adds
   * columns a newer version of this library needs to existing tables.
   * Idempotent: existing objects and events are kept.
   *
   * @throws StoreError when the database is unreachable or the user may not create them
   * @example
   * ```ts
   * await new PostgresStore({ schema: "app" }).seed();
   * ```
   */
  async seed(): Promise<void> {
    if (this.#disposed) throw this.#failure("seed", new Error("the store was disposed"), "disposed");
    const client = await this.#pool.connect().catch((error) => {
      throw this.#failure("seed", error);
    });
    const ignore = () => {}; // a lost connection is reported by the query below
    client.on("error", ignore);
    try {
      // Concurrent seeds (several processes starting) would race on the
      // catalog; a transaction-scoped advisory lock serialises them.
      await client.query(
        `BEGIN; SELECT pg_advisory_xact_lock(hashtext(${"$$act-pg seed$$"})); ${this.#statements.seed} COMMIT;`
      );
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw this.#failure("seed", error as DriverError);
    } finally {
      client.off("error", ignore);
      client.release();
    }
    this.#idsChecked = undefined;
    await this.#checkIds("seed");
  }

  /**
   * Refuses to write when this server's next ids would not exceed the
   * largest stored one. Event ids come from transaction ids; a dump restored
   * into a new server brings ids from the old server's higher transaction
   * counter, and new events would get lower ids — reads by position (every
   * drain) would skip them. Checked by `seed` and before the store's first
   * commit, once per store (one indexed read).
   */
  #checkIds(operation: string): Promise<void> {
    this.#idsChecked ??= (async () => {
      const { rows } = await this.#run<{ max_id: number; next_id: number }>(operation, this.#statements.idCheck);
      const { max_id, next_id } = rows[0];
      if (max_id < next_id) return;
      const epoch = Math.floor(max_id / 2 ** 48) + 1;
      throw new StoreError(
        operation,
        "rejected",
        `PostgresStore ${operation} refused: ${this.#names.events} holds event ids up to ${max_id}, but this server's next transaction would give ids from ${next_id}. ` +
          "The table was probably restored from a dump into a new server, whose transaction ids start lower: new events would get ids below the restored ones and drains would skip them. " +
          `Before anything writes, stop the server, raise its transaction id epoch with \`pg_resetwal -e ${epoch} "$PGDATA"\` and start it again (see "Backups" in the PostgreSQL in production guide).`
      );
    })().catch((error) => {
      this.#idsChecked = undefined; // checked again next time
      throw error;
    });
    return this.#idsChecked;
  }

  /**
   * Drops the events, watermark and idempotency-key tables — every event and
   * watermark is lost — and the schema if `seed` created it and it is now
   * empty (never `public`). An app that keeps running afterwards starts the
   * streams it knew again from an empty log.
   *
   * @example
   * ```ts
   * await store.drop(); // e.g. between tests
   * await store.seed();
   * ```
   */
  async drop(): Promise<void> {
    if (this.#disposed) throw this.#failure("drop", new Error("the store was disposed"), "disposed");
    try {
      await this.#pool.query(this.#statements.drop);
      if (this.#names.raw.schema !== "public") {
        await this.#pool.query(this.#statements.dropSchema).catch((error: DriverError) => {
          if (error.code !== "2BP01") throw error; // other objects live in the schema: keep it
        });
      }
    } catch (error) {
      throw this.#failure("drop", error as DriverError);
    }
  }

  /**
   * Closes the connection pool (after the calls in progress finish) and the
   * wake-up listener. Calling it again does nothing; other calls fail
   * afterwards with a `StoreError` whose reason is `"disposed"`.
   *
   * @example
   * ```ts
   * await store.dispose();
   * ```
   */
  async dispose(): Promise<void> {
    this.#disposed ??= (async () => {
      this.#listeners.clear();
      await this.#announcing;
      await this.#purging;
      await this.#unlisten();
      await this.#pool.end();
    })();
    await this.#disposed;
  }

  /**
   * Appends `messages` to `stream` in one statement: all or nothing.
   *
   * @param stream - the stream name (see `StreamSchema`)
   * @param messages - the events, in order (at most 65,536 per commit)
   * @param meta - correlation and causation, stored with each event
   * @param expectedVersion - the version the stream must be at (-1: new stream); omitted, no check
   * @param idempotencyKey - claimed with the commit (see `recall`); a key the stream holds unexpired commits nothing
   * @param lastId - the id of the stream's last event as the caller knows it; another event there is a conflict
   * @param request - with `idempotencyKey`: what the request asked for (a digest), kept with the key for `recall`
   * @returns the committed events with ids, versions and the commit time
   * @throws ConcurrencyError when the stream is not at `expectedVersion`, another commit to the stream won the race, or the key was used
   * @throws ValidationError when the stream name breaks the rules of `StreamSchema`
   * @throws TypeError when `data` or `meta` is not JSON-serialisable (naming the path)
   * @throws StoreError when the database cannot be used (a lost connection: the commit applied entirely or not at all)
   * @example
   * ```ts
   * const [event] = await store.commit("order-1", [{ name: "Placed", data: { total: 10 } }], meta, -1);
   * ```
   */
  async commit<E extends Schemas>(
    stream: string,
    messages: Message<E, keyof E>[],
    meta: EventMeta,
    expectedVersion?: number,
    idempotencyKey?: string,
    lastId?: number,
    request?: string
  ): Promise<Committed<E, keyof E>[]> {
    const commit = { stream, messages, meta, expectedVersion, idempotencyKey, lastId, request };
    const operation = this.#checkCommit(commit);
    for (let attempt = 0; ; attempt++) {
      const done = await this.#append(operation, commit, this.#run.bind(this), attempt);
      if (!done) continue;
      if (done.events.length) this.#committed(done.events);
      return done.events;
    }
  }

  /**
   * Commits like `commit`, on one pooled connection inside `BEGIN`/`COMMIT`,
   * running `work` with the committed events and the transaction's client
   * before `COMMIT`: the events and `work`'s writes commit together, or —
   * when `work` throws or the commit conflicts — neither. A collision with a
   * concurrent commit that `commit` would retry rolls back and tries again
   * (`work` runs again, in the new transaction).
   *
   * @param commit - the arguments of `commit`, by name
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
    const operation = this.#checkCommit(commit);
    for (let attempt = 0; ; attempt++) {
      const client = await this.#pool.connect().catch((error) => {
        throw this.#failure(operation, error);
      });
      // A connection that failed mid-transaction is closed rather than reused.
      let broken: Error | undefined;
      let handler = false;
      try {
        await client.query("BEGIN");
        const run = (what: string, text: string, values: unknown[]) =>
          client.query({ name: this.#name(text), text, values }).catch(async (error: DriverError) => {
            // A collision aborts the transaction: end it, so the stream's version can be read on this client.
            if (error.code === "23505") await client.query("ROLLBACK");
            throw this.#failure(what, error);
          });
        const done = await this.#append(operation, commit, run as never, attempt);
        if (!done) {
          await client.query("ROLLBACK");
          continue;
        }
        handler = true;
        await work(done.events, client);
        handler = false;
        await client.query("COMMIT");
        if (done.events.length) this.#committed(done.events);
        return done.events;
      } catch (error) {
        await client.query("ROLLBACK").catch((lost: Error) => {
          broken = lost;
        });
        throw handler ? error : this.#failure(operation, error as DriverError);
      } finally {
        client.release(broken);
      }
    }
  }

  /** Checks a commit's arguments and sizes; returns the operation's name for errors. */
  #checkCommit<E extends Schemas>({
    stream,
    messages,
    meta,
    expectedVersion,
    idempotencyKey,
    lastId,
    request,
  }: InlineCommit<E>): string {
    checkCommit(stream, messages, meta, expectedVersion, idempotencyKey, lastId, request);
    const operation = `commit to "${stream}"`;
    if (messages.length > sql.MAX_EVENTS_PER_COMMIT)
      throw new RangeError(
        `PostgresStore ${operation}: at most ${sql.MAX_EVENTS_PER_COMMIT} events per commit, got ${messages.length}`
      );
    return operation;
  }

  /**
   * Runs the commit statement once with `run` (the pool, or a transaction's
   * client). Returns the events, or `undefined` when a concurrent commit took
   * the same version and, with nothing to check and fewer than 10 attempts
   * made, the caller should try again.
   */
  async #append<E extends Schemas>(
    operation: string,
    { stream, messages, meta, expectedVersion, idempotencyKey, lastId, request }: InlineCommit<E>,
    run: (operation: string, text: string, values: unknown[]) => Promise<pg.QueryResult<any>>,
    attempt: number
  ): Promise<{ events: Committed<E, keyof E>[] } | undefined> {
    const encoded = stringifyJson(
      messages.map(({ name, data }) => ({ name, data })),
      `PostgresStore ${operation}: messages`
    );
    const metaText = stringifyJson(meta, `PostgresStore ${operation}: meta`);
    await this.#checkIds(operation);
    const conflict = (lastVersion: number) =>
      new ConcurrencyError(stream, lastVersion, messages as Message<Schemas, string>[], expectedVersion ?? lastVersion);
    let rows: CommitRow[];
    try {
      const values: unknown[] = [stream, encoded, metaText, expectedVersion ?? null, lastId ?? null];
      ({ rows } =
        idempotencyKey === undefined
          ? await run(operation, this.#statements.commit, values)
          : await run(operation, this.#statements.commitKeyed, [
              ...values,
              idempotencyKey,
              this.#settings.idempotencyMillis,
              request ?? null,
            ]));
    } catch (error) {
      // 23505: a concurrent commit took the same (stream, version) or key first.
      if ((error as DriverError).code !== "23505") throw error;
      // Without an expected version there is no check to fail: a collision with
      // a concurrent commit just means "try again on top of it".
      if (expectedVersion === undefined && idempotencyKey === undefined && lastId === undefined && attempt < 10)
        return undefined;
      const last: pg.QueryResult<{ v: number }> = await run(operation, this.#statements.lastVersion, [stream]);
      throw conflict(last.rows[0].v);
    }
    const last = rows[0].last;
    if (expectedVersion !== undefined && last !== expectedVersion) throw conflict(last);
    // Same version, another event: the stream was dropped and written again.
    if (lastId !== undefined && rows[0].last_id !== lastId) throw conflict(last);
    // Nothing inserted although the version matched: the key is taken.
    if (rows[0].id === null && messages.length) throw conflict(last);
    if (idempotencyKey !== undefined) this.#purgeExpiredKeys();
    // Every event of a commit has the transaction's time.
    const created = rows[0].created ?? Date.now();
    // The data as the database keeps it (what a read returns), from the text already sent.
    const stored = JSON.parse(encoded) as { data: unknown }[];
    return {
      events: messages.map(({ name }, i) => ({
        id: rows[i].id!,
        stream,
        version: rows[i].version!,
        created: new Date(created),
        name,
        data: stored[i].data,
        meta: JSON.parse(metaText),
      })) as Committed<E, keyof E>[],
    };
  }

  /**
   * Deletes expired idempotency keys, so the keys table does not grow for
   * ever. It runs after a keyed commit, at most once per `PURGE_EVERY_MILLIS`,
   * as a statement of its own that the commit does not wait for, and removes
   * at most `PURGE_BATCH` keys each time (the expiry index finds them). An
   * expired key that is still there is ignored anyway (`recall` and the commit
   * check `expires`), so a purge that fails or falls behind changes nothing
   * but the table's size.
   */
  #purgeExpiredKeys(): void {
    const now = Date.now();
    if (this.#purging || now - this.#purgedAt < PURGE_EVERY_MILLIS) return;
    this.#purgedAt = now;
    this.#purging = this.#run("purge of expired idempotency keys", this.#statements.purgeKeys, [PURGE_BATCH])
      .then(
        () => undefined,
        (error) => {
          if (!this.#disposed)
            logger.warn(error, "act-pg: could not purge expired idempotency keys; trying again later");
        }
      )
      .finally(() => {
        this.#purging = undefined;
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
    checkName("stream", stream);
    checkName("idempotency key", idempotencyKey);
    const { rows } = await this.#run<{ from_version: number; to_version: number; request: string | null }>(
      `recall of "${stream}"`,
      this.#statements.recall,
      [stream, idempotencyKey]
    );
    if (!rows.length) return undefined;
    const [{ from_version: from, to_version: to, request }] = rows;
    return request === null ? { from, to } : { from, to, request };
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
    const q = validate("query", query, QuerySchema);
    if (q.stream !== undefined) validate("stream", q.stream, StreamSchema);
    const operation = q.stream !== undefined ? `query of stream "${q.stream}"` : "query";
    let count = 0;
    let page = { ...q };
    for (;;) {
      const size = Math.min(PAGE, q.limit === undefined ? PAGE : q.limit - count);
      if (size <= 0) return count;
      const { text, values } = sql.query(this.#names, { ...page, limit: size });
      const { rows } = await this.#run<EventRow>(operation, text, values, "array");
      for (const [id, stream, version, created, name, data, meta] of rows as unknown as EventRow[])
        callback({ id, stream, version, created: new Date(created), name, data, meta } as Committed<E, keyof E>);
      count += rows.length;
      if (rows.length < size) return count;
      // The next page continues past the last row. Forward, `from_snapshot`
      // only bounds the first page (the rest come after it); backward, every
      // page walks towards the snapshot, so each one keeps that bound.
      const lastId = (rows[rows.length - 1] as unknown as EventRow)[0];
      if (q.backward) page = { ...page, before: lastId };
      else {
        const { from_snapshot, ...rest } = page;
        page = { ...rest, after: lastId };
        if (from_snapshot !== undefined) page.with_snaps = true;
      }
    }
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
   * @param lagging - how many of the most lagging streams
   * @param leading - how many of the most leading streams
   * @param reactions - when given, only streams whose registered reactions are all among these
   * @returns the streams, lagging ones first (lowest `at` first), then leading ones (highest `at` first)
   * @example
   * ```ts
   * const ready = await store.poll(5, 5);
   * ```
   */
  async poll(lagging: number, leading: number, reactions?: readonly string[]): Promise<Poll[]> {
    const { rows } = await this.#run<{ stream: string; source: string | null; at: number; lagging: boolean }>(
      "poll",
      this.#statements.poll,
      [Math.max(0, lagging), Math.max(0, leading), reactions ?? null]
    );
    void this.#warnSlowWriters();
    const lag = rows.filter((r) => r.lagging).sort((a, b) => a.at - b.at || (a.stream < b.stream ? -1 : 1));
    const lead = rows.filter((r) => !r.lagging).sort((a, b) => b.at - a.at || (a.stream < b.stream ? -1 : 1));
    return [...lag, ...lead].map(({ stream, source, at, lagging }) =>
      source === null ? { stream, at, lagging } : { stream, source, at, lagging }
    );
  }

  /** Warns, at most once per `slowWriterMillis`, about writers of the events table open longer than that. */
  async #warnSlowWriters(): Promise<void> {
    const now = Date.now();
    if (now - this.#writersCheckedAt < this.#settings.slowWriterMillis) return;
    this.#writersCheckedAt = now;
    try {
      const { rows } = await this.#run<{ pid: number; age_ms: number }>(
        "slow writer check",
        this.#statements.slowWriters,
        [this.#settings.slowWriterMillis]
      );
      for (const { pid, age_ms } of rows)
        logger.warn(
          `act-pg: backend pid ${pid} has held a write transaction on ${this.#names.events} open for ${Math.round(age_ms / 1000)} s; reactions cannot move past the events it may still commit until it ends`
        );
    } catch {
      // Only a diagnostic: the next poll tries again.
    }
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
    if (!Number.isSafeInteger(millis) || millis < 0)
      throw new ValidationError("lease duration", millis, [
        { path: "", message: "must be a non-negative integer of milliseconds" },
      ]);
    const unique = [...new Map(leases.map((l) => [l.stream, l])).values()];
    if (!unique.length) return [];
    const input = JSON.stringify(
      unique.map(({ stream, source, at, by, head, token, reactions, joining }) => ({
        stream,
        source: source ?? null,
        at,
        holder: by,
        head: head ?? null,
        token: token ?? null,
        reactions: reactions ?? [],
        joining: joining?.length ? joining : null,
      }))
    );
    type Row = {
      stream: string;
      at?: string | number;
      retry: number;
      done: string[];
      token: string | number | null;
      head: string | number;
      ahead?: Record<string, number>;
      reactions?: string[];
    };
    const { rows } =
      millis > 0
        ? await this.#run<Row>("lease", this.#statements.lease, [input, millis])
        : await this.#run<Row>("lease", this.#statements.register, [input]);
    const stored = new Map(rows.map((r) => [r.stream, r]));
    // A stream another drainer's lease is creating right now is neither
    // inserted nor granted by a lease: it exists, with no retries yet.
    const withState = (l: Lease) => ({
      ...l,
      retry: stored.get(l.stream)?.retry ?? 0,
      done: stored.get(l.stream)?.done ?? [],
    });
    if (millis <= 0) return unique.map(withState);
    return unique
      .filter((l) => stored.has(l.stream))
      .map((l) => {
        const row = stored.get(l.stream)!;
        return {
          ...withState(l),
          at: Number(row.at),
          token: Number(row.token),
          head: Number(row.head),
          ahead: row.ahead ?? {},
          reactions: row.reactions ?? [],
        };
      });
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
    if (!leases.length) return [];
    const { rows } = await this.#run<{ stream: string; owns: boolean }>("ack", this.#statements.ack, [
      ackInput(leases),
    ]);
    const acked = new Set(rows.filter((r) => r.owns).map((r) => r.stream));
    return leases.filter((l) => acked.has(l.stream));
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
    if (this.#disposed) throw this.#failure("project", new Error("the store was disposed"), "disposed");
    const client = await this.#pool.connect().catch((error) => {
      throw this.#failure("project", error);
    });
    // A connection that failed mid-transaction is closed rather than reused.
    let broken: Error | undefined;
    let handler = false;
    try {
      await client.query("BEGIN");
      handler = true;
      await work(client);
      handler = false;
      const text = this.#statements.ack;
      const { rows } = await client.query<{ owns: boolean }>({
        name: this.#name(text),
        text,
        values: [ackInput([lease])],
      });
      // Committed also when the holder lacks a reaction the stream gained:
      // the writes and its reactions' progress (`ahead`) go together.
      await client.query(rows.length ? "COMMIT" : "ROLLBACK");
      return rows.some((r) => r.owns);
    } catch (error) {
      await client.query("ROLLBACK").catch((lost: Error) => {
        broken = lost;
      });
      throw handler ? error : this.#failure("project", error as DriverError);
    } finally {
      client.release(broken);
    }
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
    if (!leases.length) return [];
    const input = leasesInput(leases, ({ error }) => ({ error }));
    const { rows } = await this.#run<{ stream: string; owns: boolean }>("block", this.#statements.block, [input]);
    const blocked = new Set(rows.filter((r) => r.owns).map((r) => r.stream));
    return leases.filter((l) => blocked.has(l.stream));
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
    const { rows } = filter.streams
      ? await this.#run<ReactionRow>(
          "reactions",
          this.#statements.reactionsIn,
          [filter.limit ?? null, filter.streams, filter.blocked ?? null],
          "array"
        )
      : await this.#run<ReactionRow>(
          "reactions",
          filter.blocked === undefined
            ? this.#statements.reactions
            : filter.blocked
              ? this.#statements.blocked
              : this.#statements.notBlocked,
          [filter.limit ?? null],
          "array"
        );
    return rows.map(([stream, source, at, head, reactions, token, retry, blocked, error, by, until]) => {
      // Built in one shape, optional fields added after: thousands of rows stay cheap to make and to copy.
      const r: { -readonly [K in keyof ReactionStream]: ReactionStream[K] } = {
        stream,
        at,
        head,
        reactions,
        token,
        retry,
        blocked,
      };
      if (source !== null) r.source = source;
      if (error !== null) r.error = error;
      if (by !== null) r.leasedBy = by;
      if (until !== null) r.leasedUntil = new Date(until);
      return r;
    });
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
    const { rows } = await this.#run<{ stream: string }>("unblock", this.#statements.unblock, [streams]);
    const done = new Set(rows.map((r) => r.stream));
    return streams.filter((s) => done.has(s));
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
    const { rows } = await this.#run<{ stream: string }>("reset", this.#statements.reset, [streams, at]);
    const done = new Set(rows.map((r) => r.stream));
    return streams.filter((s) => done.has(s));
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
    const { rows } = await this.#run<{ stream: string }>("retire", this.#statements.retire, [reactions]);
    return rows.map((r) => r.stream).sort();
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
    const names = checkDiscovery(reactions);
    if (!names.length) return new Map();
    const { rows } = await this.#run<{ name: string; at: number }>("discovered", this.#statements.discovered, [names]);
    return new Map(rows.map((r) => [r.name, r.at]));
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
    const names = checkDiscovery(reactions, at);
    if (names.length) await this.#run("discover", this.#statements.discover, [names, at]);
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
    this.#listeners.add(listener);
    void this.#listen();
    return () => {
      this.#listeners.delete(listener);
      if (!this.#listeners.size) void this.#unlisten();
    };
  }

  /**
   * Sends a wake-up to subscribers in every process after a commit. At most
   * one is in flight; commits that finish meanwhile are announced by one more
   * sent after it, so every commit is followed by a notification sent after
   * it was committed, and a burst of commits costs a few notifications. Two
   * notifications are at least {@link ANNOUNCE_SPACING_MILLIS} apart: under a
   * steady stream of commits one statement announces several of them, instead
   * of one per commit taking a connection and a transaction each; the first
   * commit after a quiet spell is announced at once.
   */
  #announce(): void {
    if (this.#announcing) {
      this.#announceAgain = true;
      return;
    }
    const wait = this.#announcedAt + ANNOUNCE_SPACING_MILLIS - performance.now();
    this.#announcing = (wait > 0 ? sleep(wait) : Promise.resolve())
      .then(() => {
        // Every commit made so far goes into this notification.
        this.#announceAgain = false;
        const names = [...this.#unannounced];
        this.#unannounced.clear();
        this.#announcedAt = performance.now();
        return this.#run("notify", this.#statements.notify, [this.#names.channel, announcement(this.#instance, names)]);
      })
      .then(
        () => undefined,
        (error) => {
          if (!this.#disposed)
            logger.warn(error, "act-pg: could not notify other processes of a commit; their polling finds it");
        }
      )
      .finally(() => {
        this.#announcing = undefined;
        if (this.#announceAgain && !this.#disposed) this.#announce();
      });
  }

  /**
   * After a commit through this store: its own listeners hear of it at once
   * (no round trip through the server), other processes from the announcement.
   */
  #committed(events: readonly { name: PropertyKey }[]): void {
    const names = [...new Set(events.map(({ name }) => String(name)))];
    if (this.#listeners.size) queueMicrotask(() => this.#wake(names));
    for (const name of names) this.#unannounced.add(name);
    this.#announce();
  }

  /** A notification: commits of another store (this one's own were told already). */
  #notified(payload: string | undefined): void {
    const heard = heardOf(payload);
    if (heard.from !== this.#instance) this.#wake(heard.names);
  }

  #wake(names?: readonly string[]) {
    for (const listener of this.#listeners) {
      try {
        listener(names);
      } catch (error) {
        logger.error(error, "act-pg: a commit listener threw");
      }
    }
  }

  /** Opens the listening connection if there are listeners and none is open; retries with backoff. */
  #listen(delay = 100): Promise<void> {
    if (this.#listening || this.#disposed || !this.#listeners.size) return this.#listening ?? Promise.resolve();
    const client = new pg.Client({ ...this.#settings.connection });
    this.#listener = client;
    const retry = () => {
      if (this.#listener !== client) return;
      this.#listener = undefined;
      this.#listening = undefined;
      client.removeAllListeners("notification");
      void client.end().catch(() => {});
      if (this.#disposed || !this.#listeners.size) return;
      setTimeout(() => {
        void this.#listen(Math.min(delay * 2, 5_000)).then(() => this.#wake());
      }, delay).unref?.();
    };
    client.on("error", (error) => {
      logger.warn(error, "act-pg: the commit listener lost its connection; listening again");
      retry();
    });
    client.on("end", retry);
    client.on("notification", ({ payload }) => this.#notified(payload));
    this.#listening = client
      .connect()
      .then(() => client.query(`LISTEN "${this.#names.channel.replace(/"/g, '""')}"`))
      .then(() => undefined)
      .catch((error) => {
        logger.warn(error, "act-pg: could not listen for commits; polling continues, retrying");
        retry();
      });
    return this.#listening;
  }

  async #unlisten(): Promise<void> {
    const client = this.#listener;
    this.#listener = undefined;
    this.#listening = undefined;
    if (!client) return;
    client.removeAllListeners();
    client.on("error", () => {});
    await client.end().catch(() => {});
  }
}

/** Payloads PostgreSQL refuses above 8,000 bytes; names beyond this leave the announcement unnamed. */
const MAX_ANNOUNCED_BYTES = 7_900;

/**
 * A notification's payload: the announcing store and the names of the events
 * committed since its last one, or no names when they do not fit (a
 * listener then assumes anything may have been committed).
 */
function announcement(from: string, names: string[]): string {
  const named = JSON.stringify({ from, names });
  return Buffer.byteLength(named) <= MAX_ANNOUNCED_BYTES ? named : JSON.stringify({ from });
}

/** Reads a notification's payload; anything else (an older release sends none) names nothing. */
function heardOf(payload: string | undefined): { from?: string; names?: readonly string[] } {
  try {
    const { from, names } = JSON.parse(payload ?? "") as { from?: unknown; names?: unknown };
    const named = Array.isArray(names) && names.every((name) => typeof name === "string");
    return { from: typeof from === "string" ? from : undefined, names: named ? names : undefined };
  } catch {
    return {};
  }
}

/** `ack`'s input: the leases as the JSON array its statement reads. */
function ackInput(leases: Lease[]): string {
  return leasesInput(leases, ({ delay }) => ({ delay: delay ?? 0 }));
}

/** The leases as the JSON array `ack` and `block` read, with each one's own field (`delay`, `error`). */
function leasesInput<L extends Lease>(leases: L[], own: (lease: L) => object): string {
  return JSON.stringify(
    leases.map((lease) => ({
      stream: lease.stream,
      holder: lease.by,
      token: lease.token ?? null,
      reactions: lease.reactions ?? null,
      at: lease.at,
      retry: lease.retry,
      done: lease.done ?? [],
      ...own(lease),
    }))
  );
}
