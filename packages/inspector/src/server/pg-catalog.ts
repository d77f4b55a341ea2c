/**
 * The PostgreSQL catalog: lists streams straight from the events table's
 * unique `(stream, version)` index, so listing a page costs one index descent
 * per stream shown, however many events or streams the table holds.
 */
import pg from "pg";
import type { Catalog, StreamPage, StreamSummary } from "./catalog.js";

/**
 * Where the events are; the same names `PostgresStore` takes.
 *
 * @experimental
 * @example
 * ```ts
 * const config: PgCatalogConfig = { connectionString: process.env.DATABASE_URL, schema: "shop" };
 * ```
 */
export type PgCatalogConfig = {
  /** A `postgres://…` URL; omitted, the `PG*` environment variables. */
  readonly connectionString?: string;
  /** Schema of the events table (default `public`). */
  readonly schema?: string;
  /** The events table (default `events`). */
  readonly table?: string;
  /** Cancel a catalog query after this many ms (default 10,000), so a slow one never hangs the page. */
  readonly statementTimeoutMillis?: number;
};

/** The names act-pg accepts: plain identifiers, so they can be quoted into SQL safely. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Checks a schema or table name and returns it double-quoted (not exported by the package). */
export function quoteIdentifier(field: string, value: string): string {
  if (!IDENTIFIER.test(value) || value.length > 63)
    throw new Error(`Invalid ${field} ${JSON.stringify(value)}: expected a plain SQL identifier (letters, digits, _)`);
  return `"${value}"`;
}

/**
 * The streams of a page, found by a "loose index scan": each step of the
 * recursion jumps to the next distinct stream name in the `(stream, version)`
 * index, and the lateral join reads each stream's last row from the same
 * index backwards. It stops at the first name that does not start with the
 * prefix, which is exact when the column's collation sorts names sharing a
 * prefix next to each other (true for the "C" collation and for prefixes of
 * letters and digits in the common ones).
 */
export function streamsSql(events: string): string {
  return `
WITH RECURSIVE s(stream) AS (
  (SELECT stream FROM ${events} WHERE stream >= $1 AND stream > $2 ORDER BY stream LIMIT 1)
  UNION ALL
  SELECT (SELECT e.stream FROM ${events} e WHERE e.stream > s.stream ORDER BY e.stream LIMIT 1)
  FROM s WHERE s.stream IS NOT NULL AND starts_with(s.stream, $1)
)
SELECT s.stream, l.version, l.created FROM s
CROSS JOIN LATERAL (
  SELECT version, created FROM ${events} x WHERE x.stream = s.stream ORDER BY version DESC LIMIT 1
) l
WHERE s.stream IS NOT NULL AND starts_with(s.stream, $1)
LIMIT $3`;
}

/** One stream's last row, from the unique index backwards. */
export function streamSql(events: string): string {
  return `SELECT version, created FROM ${events} WHERE stream = $1 ORDER BY version DESC LIMIT 1`;
}

/** Whether an index whose definition reads the correlation id exists on the table. */
const INDEXED_CORRELATION = `SELECT EXISTS (
  SELECT 1 FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 AND indexdef LIKE '%correlation%'
) AS indexed`;

/**
 * The catalog of a `PostgresStore`'s events table: lists streams from its
 * `(stream, version)` index on a pool of its own (at most 4 connections, read-only
 * transactions, a statement timeout).
 *
 * @experimental
 * @example
 * ```ts
 * const url = process.env.DATABASE_URL;
 * store(new PostgresStore({ connectionString: url }));
 * const inspector = await inspect(app, { catalog: new PgCatalog({ connectionString: url }) });
 * ```
 */
export class PgCatalog implements Catalog {
  readonly label: string;
  readonly #pool: pg.Pool;
  readonly #events: string;
  readonly #raw: { schema: string; table: string };

  /**
   * @param config - the database, schema and table
   * @throws Error when the schema or table is not a plain SQL identifier
   */ constructor(config: PgCatalogConfig) {
    const schema = config.schema ?? "public";
    const table = config.table ?? "events";
    this.#events = `${quoteIdentifier("schema", schema)}.${quoteIdentifier("table", table)}`;
    this.#raw = { schema, table };
    this.label = `postgres ${schema}.${table}`;
    const timeout = config.statementTimeoutMillis ?? 10_000;
    this.#pool = new pg.Pool({
      connectionString: config.connectionString,
      max: 4,
      application_name: "act-inspector",
      // The catalog only reads: ask the server to refuse anything else too.
      options: `-c default_transaction_read_only=on -c statement_timeout=${Math.floor(timeout)}`,
    });
    // A connection dropped while idle (server restart) must not crash the
    // process; the pool opens a new one on the next query.
    this.#pool.on("error", () => {});
  }

  /**
   * Streams whose name starts with `prefix`, from the table's index: a recursive query that jumps from one stream name to the next.
   *
   * @param prefix - the start of the names ("" for every stream)
   * @param after - the last name of the previous page, or undefined for the first page
   * @param limit - the most streams to return
   */
  async streams(prefix: string, after: string | undefined, limit: number): Promise<StreamPage> {
    const { rows } = await this.#pool.query<{ stream: string; version: number; created: Date }>(
      streamsSql(this.#events),
      [prefix, after ?? "", limit + 1]
    );
    const streams: StreamSummary[] = rows
      .slice(0, limit)
      .map((r) => ({ stream: r.stream, events: r.version + 1, last: r.created }));
    return { streams, ...(rows.length > limit && { next: streams[streams.length - 1].stream }) };
  }

  /**
   * One stream's summary, from its last row in the `(stream, version)` index.
   *
   * @param name - the stream
   */
  async stream(name: string): Promise<StreamSummary | undefined> {
    const { rows } = await this.#pool.query<{ version: number; created: Date }>(streamSql(this.#events), [name]);
    return rows[0] && { stream: name, events: rows[0].version + 1, last: rows[0].created };
  }

  /** Whether an index of the table reads the correlation id (looked up in `pg_indexes`). */
  async correlationIndexed(): Promise<boolean> {
    const { rows } = await this.#pool.query<{ indexed: boolean }>(INDEXED_CORRELATION, [
      this.#raw.schema,
      this.#raw.table,
    ]);
    return rows[0]?.indexed === true;
  }

  /** Closes the catalog's pool. */
  async close(): Promise<void> {
    await this.#pool.end();
  }

  /**
   * `EXPLAIN` of the catalog's two queries, as the server would plan them.
   *
   * @param prefix - the prefix (and stream name) to plan them for
   * @returns the plans, as text
   */
  async explain(prefix: string): Promise<{
    /** The plan of a page of streams. */
    streams: string;
    /** The plan of one stream's summary. */
    stream: string;
  }> {
    const plan = async (text: string, values: unknown[]) => {
      const client = await this.#pool.connect();
      try {
        // EXPLAIN takes no parameters: prepare the statement, then explain its execution.
        await client.query(`PREPARE inspector_plan AS ${text}`);
        const args = values.map((v) => (typeof v === "number" ? String(v) : `'${String(v).replace(/'/g, "''")}'`));
        const { rows } = await client.query(`EXPLAIN EXECUTE inspector_plan(${args.join(", ")})`);
        await client.query("DEALLOCATE inspector_plan");
        return rows.map((r: Record<string, string>) => r["QUERY PLAN"]).join("\n");
      } finally {
        client.release();
      }
    };
    return {
      streams: await plan(streamsSql(this.#events), [prefix, "", 51]),
      stream: await plan(streamSql(this.#events), [prefix]),
    };
  }
}
