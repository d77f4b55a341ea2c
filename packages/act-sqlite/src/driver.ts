/**
 * The only file that knows the SQLite driver. The store needs a synchronous
 * connection that prepares statements once and returns rows as arrays; this
 * is that interface, on `libsql` (see the README for why). To move to
 * better-sqlite3 13+ or `node:sqlite` (once Node 22 is the minimum), change
 * `open` below — the rest of the package does not import the driver.
 */
import Database from "libsql";

/**
 * A prepared statement; `?` parameters by position.
 *
 * @experimental
 * @example
 * ```ts
 * const insertTicket = (db: Connection) => {
 *   const insert: Statement = db.prepare("INSERT INTO open_tickets (id, title) VALUES (?, ?)");
 *   insert.run("t-1", "Printer");
 * };
 * ```
 */
export interface Statement {
  /**
   * Runs it; returns how many rows it changed.
   *
   * @param params - the values of its `?` parameters, in order
   */
  run(...params: unknown[]): number;
  /**
   * Every row, each as an array of column values in the statement's order.
   *
   * @param params - the values of its `?` parameters, in order
   */
  rows(...params: unknown[]): unknown[][];
  /**
   * The first row as an array, if any.
   *
   * @param params - the values of its `?` parameters, in order
   */
  row(...params: unknown[]): unknown[] | undefined;
}

/**
 * A connection to one database file: what `SqliteStore` hands projection
 * handlers, inside the transaction that also moves the projection's position.
 *
 * @experimental
 * @example
 * ```ts
 * const OpenTickets = projection<Connection>("OpenTickets")
 *   .with(Ticket)
 *   .on("TicketOpened", (event, db) => {
 *     db.prepare("INSERT INTO open_tickets (id, title) VALUES (?, ?)").run(event.stream, event.data.title);
 *   })
 *   .build();
 * ```
 */
export interface Connection {
  /**
   * Runs one or more statements without parameters (DDL, pragmas, `BEGIN`…).
   *
   * @param sql - the statements, separated by `;`
   */
  exec(sql: string): void;
  /**
   * Prepares a statement. Keep it: a fresh statement per call is slower, and with libsql unsafe after a busy error.
   * The connection projection handlers get keeps each text prepared (up to 64), so a handler may prepare per event.
   *
   * @param sql - one statement, with `?` parameters
   */
  prepare(sql: string): Statement;
  /** Closes the connection. */
  close(): void;
}

/** A driver error carries SQLite's result code name, e.g. `SQLITE_BUSY`. */
export type DriverError = Error & { code?: string };

/**
 * Opens (or creates) `filename`. The file and its directory are checked by
 * the caller; this only opens.
 */
export function open(filename: string): Connection {
  const db = new Database(filename);
  return {
    exec: (sql) => void db.exec(sql),
    prepare(sql) {
      const statement = db.prepare(sql);
      // Rows as arrays: no per-row object, and no driver metadata mixed into
      // the values (libsql adds an enumerable `_metadata` field to row objects).
      const reader = statement.reader ? statement.raw(true) : undefined;
      // Parameters go in as one array: libsql reads a single object argument
      // (a lone null included) as named parameters.
      return {
        run: (...params) => statement.run(params).changes,
        rows: (...params) => (reader ? (reader.all(params) as unknown[][]) : []),
        // Not `get`: after `all` (or `iterate`) returned rows, libsql's `get` on
        // the same statement returns the previous run's first row when the new
        // run has none — a recall that found a key made the next keyed commit
        // see its own new key as used. Every `row` query reads one row at most.
        row: (...params) => (reader ? (reader.all(params)[0] as unknown[] | undefined) : undefined),
      };
    },
    close: () => db.close(),
  };
}
