import {
  type BlockedLease,
  type Committed,
  ConcurrencyError,
  type EventMeta,
  type Lease,
  logger,
  type Message,
  type Poll,
  type Query,
  type Schemas,
  type Store,
  stringifyJson,
} from "@act-root/act";
import { createHash } from "node:crypto";
import pg from "pg";
import { connection, identifier, type PostgresStoreConfig } from "./config.js";
import * as sql from "./sql.js";

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

/** SQLSTATE codes and driver messages meaning the connection or server went away. */
const CONNECTION_CODES = new Set(["57P01", "57P02", "57P03", "ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTFOUND"]);
/** Codes meaning no connection could be made (server down, starting up or shutting down). */
const UNREACHABLE = new Set(["57P03", "ECONNREFUSED", "ENOTFOUND", "ETIMEDOUT"]);
const CONNECTION_MESSAGE = /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|terminating connection/i;

/** A driver error with its SQLSTATE (or errno) code. */
type DriverError = Error & { code?: string };

const isConnectionError = (error: DriverError) =>
  (error.code !== undefined && (CONNECTION_CODES.has(error.code) || error.code.startsWith("08"))) ||
  CONNECTION_MESSAGE.test(error.message ?? "");

/** A row of `query` (see `sql.query`): id, stream, version, created (epoch ms), name, data, meta. */
type EventRow = [number, string, number, number, string, unknown, EventMeta];

/** Row of the commit statement. */
type CommitRow = { last: number; id: number | null; version: number | null; created: Date | null };

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
 *   transaction id, and position-based reads (`query({ after })`, `poll`, and
 *   so every drain) stop before any transaction still in flight, so an event
 *   that commits late is never skipped. The price: a transaction left open
 *   anywhere on the server holds those reads back until it ends.
 * - **Leases** lock watermark rows with `FOR UPDATE SKIP LOCKED`, so competing
 *   drainers in several processes never handle a stream at the same time and
 *   never wait for each other.
 * - **Data** is stored as `json`, exactly as written; dates inside `data` (written by
 *   `Date#toJSON`) come back as `Date`s, `created` is a `timestamptz`. Values
 *   JSON cannot round-trip (functions, bigints, maps, cycles…) are refused
 *   with an error naming the path.
 * - **Connection loss** (a terminated backend, a server restart) fails the
 *   call in progress with an error that says so; the pool replaces the broken
 *   connections and the next call works. A commit is atomic, so no half
 *   commit is ever visible.
 *
 * Configuration can never inject SQL: schema and table names are validated
 * identifiers, every value is a query parameter.
 *
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
  private readonly pool: pg.Pool;
  private readonly names: sql.Names;
  private readonly statements: {
    readonly seed: string;
    readonly drop: string;
    readonly dropSchema: string;
    readonly commit: string;
    readonly lastVersion: string;
    readonly poll: string;
    readonly register: string;
    readonly lease: string;
    readonly ack: string;
    readonly block: string;
  };
  private disposed?: Promise<void>;

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
    const schema = config.schema ?? "public";
    const table = config.table ?? "events";
    identifier("schema", schema);
    identifier("table", table, 48);
    this.names = sql.names(schema, table);
    const n = this.names;
    this.statements = {
      seed: sql.seed(n),
      drop: sql.drop(n),
      dropSchema: sql.dropSchema(n),
      commit: sql.commit(n),
      lastVersion: sql.lastVersion(n),
      poll: sql.poll(n),
      register: sql.register(n),
      lease: sql.lease(n),
      ack: sql.ack(n),
      block: sql.block(n),
    };
    this.pool = new pg.Pool({ ...connection(config), types });
    // Idle connections killed by the server (restart, pg_terminate_backend)
    // are reported here; the pool drops them and opens new ones on demand.
    this.pool.on("error", (error) => logger.warn(error, "act-pg: an idle database connection was lost; the pool replaces it"));
  }

  /** Prepared-statement names by statement text (a bounded set: fixed statements and query shapes). */
  private readonly prepared = new Map<string, string>();

  /** Runs a statement, prepared once per connection under a name derived from its text. */
  private async run<R extends pg.QueryResultRow>(operation: string, text: string, values: unknown[] = [], rowMode?: "array") {
    let name = this.prepared.get(text);
    if (!name) {
      name = `act_${createHash("sha1").update(text).digest("base64url").slice(0, 20)}`;
      this.prepared.set(text, name);
    }
    try {
      return await this.pool.query<R>({ name, text, values, ...(rowMode && { rowMode }) });
    } catch (error) {
      throw this.failure(operation, error as DriverError);
    }
  }

  /** Turns a driver error into one that says which operation failed and why. */
  private failure(operation: string, error: DriverError): Error {
    if (error instanceof ConcurrencyError) return error;
    let message: string;
    if (isConnectionError(error))
      message =
        (UNREACHABLE.has(error.code ?? "") ? `could not reach the database (${error.message}).` : `lost its database connection (${error.message}).`) +
        (operation.startsWith("commit")
          ? " The commit was applied entirely or not at all: retry with the same expectedVersion to find out."
          : " The pool reconnects on the next call; retry it.");
    else message = `failed: ${error.message}`;
    const wrapped = new Error(`PostgresStore ${operation} ${message}`, { cause: error }) as DriverError;
    if (error.code) wrapped.code = error.code;
    return wrapped;
  }

  /**
   * Creates the schema, the events table, the watermark table and their
   * indexes — unique `(stream, version)`, `(stream, id)` for stream reads, and
   * a partial index of snapshot events for loads. Idempotent: existing
   * objects and events are kept.
   *
   * @throws Error when the database is unreachable or the user may not create them
   * @example
   * ```ts
   * await new PostgresStore({ schema: "app" }).seed();
   * ```
   */
  async seed(): Promise<void> {
    const client = await this.pool.connect().catch((error) => {
      throw this.failure("seed", error);
    });
    const ignore = () => {}; // a lost connection is reported by the query below
    client.on("error", ignore);
    try {
      // Concurrent seeds (several processes starting) would race on the
      // catalog; a transaction-scoped advisory lock serialises them.
      await client.query(
        `BEGIN; SELECT pg_advisory_xact_lock(hashtext(${"$$act-pg seed$$"})); ${this.statements.seed} COMMIT;`
      );
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw this.failure("seed", error as DriverError);
    } finally {
      client.off("error", ignore);
      client.release();
    }
  }

  /**
   * Drops the events and watermark tables — every event and watermark is
   * lost — and the schema if `seed` created it and it is now empty (never
   * `public`).
   *
   * @example
   * ```ts
   * await store.drop(); // e.g. between tests
   * await store.seed();
   * ```
   */
  async drop(): Promise<void> {
    try {
      await this.pool.query(this.statements.drop);
      if (this.names.raw.schema !== "public") {
        await this.pool.query(this.statements.dropSchema).catch((error: DriverError) => {
          if (error.code !== "2BP01") throw error; // other objects live in the schema: keep it
        });
      }
    } catch (error) {
      throw this.failure("drop", error as DriverError);
    }
  }

  /**
   * Closes the connection pool. Calling it again does nothing; other calls
   * fail afterwards.
   *
   * @example
   * ```ts
   * await store.dispose();
   * ```
   */
  async dispose(): Promise<void> {
    this.disposed ??= this.pool.end();
    await this.disposed;
  }

  /**
   * Appends `messages` to `stream` in one statement: all or nothing.
   *
   * @param stream - the stream name (any text)
   * @param messages - the events, in order (at most 65,536 per commit)
   * @param meta - correlation and causation, stored with each event
   * @param expectedVersion - the version the stream must be at (-1: new stream); omitted, no check
   * @returns the committed events with ids, versions and the commit time
   * @throws ConcurrencyError when the stream is not at `expectedVersion`, or another commit to the stream won the race
   * @throws TypeError when `data` or `meta` is not JSON-serialisable (naming the path)
   * @throws Error when the connection is lost (the commit then applied entirely or not at all)
   * @example
   * ```ts
   * const [event] = await store.commit("order-1", [{ name: "Placed", data: { total: 10 } }], meta, -1);
   * ```
   */
  async commit<E extends Schemas>(
    stream: string,
    messages: Message<E, keyof E>[],
    meta: EventMeta,
    expectedVersion?: number
  ): Promise<Committed<E, keyof E>[]> {
    if (messages.length > sql.MAX_EVENTS_PER_COMMIT)
      throw new RangeError(`PostgresStore commit to "${stream}": at most ${sql.MAX_EVENTS_PER_COMMIT} events per commit, got ${messages.length}`);
    const encoded = stringifyJson(
      messages.map(({ name, data }) => ({ name, data })),
      `PostgresStore commit to "${stream}": messages`
    );
    const metaText = stringifyJson(meta, `PostgresStore commit to "${stream}": meta`);
    const conflict = (lastVersion: number) =>
      new ConcurrencyError(stream, lastVersion, messages as Message<Schemas, string>[], expectedVersion ?? lastVersion);
    // Without an expected version there is no check to fail: a collision with
    // a concurrent commit just means "try again on top of it".
    for (let attempt = 0; ; attempt++) {
      let rows: CommitRow[];
      try {
        ({ rows } = await this.run<CommitRow>(`commit to "${stream}"`, this.statements.commit, [
          stream,
          encoded,
          metaText,
          expectedVersion ?? null,
        ]));
      } catch (error) {
        // 23505: a concurrent commit took the same (stream, version) first.
        if ((error as DriverError).code !== "23505") throw error;
        if (expectedVersion === undefined && attempt < 10) continue;
        const last = await this.run<{ v: number }>(`commit to "${stream}"`, this.statements.lastVersion, [stream]);
        throw conflict(last.rows[0].v);
      }
      const last = rows[0].last;
      if (expectedVersion !== undefined && last !== expectedVersion) throw conflict(last);
      const created = rows[0].created ?? new Date();
      return messages.map(({ name, data }, i) => ({
        id: rows[i].id!,
        stream,
        version: rows[i].version!,
        created: rows[i].created ?? created,
        name,
        data,
        meta,
      })) as Committed<E, keyof E>[];
    }
  }

  /**
   * Calls `callback` with each event matching `query`, in global order (by
   * id), or newest first with `backward`. One statement.
   *
   * Reads with `after`, and reads of the whole log, stop before the first
   * transaction still in flight (see the class notes), so a reader that
   * continues from the last id it saw never skips an event.
   *
   * @param callback - called once per event, in order
   * @param query - filters (see `Query` in `@act-root/act`); snapshot events only with `with_snaps` or `from_snapshot`
   * @returns how many events were passed to `callback`
   * @example
   * ```ts
   * const count = await store.query((e) => console.log(e.version, e.name), { stream: "order-1" });
   * ```
   */
  async query<E extends Schemas>(callback: (event: Committed<E, keyof E>) => void, query: Query = {}): Promise<number> {
    const { text, values } = sql.query(this.names, query);
    const { rows } = await this.run<EventRow>(
      query.stream !== undefined ? `query of stream "${query.stream}"` : "query",
      text,
      values,
      "array"
    );
    for (const [id, stream, version, created, name, data, meta] of rows as unknown as EventRow[])
      callback({ id, stream, version, created: new Date(created), name, data, meta } as Committed<E, keyof E>);
    return rows.length;
  }

  /**
   * Lists reaction streams with events after their watermark (snapshot
   * events do not count: drains never fetch them) that are neither blocked
   * nor leased (or whose lease expired): up to `lagging` with
   * the lowest watermarks (flagged `lagging: true`), then up to `leading` of
   * the rest with the highest. One statement.
   *
   * @param lagging - how many of the most lagging streams
   * @param leading - how many of the most leading streams
   * @returns the streams, lagging ones first (lowest `at` first), then leading ones (highest `at` first)
   * @example
   * ```ts
   * const ready = await store.poll(5, 5);
   * ```
   */
  async poll(lagging: number, leading: number): Promise<Poll[]> {
    const { rows } = await this.run<{ stream: string; source: string | null; at: number; lagging: boolean }>(
      "poll",
      this.statements.poll,
      [Math.max(0, lagging), Math.max(0, leading)]
    );
    const lag = rows.filter((r) => r.lagging).sort((a, b) => a.at - b.at || (a.stream < b.stream ? -1 : 1));
    const lead = rows.filter((r) => !r.lagging).sort((a, b) => b.at - a.at || (a.stream < b.stream ? -1 : 1));
    return [...lag, ...lead].map(({ stream, source, at, lagging }) =>
      source === null ? { stream, at, lagging } : { stream, source, at, lagging }
    );
  }

  /**
   * Registers the leases' streams — a missing one starts at its `at`; an
   * existing watermark never moves — and, when `millis` > 0, leases each one
   * to `lease.by` for `millis` unless it is blocked, another drainer holds
   * an unexpired lease, or its watermark already reached `lease.at` (another
   * drainer handled those events since this one polled). Rows another
   * transaction is locking at that moment are skipped (`FOR UPDATE SKIP
   * LOCKED`), never waited for. One statement.
   *
   * @param leases - the streams to register or lease
   * @param millis - lease length; 0 only registers
   * @returns the leases obtained, in input order, with the stored `retry` (every registered one when `millis` is 0)
   * @example
   * ```ts
   * const [granted] = await store.lease([{ stream: "r-1", by: "drainer-a", at: 41, retry: 0 }], 10_000);
   * ```
   */
  async lease(leases: Lease[], millis: number): Promise<Lease[]> {
    const unique = [...new Map(leases.map((l) => [l.stream, l])).values()];
    if (!unique.length) return [];
    const input = JSON.stringify(
      unique.map(({ stream, source, at, by }) => ({ stream, source: source ?? null, at, holder: by }))
    );
    const { rows } =
      millis > 0
        ? await this.run<{ stream: string; retry: number }>("lease", this.statements.lease, [input, Math.ceil(millis)])
        : await this.run<{ stream: string; retry: number }>("lease", this.statements.register, [input]);
    const retries = new Map(rows.map((r) => [r.stream, r.retry]));
    // A stream registered by a concurrent transaction right now is neither
    // inserted nor visible to this statement: it exists, with no retries yet.
    if (millis <= 0) return unique.map((l) => ({ ...l, retry: retries.get(l.stream) ?? 0 }));
    return unique.filter((l) => retries.has(l.stream)).map((l) => ({ ...l, retry: retries.get(l.stream)! }));
  }

  /**
   * Moves each stream's watermark to `lease.at` (never backwards), stores
   * `lease.retry` and releases the lease — only where `lease.by` still holds
   * it. One statement.
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
    const input = JSON.stringify(leases.map(({ stream, by, at, retry }) => ({ stream, holder: by, at, retry })));
    const { rows } = await this.run<{ stream: string }>("ack", this.statements.ack, [input]);
    const done = new Set(rows.map((r) => r.stream));
    return leases.filter((l) => done.has(l.stream));
  }

  /**
   * Blocks each stream with its error — it is no longer polled or leased —
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
    const input = JSON.stringify(leases.map(({ stream, by, retry, error }) => ({ stream, holder: by, retry, error })));
    const { rows } = await this.run<{ stream: string }>("block", this.statements.block, [input]);
    const done = new Set(rows.map((r) => r.stream));
    return leases.filter((l) => done.has(l.stream));
  }
}
