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
  StoreError,
  StreamSchema,
  stringifyJson,
  ValidationError,
  validate,
} from "@act-root/act";
import type { Connection, DriverError, Statement } from "./driver.js";
import { backupFile, discardBackupFile, type FileSettings, inMemory, isBusy, openDatabase } from "./file.js";
import { drop, migrate, query as buildQuery, SQL } from "./schema.js";

/**
 * Refuses what a handler returned when it is a promise: the driver is
 * synchronous, and writes it made after the transaction ended would land
 * outside it.
 */
function synchronously(result: unknown, what: string): void {
  if (typeof (result as PromiseLike<unknown> | undefined)?.then !== "function") return;
  // Nothing may wait for it: its writes would land outside the transaction.
  Promise.resolve(result).catch(() => {});
  throw new Error(
    `SqliteStore runs ${what} synchronously, inside its write transaction, but one returned a promise: write with the connection's synchronous calls and return nothing`
  );
}

/**
 * The connection projection handlers get: the store's own, usable only while
 * they run, synchronously, inside the write transaction. A handler that
 * returned a promise is refused and rolled back, but its code after an
 * `await` still runs later: through this connection it fails instead of
 * writing outside any transaction, so a refused handler leaves nothing.
 */
function fence(db: Connection, open: () => boolean): Connection {
  const check = () => {
    if (!open())
      throw new Error(
        "SqliteStore: a projection handler used its connection after it returned (after an await?); the connection works only while the handler runs inside the store's write transaction, and nothing was written"
      );
  };
  return {
    exec(sql) {
      check();
      db.exec(sql);
    },
    prepare(sql) {
      check();
      const statement = db.prepare(sql);
      return {
        run(...params) {
          check();
          return statement.run(...params);
        },
        rows(...params) {
          check();
          return statement.rows(...params);
        },
        row(...params) {
          check();
          return statement.row(...params);
        },
      };
    },
    close() {
      check();
      db.close();
    },
  };
}

/**
 * Settings of a {@link SqliteStore}. Only `filename` is required.
 *
 * @example
 * ```ts
 * const options: SqliteStoreOptions = { filename: "./data/app.db", synchronous: "NORMAL" };
 * ```
 */
export type SqliteStoreOptions = {
  /** The database file (created if missing; its directory must exist), or `":memory:"` for a private in-memory database. */
  readonly filename: string;
  /**
   * How hard a commit waits for the disk. `"FULL"` (default): a commit that
   * returned survives a power loss. `"NORMAL"`: several times faster; a
   * process crash still loses nothing, but a power loss or OS crash can lose
   * the last commits (never half of one).
   */
  readonly synchronous?: "FULL" | "NORMAL";
  /** How long a call waits for another process's write lock before failing with a retryable `StoreError`, in ms (default 5,000). */
  readonly busyTimeoutMillis?: number;
  /** How long an idempotency key is remembered, in ms (default 24 hours). */
  readonly idempotencyMillis?: number;
  /** How often `subscribe` looks for commits made by other processes, in ms (default 100). */
  readonly changeCheckMillis?: number;
};

/** The row of `SQL.watermark`. */
type WatermarkRow = [
  source: string | null,
  at: number,
  retry: number,
  blocked: number,
  by: string | null,
  until: number | null,
  done: string,
  head: number,
  token: number,
  reactions: string | null,
  ahead: string,
];
/** An event of a `query` page: its data and metadata parsed. */
type EventRow = [number, string, number, number, string, Record<string, unknown>, EventMeta];

/**
 * A page in the order it was read (by `column`: version in a stream, id in
 * the log), whatever order the aggregate put it in. Pages come back sorted,
 * and sorting a sorted array costs one pass.
 */
const inOrder = (rows: EventRow[], column: 0 | 2, backward?: boolean) =>
  rows.sort(backward ? (a, b) => b[column] - a[column] : (a, b) => a[column] - b[column]);

/** Rows per page when `query` walks a large result. */
const PAGE = 1_000;

/** The store's options, checked by the validator every store shares (its own beside the common ones). */
const SQLITE_OPTIONS = OptionSchemas.store.extend({
  busyTimeoutMillis: OptionSchemas.whole(0).optional(),
  changeCheckMillis: OptionSchemas.whole(1).optional(),
});

/** The stored set of reaction names (JSON, sorted) with `added` in it. */
const union = (stored: string | null, added: readonly string[] | undefined) =>
  added?.length
    ? JSON.stringify([...new Set([...(stored ? (JSON.parse(stored) as string[]) : []), ...added])].sort())
    : stored;

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
 * - **Several processes** can share the file: each waits up to
 *   `busyTimeoutMillis` for the write lock, leases keep two drainers off the
 *   same reaction stream, and a busy database surfaces as a retryable
 *   `StoreError`, never as a raw driver error.
 * - **Loads** start at the stream's latest snapshot (a partial index finds it).
 * - **Wake-ups**: `subscribe` listeners hear about commits of this store at
 *   once, and about other processes' commits within `changeCheckMillis`
 *   (a `PRAGMA data_version` check, which costs no disk read).
 * - **Data** is JSON text, read back as parsed JSON (a date comes back as its
 *   ISO string, as in every store); `created` has millisecond precision.
 * - **Files**: the schema carries a version (`PRAGMA user_version`) and
 *   `seed()` moves older files forward. A missing directory, a read-only
 *   file, a file that is not SQLite or one written by a newer version of this
 *   package is refused with a `StoreError` naming the file, which is left
 *   untouched. The file is opened on the first call.
 *
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
  readonly #settings: FileSettings & { idempotencyMillis: number; changeCheckMillis: number };
  #db?: Connection;
  readonly #statements = new Map<string, Statement>();
  #disposed = false;
  readonly #listeners = new Set<(names?: readonly string[]) => void>();
  #watch?: ReturnType<typeof setInterval>;
  #dataVersion = -1;
  #keysPurgedAt = 0;
  /** Whether projection handlers are running now, inside a write transaction: the only time their connection works. */
  #handling = false;
  /** The store's connection, and the fenced one handed to projection handlers. */
  #fenced?: [Connection, Connection];

  /**
   * Projection handlers run synchronously inside the write transaction: the
   * app refuses an `async` handler before any handler runs (see
   * `Store.synchronousHandlers`).
   */
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
    if (typeof options?.filename !== "string")
      throw new ValidationError("filename", options?.filename, [
        { path: "", message: 'must be a file path or ":memory:"' },
      ]);
    const synchronous = options.synchronous ?? "FULL";
    if (synchronous !== "FULL" && synchronous !== "NORMAL")
      throw new ValidationError("synchronous", synchronous, [{ path: "", message: 'must be "FULL" or "NORMAL"' }]);
    const { filename: _, synchronous: __, ...numbers } = options;
    checkOptions("store", numbers, SQLITE_OPTIONS);
    this.#settings = {
      filename: options.filename,
      synchronous,
      busyTimeoutMillis: options.busyTimeoutMillis ?? 5_000,
      idempotencyMillis: options.idempotencyMillis ?? 24 * 3600 * 1000,
      changeCheckMillis: options.changeCheckMillis ?? 100,
    };
  }

  /** What `util.inspect` and `console.log` show. */
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `SqliteStore { filename: ${JSON.stringify(this.#settings.filename)} }`;
  }

  /** The connection, opened on first use. */
  #connection(operation: string): Connection {
    if (this.#disposed) throw this.#failure(operation, new Error("the store was disposed"));
    this.#db ??= openDatabase(this.#settings);
    return this.#db;
  }

  /** Runs projection handlers with their connection open, and closes it when they return. */
  #handle(operation: string, work: (db: Connection) => unknown): unknown {
    const db = this.#connection(operation);
    if (this.#fenced?.[0] !== db) this.#fenced = [db, fence(db, () => this.#handling)];
    this.#handling = true;
    try {
      return work(this.#fenced[1]);
    } finally {
      this.#handling = false;
    }
  }

  /** A statement prepared once per connection (a failed busy statement prepared afresh would poison libsql's connection). */
  #statement(operation: string, sql: string): Statement {
    const db = this.#connection(operation);
    let statement = this.#statements.get(sql);
    if (!statement) {
      try {
        statement = db.prepare(sql);
      } catch (error) {
        throw this.#failure(operation, error as DriverError);
      }
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** Runs `work` in a write transaction that holds the write lock from the start; rolls back on any throw. */
  #write<T>(operation: string, work: () => T): T {
    const begin = this.#statement(operation, SQL.begin);
    const commit = this.#statement(operation, SQL.commit);
    try {
      begin.run();
    } catch (error) {
      throw this.#failure(operation, error as DriverError);
    }
    try {
      const result = work();
      commit.run();
      return result;
    } catch (error) {
      try {
        this.#statement(operation, SQL.rollback).run();
      } catch {
        // nothing left to roll back
      }
      throw this.#failure(operation, error as DriverError);
    }
  }

  /** Runs a read statement, turning driver errors into `StoreError`s. */
  #read(operation: string, sql: string, ...values: unknown[]): unknown[][] {
    const statement = this.#statement(operation, sql);
    try {
      return statement.rows(...values);
    } catch (error) {
      throw this.#failure(operation, error as DriverError);
    }
  }

  /** A `StoreError` saying which operation failed and whether to retry; the store's own errors pass through. */
  #failure(operation: string, error: DriverError): Error {
    if (
      error instanceof ConcurrencyError ||
      error instanceof ValidationError ||
      error instanceof StoreError ||
      error instanceof TypeError ||
      error instanceof RangeError
    )
      return error;
    const file = JSON.stringify(this.#settings.filename);
    if (this.#disposed)
      return new StoreError(operation, "disposed", `SqliteStore ${operation} was called after the store was disposed.`);
    if (isBusy(error))
      return new StoreError(
        operation,
        "busy",
        `SqliteStore ${operation}: another connection held ${file} locked for longer than busyTimeoutMillis (${this.#settings.busyTimeoutMillis} ms). Nothing was done; retry.`,
        error
      );
    return new StoreError(operation, "rejected", `SqliteStore ${operation} on ${file} failed: ${error.message}`, error);
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
    const db = this.#connection("seed");
    this.#write("seed", () => migrate(db));
    // Statements prepared before the tables existed refer to nothing.
    this.#statements.clear();
  }

  /**
   * Drops the events, watermark and idempotency-key tables — every event and
   * watermark is lost. One row remembering the last id stays (table
   * `act_meta`), so ids go on from where they were after the next `seed()`.
   *
   * @example
   * ```ts
   * await store.drop(); // e.g. between tests
   * await store.seed();
   * ```
   */
  async drop(): Promise<void> {
    const db = this.#connection("drop");
    this.#statements.clear();
    this.#write("drop", () => drop(db));
    this.#statements.clear();
  }

  /**
   * Stops the change checks and closes the file. Calling it again does
   * nothing; other calls fail afterwards with a `StoreError` whose reason is
   * `"disposed"`.
   *
   * @example
   * ```ts
   * await store.dispose();
   * ```
   */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#listeners.clear();
    if (this.#watch) clearInterval(this.#watch);
    this.#statements.clear();
    try {
      this.#db?.close();
    } catch (error) {
      logger.warn(error, "act-sqlite: closing the database failed");
    }
    this.#db = undefined;
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
    const operation = `backup to ${JSON.stringify(destination)}`;
    const vacuum = this.#statement(operation, "VACUUM INTO ?");
    const path = backupFile(destination);
    try {
      vacuum.run(path);
    } catch (error) {
      discardBackupFile(path);
      throw this.#failure(operation, error as DriverError);
    }
  }

  /**
   * Appends `messages` to `stream` in one transaction: all or nothing.
   *
   * @param stream - the stream name (see `StreamSchema`)
   * @param messages - the events, in order
   * @param meta - correlation and causation, stored with each event
   * @param expectedVersion - the version the stream must be at (-1: new stream); omitted, no check
   * @param idempotencyKey - remembered with the versions committed (see `recall`); a key the stream holds unexpired commits nothing
   * @param lastId - the id of the stream's last event as the caller knows it; another event there is a conflict
   * @param request - with `idempotencyKey`: what the request asked for (a digest), kept with the key for `recall`
   * @returns the committed events with ids, versions and the commit time
   * @throws ConcurrencyError when the stream is not at `expectedVersion`, its last event is not `lastId`, or the key was used
   * @throws ValidationError when a name or number breaks the rules every store shares (see `checkCommit`)
   * @throws TypeError when `data` or `meta` is not JSON-serialisable (naming the path)
   * @throws StoreError when the file cannot be used, or stayed locked longer than `busyTimeoutMillis` (retryable)
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
    return this.#commit({ stream, messages, meta, expectedVersion, idempotencyKey, lastId, request });
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
   * @param commit - the arguments of `commit`, by name
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
    return this.#commit(commit, work);
  }

  /** `commit`, with `work` run inside its transaction when given. */
  async #commit<E extends Schemas>(
    { stream, messages, meta, expectedVersion, idempotencyKey, lastId, request }: InlineCommit<E>,
    work?: (events: Committed<E, keyof E>[], db: Connection) => unknown
  ): Promise<Committed<E, keyof E>[]> {
    checkCommit(stream, messages, meta, expectedVersion, idempotencyKey, lastId, request);
    const operation = `commit to "${stream.length > 80 ? `${stream.slice(0, 80)}…` : stream}"`;
    const encoded = messages.map(({ name, data }) =>
      stringifyJson(data, `SqliteStore ${operation}: data of event "${String(name)}"`)
    );
    const metaText = stringifyJson(meta, `SqliteStore ${operation}: meta`);
    const lastVersion = this.#statement(operation, SQL.lastVersion);
    const insert = this.#statement(operation, SQL.insert);
    const keyed = idempotencyKey !== undefined;
    const recall = keyed ? this.#statement(operation, SQL.recall) : undefined;
    const remember = keyed ? this.#statement(operation, SQL.remember) : undefined;
    const now = Date.now();
    const created = new Date(now);
    let thrown: { error: unknown } | undefined;
    const write = () =>
      this.#write(operation, () => {
        const row = lastVersion.row(stream);
        const last = Number(row?.[0] ?? -1);
        if (
          (expectedVersion !== undefined && expectedVersion !== last) ||
          // The stream was dropped and written again up to the caller's version: not the state it knows.
          (lastId !== undefined && Number(row?.[1] ?? Number.NaN) !== lastId) ||
          (keyed && recall!.row(stream, idempotencyKey, now) !== undefined)
        )
          throw new ConcurrencyError(stream, last, messages as Message<Schemas, string>[], expectedVersion ?? last);
        if (keyed) {
          remember!.run(
            stream,
            idempotencyKey,
            last + 1,
            last + messages.length,
            now + this.#settings.idempotencyMillis,
            request ?? null
          );
          this.#purgeKeys(operation, now);
        }
        const events = messages.map(({ name }, i) => ({
          id: Number(insert.row(stream, last + 1 + i, name, encoded[i], metaText, now)![0]),
          stream,
          version: last + 1 + i,
          created,
          name,
          data: JSON.parse(encoded[i]),
          meta: JSON.parse(metaText),
        })) as Committed<E, keyof E>[];
        if (work)
          try {
            synchronously(
              this.#handle(operation, (handed) => work(events, handed)),
              "inline projection handlers"
            );
          } catch (error) {
            thrown = { error };
            throw error;
          }
        return events;
      });
    let committed: Committed<E, keyof E>[];
    try {
      committed = write();
    } catch (error) {
      // The handler's own error, not a store failure wrapping it.
      throw thrown ? thrown.error : error;
    }
    if (committed.length) this.#notify([...new Set(committed.map(({ name }) => String(name)))]);
    return committed;
  }

  /** Deletes expired idempotency keys, at most once a minute (inside a keyed commit's transaction). */
  #purgeKeys(operation: string, now: number) {
    if (now - this.#keysPurgedAt < 60_000) return;
    this.#keysPurgedAt = now;
    this.#statement(operation, SQL.purgeKeys).run(now);
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
    checkName("stream", stream);
    checkName("idempotency key", idempotencyKey);
    const [row] = this.#read(`recall of "${stream}"`, SQL.recall, stream, idempotencyKey, Date.now());
    if (!row) return undefined;
    const range = { from: Number(row[0]), to: Number(row[1]) };
    return row[2] === null || row[2] === undefined ? range : { ...range, request: String(row[2]) };
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
    const q = validate("query", query, QuerySchema);
    if (q.stream !== undefined) validate("stream", q.stream, StreamSchema);
    const operation = q.stream !== undefined ? `query of stream "${q.stream}"` : "query";
    let count = 0;
    let cursor: number | undefined;
    for (;;) {
      // Pages keep memory flat on a long read, and every statement runs to its end.
      const size = q.limit === undefined ? PAGE : Math.min(PAGE, q.limit - count);
      if (size <= 0) return count;
      const { text, values } = buildQuery(q, size, cursor);
      const [[page]] = this.#read(operation, text, ...values) as [[string]];
      const rows = inOrder(JSON.parse(page) as EventRow[], q.stream !== undefined ? 2 : 0, q.backward);
      // Fields picked by position: never spread a stored array into an event.
      for (const [id, stream, version, created, name, data, meta] of rows)
        callback({ id, stream, version, created: new Date(created), name, data, meta } as Committed<E, keyof E>);
      count += rows.length;
      if (rows.length < size) return count;
      const last = rows[rows.length - 1];
      cursor = q.stream !== undefined ? last[2] : last[0];
    }
  }

  /**
   * Lists reaction streams with work after their watermark that are neither
   * blocked, leased nor waiting out a retry's backoff: up to `lagging` with
   * the lowest watermarks, then up to `leading` of the rest with the highest.
   *
   * @param lagging - how many of the most lagging streams
   * @param leading - how many of the most leading streams
   * @param reactions - the reactions this drainer runs: only streams all of whose recorded reactions are among them (streams with none recorded always)
   * @returns the streams, lagging ones first (lowest `at` first), then leading ones (highest `at` first)
   * @example
   * ```ts
   * const ready = await store.poll(5, 5);
   * ```
   */
  async poll(lagging: number, leading: number, reactions?: readonly string[]): Promise<Poll[]> {
    const rows = this.#read(
      "poll",
      SQL.poll,
      Date.now(),
      reactions ? JSON.stringify(reactions) : null,
      Math.max(0, lagging),
      Math.max(0, leading)
    ) as Array<[string, string | null, number, number]>;
    return rows.map(([stream, source, at, lag]) =>
      source === null ? { stream, at, lagging: lag === 1 } : { stream, source, at, lagging: lag === 1 }
    );
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
    if (!Number.isSafeInteger(millis) || millis < 0)
      throw new ValidationError("lease duration", millis, [
        { path: "", message: "must be a non-negative integer of milliseconds" },
      ]);
    const unique = [...new Map(leases.map((l) => [l.stream, l])).values()];
    if (!unique.length) return [];
    const read = this.#statement("lease", SQL.watermark);
    const register = this.#statement("lease", SQL.register);
    const widen = this.#statement("lease", SQL.widen);
    const join = this.#statement("lease", SQL.join);
    const insertLeased = this.#statement("lease", SQL.insertLeased);
    const grant = this.#statement("lease", SQL.grant);
    const now = Date.now();
    return this.#write("lease", () => {
      const granted: Lease[] = [];
      for (const lease of unique) {
        const row = read.row(lease.stream) as WatermarkRow | undefined;
        const source = lease.source ?? null;
        if (millis === 0) {
          const head = Math.max(lease.at, lease.head ?? lease.at);
          if (!row) register.run(lease.stream, source, lease.at, head, union(null, lease.reactions));
          else {
            const joined = joinedAt(row, lease);
            if (joined !== undefined) join.run(joined.at, JSON.stringify(joined.ahead), lease.stream);
            // Reactions from different sources share this stream: it must read them all.
            widen.run(
              row[0] !== null && row[0] !== source ? null : row[0],
              head,
              union(row[9], lease.reactions),
              lease.stream
            );
          }
          granted.push({ ...lease, retry: row ? row[2] : 0, done: row ? JSON.parse(row[6]) : [] });
          continue;
        }
        if (!row) {
          insertLeased.run(lease.stream, source, lease.at, lease.at, lease.by, now + millis);
          granted.push({ ...lease, retry: 0, done: [], token: 1, head: lease.at, ahead: {}, reactions: [] });
          continue;
        }
        const [, at, retry, blocked, by, until, done, head, token, reactions, ahead] = row;
        // A watermark past the polled one means another drainer handled those events.
        if (blocked || at > lease.at) continue;
        const renewal = lease.token !== undefined;
        if (renewal ? by !== lease.by || token !== lease.token : by !== lease.by && until !== null && until > now)
          continue;
        const next = renewal ? token : token + 1;
        grant.run(lease.by, now + millis, next, lease.stream);
        granted.push({
          ...lease,
          at,
          retry,
          done: JSON.parse(done),
          token: next,
          head,
          ahead: JSON.parse(ahead),
          reactions: reactions ? JSON.parse(reactions) : [],
        });
      }
      return granted;
    });
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
    if (!leases.length) return [];
    const ack = this.#statement("ack", SQL.ack);
    const now = Date.now();
    return this.#write("ack", () =>
      leases.filter((l) => {
        if (ack.run(...ackParams(l, now)) > 0) return true;
        this.#refused(l);
        return false;
      })
    );
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
    const ack = this.#statement("project", SQL.ack);
    let thrown: { error: unknown } | undefined;
    const refused = new Error("refused");
    try {
      return this.#write("project", () => {
        try {
          synchronously(this.#handle("project", work), "projection handlers");
        } catch (error) {
          thrown = { error };
          throw error;
        }
        if (ack.run(...ackParams(lease, Date.now())) > 0) return true;
        throw refused;
      });
    } catch (error) {
      if (thrown) throw thrown.error;
      if ((error as StoreError).cause === refused || error === refused) return false;
      throw error;
    }
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
    if (!leases.length) return [];
    const block = this.#statement("block", SQL.block);
    return this.#write("block", () =>
      leases.filter((l) => {
        if (
          block.run(
            l.at,
            l.retry,
            JSON.stringify(l.done ?? []),
            l.error,
            l.stream,
            l.by,
            l.token ?? null,
            l.reactions ? JSON.stringify(l.reactions) : null
          ) > 0
        )
          return true;
        this.#refused(l);
        return false;
      })
    );
  }

  /**
   * After an `ack` or `block` was refused, in its transaction. A holder that
   * still holds the stream under its token but lacks a reaction the stream
   * gained since the lease (a newer release registered it) keeps its
   * progress: the watermark stays, since that reaction has not run, and its
   * own reactions are recorded as ahead up to where it got, with its
   * `done`, so nothing it ran runs again. A holder an operator overtook
   * (same holder, older token) has finished its handlers and gives the
   * stream back. Either way the stream is released.
   */
  #refused(l: Lease): void {
    const row = this.#statement("ack", SQL.watermark).row(l.stream) as WatermarkRow | undefined;
    if (row && row[4] === l.by && row[8] === l.token && !row[3]) {
      const carried: string[] = row[9] ? JSON.parse(row[9]) : [];
      const ahead: Record<string, number> = JSON.parse(row[10]);
      if (l.at > row[1])
        for (const reaction of l.reactions ?? [])
          if (carried.includes(reaction)) ahead[reaction] = Math.max(ahead[reaction] ?? -1, l.at);
      const done = [...new Set([...JSON.parse(row[6]), ...(l.done ?? [])])];
      this.#statement("ack", SQL.keepProgress).run(JSON.stringify(ahead), JSON.stringify(done), l.stream);
      return;
    }
    this.#statement("releaseOvertaken", SQL.releaseOvertaken).run(l.stream, l.by, l.token ?? null);
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
    const now = Date.now();
    const blocked = filter.blocked === undefined ? null : filter.blocked ? 1 : 0;
    const rows = (
      filter.streams
        ? this.#read("reactions", SQL.reactionsIn, blocked, filter.limit ?? -1, JSON.stringify(filter.streams))
        : this.#read("reactions", SQL.reactions, blocked, filter.limit ?? -1)
    ) as Array<
      [
        string,
        string | null,
        number,
        number,
        number,
        string | null,
        string | null,
        number | null,
        number,
        string | null,
        number,
      ]
    >;
    return rows.map(([stream, source, at, retry, blocked, error, by, until, head, reactions, token]) => {
      const leased = until !== null && until > now;
      // One shape, optional fields added after: thousands of rows stay cheap to make and to copy.
      const r: { -readonly [K in keyof ReactionStream]: ReactionStream[K] } = {
        stream,
        at,
        head,
        reactions: reactions ? (JSON.parse(reactions) as string[]) : [],
        token,
        retry,
        blocked: blocked === 1,
      };
      if (source !== null) r.source = source;
      if (error !== null) r.error = error;
      if (leased && by !== null) r.leasedBy = by;
      if (leased) r.leasedUntil = new Date(until);
      return r;
    });
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
    const unblock = this.#statement("unblock", SQL.unblock);
    return this.#write("unblock", () => streams.filter((s) => unblock.run(s) > 0));
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
    const reset = this.#statement("reset", SQL.reset);
    return this.#write("reset", () => streams.filter((s) => reset.run(at, s) > 0));
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
    const carrying = this.#statement("retire", SQL.carrying);
    const set = this.#statement("retire", SQL.setReactions);
    const retired = new Set(reactions);
    return this.#write("retire", () =>
      (carrying.rows(JSON.stringify(reactions)) as Array<[string, string]>).map(([stream, stored]) => {
        const kept = (JSON.parse(stored) as string[]).filter((r) => !retired.has(r));
        set.run(kept.length ? JSON.stringify(kept) : null, stream);
        return stream;
      })
    );
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
    const names = checkDiscovery(reactions);
    if (!names.length) return new Map();
    const rows = this.#read("discovered", SQL.discovered, JSON.stringify(names)) as Array<[string, number]>;
    return new Map(rows);
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
    const names = checkDiscovery(reactions, at);
    if (!names.length) return;
    const discover = this.#statement("discover", SQL.discover);
    this.#write("discover", () => discover.run(JSON.stringify(names), at));
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
    this.#listeners.add(listener);
    if (!this.#watch && !inMemory(this.#settings.filename)) {
      // From now on: a commit by another process right after this call counts.
      this.#checkChanges();
      this.#watch = setInterval(() => this.#checkChanges(), this.#settings.changeCheckMillis);
      this.#watch.unref?.();
    }
    return () => {
      this.#listeners.delete(listener);
      if (!this.#listeners.size && this.#watch) {
        clearInterval(this.#watch);
        this.#watch = undefined;
        this.#dataVersion = -1;
      }
    };
  }

  /** Wakes the listeners when another connection committed since the last check. */
  #checkChanges() {
    try {
      const [row] = this.#read("change check", SQL.dataVersion);
      const now = Number(row?.[0]);
      const changed = this.#dataVersion !== -1 && now !== this.#dataVersion;
      this.#dataVersion = now;
      if (changed) this.#wake();
    } catch {
      // A busy or closed file: the next tick tries again (and the consumer still polls).
    }
  }

  /** Tells the listeners of a commit through this store, with its events' names, after the current call returns. */
  #notify(names: readonly string[]) {
    if (this.#listeners.size) queueMicrotask(() => this.#wake(names));
  }

  #wake(names?: readonly string[]) {
    for (const listener of this.#listeners) {
      try {
        listener(names);
      } catch (error) {
        logger.error(error, "act-sqlite: a commit listener threw");
      }
    }
  }
}

/** `ack`'s parameters for one lease; `now` dates the end of a retry's backoff. */
/**
 * Where a registration's joining reactions start on a stream that already
 * carries reactions, for those none of whose names it carries, when that is
 * before its watermark: the watermark goes back there, and the reactions
 * already on the stream are ahead up to the old one (an entry already
 * further ahead stays). Undefined when the watermark stays.
 */
function joinedAt(row: WatermarkRow, lease: Lease): { at: number; ahead: Record<string, number> } | undefined {
  const carried: string[] = row[9] ? JSON.parse(row[9]) : [];
  if (!carried.length || !lease.joining?.length) return undefined;
  const current = row[1];
  let at = current;
  for (const { names, at: from } of lease.joining)
    if (from < at && !names.some((name) => carried.includes(name))) at = from;
  if (at >= current) return undefined;
  const ahead: Record<string, number> = JSON.parse(row[10]);
  for (const reaction of carried) ahead[reaction] = Math.max(ahead[reaction] ?? current, current);
  return { at, ahead };
}

function ackParams(l: Lease, now: number): unknown[] {
  return [
    l.at,
    l.retry,
    JSON.stringify(l.done ?? []),
    l.delay && l.delay > 0 ? now + l.delay : null,
    l.stream,
    l.by,
    l.token ?? null,
    l.reactions ? JSON.stringify(l.reactions) : null,
  ];
}
