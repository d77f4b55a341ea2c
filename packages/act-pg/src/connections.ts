/**
 * Connections several stores of one database share: one pool for their
 * statements and one connection listening for all their wake-ups.
 */
import { logger } from "@act-root/act";
import { checkOptions, OptionSchemas } from "@act-root/act/internal";
import type pg from "pg";
import { connection, createPool, type PostgresConnectionsConfig } from "./connection.js";
import { ChannelListener } from "./listener.js";

/** What the stores of a {@link PostgresConnections} share. */
export type SharedParts = { pool: pg.Pool; listener: ChannelListener; settings: ReturnType<typeof connection> };

/** Each instance's parts, for the stores only (kept off the class, so they are not public API). */
const parts = new WeakMap<object, SharedParts>();

/** The pool, listener and settings a store shares through `connections`. */
export function sharedParts(connections: PostgresConnections): SharedParts {
  const found = parts.get(connections);
  if (!found) throw new TypeError("connections must be a PostgresConnections");
  return found;
}

/** The pool's numbers, checked by the validator every store shares. */
const CONNECTION_OPTIONS = OptionSchemas.store.pick({}).extend({
  max: OptionSchemas.whole(1, 10_000).optional(),
  idleTimeoutMillis: OptionSchemas.whole(0).optional(),
  connectionTimeoutMillis: OptionSchemas.whole(0).optional(),
});

/**
 * One pool and one listening connection for any number of
 * {@link PostgresStore}s of the same database — typically a schema per
 * tenant (`postgresSchemaTenants` builds one for you). Each store given it
 * (`new PostgresStore({ connections, schema })`) runs its statements on the
 * shared pool and listens for wake-ups on the shared connection, one channel
 * per store: a thousand stores cost `max` pooled connections and one
 * listener, not a thousand pools.
 *
 * Statements run unprepared on the shared pool: a pooled connection serves
 * every store, and preparing each store's statements on it would keep
 * thousands of plans per server process. Each statement is parsed once per
 * call instead (a fraction of a millisecond).
 *
 * Disposing a store leaves these open: {@link PostgresConnections.dispose}
 * closes them, after the stores.
 *
 * @experimental
 * @see [Multi-tenancy](/docs/guides/multi-tenancy) — a schema per tenant.
 * @example
 * ```ts
 * const connections = new PostgresConnections({ connectionString: process.env.DATABASE_URL, max: 20 });
 * const acme = new PostgresStore({ connections, schema: "tenant_acme" });
 * const globex = new PostgresStore({ connections, schema: "tenant_globex" });
 * ```
 */
export class PostgresConnections {
  // Private fields: the pool holds the password, which must not show in `util.inspect` or logs.
  readonly #pool: pg.Pool;
  readonly #listener: ChannelListener;
  readonly #settings: ReturnType<typeof connection>;
  #disposed?: Promise<void>;

  /**
   * Creates the pool and the listener; neither connects until a store uses it.
   *
   * @param config - where the database is and the pool's size (see {@link PostgresConnectionsConfig})
   * @throws ValidationError naming a pool setting out of range
   * @example
   * ```ts
   * const connections = new PostgresConnections({ database: "saas", max: 20 });
   * ```
   */
  constructor(config: PostgresConnectionsConfig = {}) {
    const { max, idleTimeoutMillis, connectionTimeoutMillis } = config ?? {};
    checkOptions("connections", { max, idleTimeoutMillis, connectionTimeoutMillis }, CONNECTION_OPTIONS);
    this.#settings = connection(config);
    this.#pool = createPool(this.#settings);
    this.#pool.on("error", (error) =>
      logger.warn(error, "act-pg: an idle shared database connection was lost; the pool replaces it")
    );
    this.#listener = new ChannelListener(this.#settings, false);
    parts.set(this, { pool: this.#pool, listener: this.#listener, settings: this.#settings });
  }

  /** What `util.inspect` shows: the database, never the connection settings. */
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `PostgresConnections { database: ${JSON.stringify(this.#settings.database)} }`;
  }

  /**
   * How many connections are open now: the pool's (`pooled`, at most `max`)
   * and the listener's (`listening`: 0 or 1), with the channels it listens on.
   *
   * @example
   * ```ts
   * const { pooled, listening, channels } = connections.opened();
   * ```
   */
  opened(): {
    /** Connections open in the pool, busy or idle. */
    pooled: number;
    /** 1 while the listening connection is open. */
    listening: number;
    /** Channels listened on: one per store with a subscriber. */
    channels: number;
  } {
    return {
      pooled: this.#pool.totalCount,
      listening: this.#listener.channels > 0 && !this.#disposed ? 1 : 0,
      channels: this.#listener.channels,
    };
  }

  /**
   * Closes the listener and the pool, after the calls in progress. Dispose
   * the stores first (their later calls fail). Calling it again does nothing.
   *
   * @example
   * ```ts
   * await connections.dispose();
   * ```
   */
  async dispose(): Promise<void> {
    this.#disposed ??= (async () => {
      await this.#listener.dispose();
      await this.#pool.end();
    })();
    await this.#disposed;
  }
}
