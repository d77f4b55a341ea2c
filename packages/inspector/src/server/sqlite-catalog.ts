/**
 * The SQLite catalog: lists streams of a `SqliteStore` file from its unique
 * `(stream, version)` index, one index seek per stream shown, on a
 * connection of its own that may not write.
 */
import { existsSync } from "node:fs";
import type { Catalog, StreamPage, StreamSummary } from "./catalog.js";

/** The few calls of the `libsql` driver the catalog makes. */
type Db = {
  exec(sql: string): unknown;
  prepare(sql: string): { raw(on: boolean): { all(params: unknown[]): unknown[] } };
  close(): void;
};

/**
 * A page of streams, by a recursive "loose index scan": each step jumps to
 * the next stream name in the index, and stops at the first name that does
 * not start with the prefix (SQLite compares text byte by byte, so names
 * sharing a prefix are next to each other). `?3` bounds the steps.
 */
export const SQLITE_STREAMS = `
WITH RECURSIVE s(stream) AS (
  SELECT (SELECT stream FROM act_events INDEXED BY act_events_stream_version WHERE stream >= ?1 AND stream > ?2 ORDER BY stream LIMIT 1)
  UNION ALL
  SELECT (SELECT e.stream FROM act_events e INDEXED BY act_events_stream_version WHERE e.stream > s.stream ORDER BY e.stream LIMIT 1)
  FROM s WHERE s.stream IS NOT NULL AND substr(s.stream, 1, length(?1)) = ?1
  LIMIT ?3
)
SELECT s.stream, l.version, l.created FROM s
JOIN act_events l INDEXED BY act_events_stream_version ON l.stream = s.stream
  AND l.version = (SELECT x.version FROM act_events x INDEXED BY act_events_stream_version WHERE x.stream = s.stream ORDER BY x.version DESC LIMIT 1)
WHERE s.stream IS NOT NULL AND substr(s.stream, 1, length(?1)) = ?1`;

/** One stream's last row, from the unique index backwards. */
export const SQLITE_STREAM =
  "SELECT version, created FROM act_events INDEXED BY act_events_stream_version WHERE stream = ?1 ORDER BY version DESC LIMIT 1";

/**
 * The catalog of a `SqliteStore` file (package `@act-root/act-sqlite`). It
 * opens the file with the `libsql` driver the store uses, refuses to create
 * a file that is not there, and sets the connection `query_only`.
 *
 * @experimental
 * @example
 * ```ts
 * const catalog = await SqliteCatalog.open("./events.db");
 * const { streams } = await catalog.streams("order-", undefined, 50);
 * await catalog.close();
 * ```
 */
export class SqliteCatalog implements Catalog {
  readonly label: string;
  readonly #db: Db;

  private constructor(db: Db, filename: string) {
    this.#db = db;
    this.label = `sqlite ${filename.split("/").pop()}`;
  }

  /**
   * Opens the catalog of a store file.
   *
   * @param filename - the store's file; it must exist
   * @throws Error when the file does not exist, or the `libsql` driver is not installed
   */
  static async open(filename: string): Promise<SqliteCatalog> {
    if (!existsSync(filename)) throw new Error(`No SQLite file at ${filename}: the inspector never creates one.`);
    // Loaded here, not at the top: only SQLite users need the driver.
    const { default: Database } = (await import("libsql")) as unknown as { default: new (path: string) => Db };
    const db = new Database(filename);
    db.exec("PRAGMA query_only = ON; PRAGMA busy_timeout = 5000;");
    return new SqliteCatalog(db, filename);
  }

  /**
   * Streams whose name starts with `prefix`, from the file's index.
   *
   * @param prefix - the start of the names ("" for every stream)
   * @param after - the last name of the previous page, or undefined for the first page
   * @param limit - the most streams to return
   */
  async streams(prefix: string, after: string | undefined, limit: number): Promise<StreamPage> {
    // Two more steps than rows: the page, one to know there is a next page, one that ends the walk.
    const rows = this.#db
      .prepare(SQLITE_STREAMS)
      .raw(true)
      .all([prefix, after ?? "", limit + 2]) as [string, number, number][];
    const streams: StreamSummary[] = rows
      .slice(0, limit)
      .map(([stream, version, created]) => ({ stream, events: version + 1, last: new Date(created) }));
    return { streams, ...(rows.length > limit && { next: streams[streams.length - 1].stream }) };
  }

  /**
   * One stream's summary, from its last row.
   *
   * @param name - the stream
   */
  async stream(name: string): Promise<StreamSummary | undefined> {
    const [row] = this.#db.prepare(SQLITE_STREAM).raw(true).all([name]) as [number, number][];
    return row && { stream: name, events: row[0] + 1, last: new Date(row[1]) };
  }

  /** Always false: the store's file has no index on the correlation id. */
  async correlationIndexed(): Promise<boolean> {
    return false;
  }

  /** Closes the catalog's connection. */
  async close(): Promise<void> {
    this.#db.close();
  }

  /**
   * `EXPLAIN QUERY PLAN` of the catalog's queries.
   *
   * @param prefix - the prefix (and stream name) to plan them for
   * @returns each plan's steps, one per line
   */
  explain(prefix: string): {
    /** The plan of a page of streams. */
    streams: string;
    /** The plan of one stream's summary. */
    stream: string;
  } {
    const plan = (sql: string, params: unknown[]) =>
      (this.#db.prepare(`EXPLAIN QUERY PLAN ${sql}`).raw(true).all(params) as unknown[][])
        .map((row) => String(row[3]))
        .join("\n");
    return { streams: plan(SQLITE_STREAMS, [prefix, "", 52]), stream: plan(SQLITE_STREAM, [prefix]) };
  }
}
