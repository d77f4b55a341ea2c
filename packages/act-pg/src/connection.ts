/**
 * The connection settings of a pool, defaults applied, and the pool itself
 * with the driver's type parsers: what a store opens, or what the stores of
 * a `PostgresConnections` share.
 */
import pg from "pg";

/**
 * Where the database is and how many connections to keep: the connection
 * fields of `PostgresStoreConfig`, which a `PostgresConnections` takes alone.
 *
 * @experimental
 * @example
 * ```ts
 * const fields: PostgresConnectionsConfig = { connectionString: process.env.DATABASE_URL, max: 20 };
 * ```
 */
export type PostgresConnectionsConfig = {
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
  /** Maximum connections in the pool (default 10). */
  readonly max?: number;
  /** Close connections idle for this many ms (default 10,000). */
  readonly idleTimeoutMillis?: number;
  /** Give up connecting after this many ms (default 10,000). */
  readonly connectionTimeoutMillis?: number;
  /** `application_name` reported to the server (default `act-pg`). */
  readonly applicationName?: string;
};

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

/** Environment variable, ignoring empty values. */
const env = (name: string) => {
  const value = globalThis.process?.env?.[name];
  return value === undefined || value === "" ? undefined : value;
};

/** The connection settings handed to `pg.Pool`, defaults applied. */
export function connection(config: PostgresConnectionsConfig) {
  const port = config.port ?? (env("PGPORT") ? Number(env("PGPORT")) : 5432);
  if (!Number.isInteger(port) || port <= 0 || port > 65535)
    throw new Error(
      `Invalid PostgresStore port ${JSON.stringify(config.port ?? env("PGPORT"))}: expected an integer 1-65535`
    );
  return {
    ...(config.connectionString ? { connectionString: config.connectionString } : {}),
    host: config.host ?? env("PGHOST") ?? "localhost",
    port,
    database: config.database ?? env("PGDATABASE") ?? "postgres",
    user: config.user ?? env("PGUSER") ?? "postgres",
    password: config.password ?? env("PGPASSWORD"),
    max: config.max ?? 10,
    idleTimeoutMillis: config.idleTimeoutMillis ?? 10_000,
    connectionTimeoutMillis: config.connectionTimeoutMillis ?? 10_000,
    application_name: config.applicationName ?? "act-pg",
  };
}

/** A pool on these settings, with the type parsers; it opens no connection until the first call. */
export function createPool(settings: ReturnType<typeof connection>): pg.Pool {
  return new pg.Pool({ ...settings, types });
}
