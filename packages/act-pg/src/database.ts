/**
 * The store's handle on its database: the connection pool, the statements
 * built for its table, its settings, and the one way every operation runs a
 * statement (`run`) and reports a failure (`failure`). Each `PostgresStore`
 * owns one; the operation modules receive it.
 */
import { ConcurrencyError, logger, StoreError, type StoreFailure, ValidationError } from "@act-root/act";
import { createHash } from "node:crypto";
import type pg from "pg";
import type { PostgresStoreConfig } from "./config.js";
import { connection, createPool } from "./connection.js";
import { sharedParts } from "./connections.js";
import { ChannelListener } from "./listener.js";
import { classify, type DriverError } from "./errors.js";
import { tenantOf } from "./tenant-scope.js";
import * as sql from "./sql.js";
import * as archive from "./archive-sql.js";
import * as timers from "./timer-sql.js";
import * as keys from "./subject-key-sql.js";
import * as watermarks from "./watermark-sql.js";
import * as shared from "./shared-sql.js";

/** pg-pool's message when no pooled connection became free in time. */
const POOL_TIMEOUT = /timeout exceeded when trying to connect/i;

/** Every fixed statement of the store, built once for its table. */
function statements(n: sql.Names) {
  return {
    seed: sql.seed(n) + keys.seedSubjectKeys(n) + archive.seedArchive(n),
    drop: archive.dropArchive(n) + keys.dropSubjectKeys(n) + sql.drop(n),
    dropSchema: sql.dropSchema(n),
    // The commit statements by what the commit checks, each without and with the store's notification.
    commit: {
      plain: { quiet: sql.commit(n, false), announcing: sql.commit(n, false, true) },
      keyed: { quiet: sql.commit(n, true), announcing: sql.commit(n, true, true) },
      checked: { quiet: sql.commitChecked(n), announcing: sql.commitChecked(n, true) },
    },
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
    scheduleTimers: timers.scheduleTimers(n),
    cancelTimers: timers.cancelTimers(n),
    claimTimers: timers.claimTimers(n),
    settleTimers: timers.settleTimers(n),
    nextTimer: timers.nextTimer(n),
    listTimers: timers.listTimers(n),
    countTimers: timers.countTimers(n),
    currentKey: keys.currentKey(n),
    readKeys: keys.readKeys(n),
    rotateKey: keys.rotateKey(n),
    forgetSubject: keys.forgetSubject(n),
    streamForgotten: keys.streamForgotten(n),
    moveArchive: archive.moveArchive(n),
    purgeArchive: archive.purgeArchive(n),
    guard: shared.guard(),
    eraseTenant: shared.eraseTenant(n),
  } as const;
}

/** The store's pool, statements and settings, and how it runs statements and reports failures. */
export class Database {
  // The pool holds the connection settings, password included: this object
  // lives only in the store's private fields and never shows in `util.inspect`.
  readonly pool: pg.Pool;
  /** The connection that hears wake-ups: the store's own, or the shared one. */
  readonly listener: ChannelListener;
  /** Whether the listener is the store's own (closed with it) rather than shared. */
  readonly ownsListener: boolean;
  /** Whether the pool is shared with other stores: left open by `close`, statements not prepared. */
  readonly shared: boolean;
  readonly names: sql.Names;
  readonly statements: ReturnType<typeof statements>;
  readonly settings: { idempotencyMillis: number; slowWriterMillis: number; max: number; connection: object };
  /** Set by `dispose`: every call fails with reason `"disposed"` from then on. */
  disposed?: Promise<void>;
  /** Prepared-statement names by statement text (a bounded set: fixed statements and query shapes). */
  readonly #prepared = new Map<string, string>();

  /** Builds the statements and the pool (which opens no connection until the first call); `config` is already checked. */
  constructor(config: PostgresStoreConfig, schema: string, table: string) {
    this.names = sql.names(schema, table, tenantOf(config));
    this.statements = statements(this.names);
    const shared = config.connections && sharedParts(config.connections);
    const settings = shared?.settings ?? connection(config);
    this.settings = {
      idempotencyMillis: config.idempotencyMillis ?? 24 * 3600 * 1000,
      slowWriterMillis: config.slowWriterMillis ?? 30_000,
      max: settings.max,
      connection: settings,
    };
    this.shared = shared !== undefined;
    this.ownsListener = !shared;
    this.listener = shared?.listener ?? new ChannelListener(settings, true);
    if (shared) this.pool = shared.pool;
    else {
      this.pool = createPool(settings);
      // Idle connections killed by the server (restart, pg_terminate_backend)
      // are reported here; the pool drops them and opens new ones on demand.
      this.pool.on("error", (error) =>
        logger.warn(error, "act-pg: an idle database connection was lost; the pool replaces it")
      );
    }
  }

  /** Closes the store's own pool; a shared one stays open for the other stores. */
  async close(): Promise<void> {
    if (!this.shared) await this.pool.end();
  }

  /** What `util.inspect` shows, should this object ever be logged: never the connection settings. */
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `Database { table: ${this.names.events} }`;
  }

  /** Refuses any call after `dispose`. */
  checkOpen(operation: string): void {
    if (this.disposed) throw this.failure(operation, new Error("the store was disposed"), "disposed");
  }

  /** A pooled client of its own (for a transaction); a failure to get one is a `StoreError`. */
  connect(operation: string): Promise<pg.PoolClient> {
    return this.pool.connect().catch((error) => {
      throw this.failure(operation, error);
    });
  }

  /**
   * What starts a transaction of this store: `mode` (`BEGIN`, or `BEGIN` with
   * an isolation level), followed in tables shared by tenants by setting
   * `act.tenant` for this transaction only, which the tables' row-level
   * security policy compares every row with. Transaction-local, never a
   * session setting: the transaction's end clears it whichever way it ends,
   * so a connection returned to the shared pool — even after a failure
   * half-way — carries no tenant into another tenant's statements.
   */
  begin(mode = "BEGIN"): string {
    const tenant = this.names.tenant;
    // A checked tenant id holds only a-z, 0-9 and "-": safe as a literal.
    return tenant === undefined ? mode : `${mode}; SELECT set_config('act.tenant', '${tenant}', true)`;
  }

  /**
   * Runs a statement nobody waits for (an announcement, a purge): it never
   * rejects; a failure is logged with `warning`, unless the store was
   * disposed meanwhile, which is failure enough.
   */
  background(operation: string, text: string, values: unknown[], warning: string): Promise<void> {
    return this.run(operation, text, values).then(
      () => undefined,
      (error) => {
        if (!this.disposed) logger.warn(error, warning);
      }
    );
  }

  /** Runs a statement, prepared once per connection under a name derived from its text. */
  async run<R extends pg.QueryResultRow>(operation: string, text: string, values: unknown[] = [], rowMode?: "array") {
    this.checkOpen(operation);
    const query = { name: this.name(text), text, values, ...(rowMode && { rowMode }) };
    if (this.names.tenant !== undefined) return this.#runAsTenant<R>(operation, query);
    try {
      return await this.pool.query<R>(query);
    } catch (error) {
      throw this.failure(operation, error as DriverError);
    }
  }

  /**
   * In tables shared by tenants: runs a statement in a transaction of its own
   * that sets the tenant first (see `begin`) — three round trips instead of
   * one, the price of a tenant that cannot leak to the next user of the
   * connection.
   */
  async #runAsTenant<R extends pg.QueryResultRow>(
    operation: string,
    query: pg.QueryConfig
  ): Promise<pg.QueryResult<R>> {
    const client = await this.connect(operation);
    let broken: Error | undefined;
    try {
      await client.query(this.begin());
      const result = await client.query<R>(query);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch((lost: Error) => {
        broken = lost;
      });
      throw this.failure(operation, error as DriverError);
    } finally {
      client.release(broken);
    }
  }

  /**
   * The name a statement is prepared under on each connection, derived from
   * its text — none on a shared pool, where every store's statements would be
   * prepared on every connection (thousands of plans per server process):
   * there each is parsed per call.
   */
  name(text: string): string | undefined {
    if (this.shared) return undefined;
    let name = this.#prepared.get(text);
    if (!name) {
      name = `act_${createHash("sha1").update(text).digest("base64url").slice(0, 20)}`;
      this.#prepared.set(text, name);
    }
    return name;
  }

  /** Turns a driver error into a `StoreError` that says which operation failed, why, and whether to retry. */
  failure(operation: string, error: DriverError, known?: StoreFailure): Error {
    if (error instanceof ConcurrencyError || error instanceof ValidationError || error instanceof StoreError)
      return error;
    const pool = this.pool;
    const reason: StoreFailure =
      known ??
      (this.disposed
        ? "disposed"
        : POOL_TIMEOUT.test(error.message ?? "") && pool.totalCount >= this.settings.max
          ? "busy"
          : classify(error));
    const what: Record<StoreFailure, string> = {
      unreachable: `could not reach the database (${error.message}). Nothing was done; retry later.`,
      "connection-lost":
        `lost its database connection (${error.message}).` +
        (operation.startsWith("commit")
          ? " The commit was applied entirely or not at all: reload the stream (or retry with the same expectedVersion) to find out."
          : " The pool reconnects on the next call; retry it."),
      busy: `found every one of its ${this.settings.max} pooled connections busy until the wait timed out (${error.message}). Nothing was done; retry later, or give the pool more connections (max).`,
      transient: `was refused by the database for a passing reason (${error.message}; SQLSTATE ${error.code}). The transaction was rolled back, nothing was done; retry.`,
      disposed: "was called after the store was disposed.",
      rejected: `failed: ${error.message}`,
    };
    const wrapped = new StoreError(operation, reason, `PostgresStore ${operation} ${what[reason]}`, error);
    if (error.code) (wrapped as DriverError).code = error.code;
    return wrapped;
  }
}
