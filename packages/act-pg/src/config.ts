import { checkOptions, OptionSchemas } from "@act-root/act/internal";
import type { PostgresConnections } from "./connections.js";

// The connection settings live beside the pool they make; re-exported here, where the config's other checks are.
export { connection } from "./connection.js";

/**
 * Configuration of a {@link PostgresStore}: where the database is, and which
 * schema and table hold the events. Every field is optional.
 *
 * Connection fields left out fall back to the standard `PG*` environment
 * variables (`PGHOST`, `PGPORT`, `PGDATABASE`, `PGUSER`, `PGPASSWORD`), then
 * to a local default: `localhost:5432`, database and user `postgres`. A
 * `connectionString` takes precedence over the separate connection fields for
 * every part it specifies (the `pg` driver's rule).
 *
 * `schema` and `table` must be plain SQL identifiers — a letter or `_`, then
 * letters, digits or `_` (the table name at most 48 characters, so the names
 * derived from it fit PostgreSQL's 63-character limit). They are used
 * case-sensitively. The other tables are named after it: `<table>_watermarks`,
 * `<table>_keys` and `<table>_discovery`.
 *
 * @stable
 * @see [Configuration](/docs/concepts/configuration#switching-to-postgres) — sets it up step by step.
 * @example
 * ```ts
 * const config: PostgresStoreConfig = {
 *   host: "db.internal",
 *   database: "orders",
 *   user: "app",
 *   password: process.env.DB_PASSWORD,
 *   schema: "act",
 *   table: "events",
 *   max: 20,
 * };
 * const store = new PostgresStore(config);
 * ```
 */
export type PostgresStoreConfig = {
  /** A `postgres://user:password@host:port/database` URL; its parts win over the separate fields. */
  readonly connectionString?: string;
  /** Server host name or address (default `PGHOST`, else `localhost`). */
  readonly host?: string;
  /** Server port (default `PGPORT`, else 5432). */
  readonly port?: number;
  /** Database name (default `PGDATABASE`, else `postgres`). */
  readonly database?: string;
  /** User name (default `PGUSER`, else `postgres`). */
  readonly user?: string;
  /** Password (default `PGPASSWORD`, else none). */
  readonly password?: string;
  /** Schema holding the tables (default `public`); created by `seed()` if missing. */
  readonly schema?: string;
  /** Events table name (default `events`); the watermark table is `<table>_watermarks`, the idempotency keys `<table>_keys`, the discovery positions `<table>_discovery`. */
  readonly table?: string;
  /** Maximum connections in the pool (default 10). */
  readonly max?: number;
  /** Close connections idle for this many ms (default 10,000). */
  readonly idleTimeoutMillis?: number;
  /** Give up connecting after this many ms (default 10,000). */
  readonly connectionTimeoutMillis?: number;
  /** `application_name` reported to the server (default `act-pg`). */
  readonly applicationName?: string;
  /** How long an idempotency key is remembered, in ms (default 24 hours). */
  readonly idempotencyMillis?: number;
  /**
   * Connections shared with other stores of the same database — one pool and
   * one listening connection for all of them (a schema per tenant): the store
   * runs its statements on that pool and listens for wake-ups on that
   * connection instead of opening its own, and its own connection fields and
   * `max` are ignored. Disposing the store leaves them open; dispose the
   * `PostgresConnections` after its stores. Statements are not prepared on
   * the shared pool (see `PostgresConnections`).
   * @experimental
   */
  readonly connections?: PostgresConnections;
  /**
   * Warn when a transaction holding writes on the events table stays open
   * longer than this, in ms (default 30,000): it holds reactions back.
   */
  readonly slowWriterMillis?: number;
};

/** The store options every store takes, plus this store's own durations and pool size. */
const PG_OPTIONS = OptionSchemas.store.extend({
  max: OptionSchemas.whole(1, 10_000).optional(),
  idleTimeoutMillis: OptionSchemas.whole(0).optional(),
  connectionTimeoutMillis: OptionSchemas.whole(0).optional(),
  slowWriterMillis: OptionSchemas.whole(1).optional(),
});

/**
 * Checks a config's numbers, schema and table (see {@link PostgresStoreConfig})
 * and returns the schema and table, defaults applied.
 *
 * @throws ValidationError naming a numeric option out of range
 * @throws Error naming `schema` or `table` when it is not a plain SQL identifier
 */
export function checkConfig(config: PostgresStoreConfig): { schema: string; table: string } {
  checkOptions("store", checkable(config, Object.keys(PG_OPTIONS.shape)), PG_OPTIONS);
  const schema = config.schema ?? "public";
  const table = config.table ?? "events";
  identifier("schema", schema);
  identifier("table", table, 48);
  return { schema, table };
}

/** What a name must look like: a plain, unquoted SQL identifier. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Checks a schema or table name and returns it double-quoted for SQL.
 *
 * @param field - the configuration field, for the error message
 * @param value - the name
 * @param max - longest allowed name
 * @throws Error naming the field when the name is not a plain identifier
 */
export function identifier(field: string, value: unknown, max = 63): string {
  if (typeof value !== "string" || !IDENTIFIER.test(value) || value.length > max)
    throw new Error(
      `Invalid PostgresStore ${field} ${JSON.stringify(value)}: expected a plain SQL identifier ` +
        `(a letter or "_", then letters, digits or "_", at most ${max} characters)`
    );
  return `"${value}"`;
}

/**
 * The part of a config that is validated: the fields in `keys` (the numeric
 * settings) and nothing else. A refused config's `ValidationError` carries
 * what was checked, and the default logger writes that at debug level: a
 * connection string or a password must not be in it. A config that is not an
 * object is replaced by the name of its type, which is refused the same way.
 *
 * @param config - the config as given
 * @param keys - the fields the options schema checks
 * @returns what to validate
 */
export function checkable(
  config: PostgresStoreConfig | undefined,
  keys: readonly string[]
): PostgresStoreConfig | undefined {
  const given: unknown = config;
  if (given === undefined || given === null) return config;
  // Callers without types can pass anything; what is not an object is refused as one.
  if (typeof given !== "object" || Array.isArray(given))
    return `(${Array.isArray(given) ? "array" : typeof given})` as PostgresStoreConfig;
  const fields = given as Record<string, unknown>;
  return Object.fromEntries(keys.filter((key) => key in fields).map((key) => [key, fields[key]]));
}
