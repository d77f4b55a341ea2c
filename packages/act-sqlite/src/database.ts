/**
 * The store's handle on its file: the connection (opened on first use), the
 * statements prepared on it, its settings, and the one way every operation
 * prepares a statement, writes in a transaction, reads, and reports a
 * failure. Each `SqliteStore` owns one; the operation modules receive it.
 */
import { ConcurrencyError, StoreError, ValidationError } from "@act-root/act";
import type { Settings } from "./config.js";
import type { Connection, DriverError, Statement } from "./driver.js";
import { inMemory, isBusy, openDatabase } from "./file.js";
import { SQL } from "./schema.js";

/** The store's connection and prepared statements, and how it writes, reads and reports failures. */
export class Database {
  readonly settings: Settings;
  /** Set by `close`: every call fails with reason `"disposed"` from then on. */
  disposed = false;
  #db?: Connection;
  readonly #statements = new Map<string, Statement>();
  /** Whether projection handlers are running now, inside a write transaction: the only time their connection works. */
  #handling = false;
  /** The store's connection, and the fenced one handed to projection handlers. */
  #fenced?: [Connection, Connection];
  #rested = false;

  constructor(settings: Settings) {
    this.settings = settings;
  }

  /** The connection, opened on first use. */
  connection(operation: string): Connection {
    if (this.disposed) throw this.failure(operation, new Error("the store was disposed"));
    this.#db ??= openDatabase(this.settings);
    this.#rested = false;
    return this.#db;
  }

  /** Whether `rest` closed the file and no call opened it since. */
  get rested(): boolean {
    return this.#rested;
  }

  /**
   * Closes the file until the next call, which opens it again: its file
   * descriptors are given back while the store is not used. Never inside a
   * transaction: the driver is synchronous, so none is open between calls.
   * An in-memory database is never closed: closing it would erase it.
   */
  rest(): void {
    if (this.disposed || this.#handling || !this.#db || inMemory(this.settings.filename)) return;
    this.#rested = true;
    this.#statements.clear();
    const db = this.#db;
    this.#db = undefined;
    this.#fenced = undefined;
    db?.close();
  }

  /** Forgets the prepared statements (after the schema changed, or before closing). */
  forgetStatements(): void {
    this.#statements.clear();
    // The handlers' statements too (see `fence`).
    this.#fenced = undefined;
  }

  /** Closes the file; every call fails afterwards. Throws what closing threw. */
  close(): void {
    this.disposed = true;
    this.#statements.clear();
    const db = this.#db;
    this.#db = undefined;
    db?.close();
  }

  /** Runs projection handlers with their connection open, and closes it when they return. */
  handle(operation: string, work: (db: Connection) => unknown): unknown {
    const db = this.connection(operation);
    if (this.#fenced?.[0] !== db) this.#fenced = [db, fence(db, () => this.#handling)];
    this.#handling = true;
    try {
      return work(this.#fenced[1]);
    } finally {
      this.#handling = false;
    }
  }

  /** A statement prepared once per connection (a failed busy statement prepared afresh would poison libsql's connection). */
  statement(operation: string, sql: string): Statement {
    const db = this.connection(operation);
    let statement = this.#statements.get(sql);
    if (!statement) {
      try {
        statement = db.prepare(sql);
      } catch (error) {
        throw this.failure(operation, error as DriverError);
      }
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** Runs `work` in a write transaction that holds the write lock from the start; rolls back on any throw. */
  write<T>(operation: string, work: () => T): T {
    const begin = this.statement(operation, SQL.begin);
    const commit = this.statement(operation, SQL.commit);
    try {
      begin.run();
    } catch (error) {
      throw this.failure(operation, error as DriverError);
    }
    try {
      const result = work();
      commit.run();
      return result;
    } catch (error) {
      try {
        this.statement(operation, SQL.rollback).run();
      } catch {
        // nothing left to roll back
      }
      throw this.failure(operation, error as DriverError);
    }
  }

  /** Runs a read statement, turning driver errors into `StoreError`s. */
  read(operation: string, sql: string, ...values: unknown[]): unknown[][] {
    const statement = this.statement(operation, sql);
    try {
      return statement.rows(...values);
    } catch (error) {
      throw this.failure(operation, error as DriverError);
    }
  }

  /** A `StoreError` saying which operation failed and whether to retry; the store's own errors pass through. */
  failure(operation: string, error: DriverError): Error {
    if (
      error instanceof ConcurrencyError ||
      error instanceof ValidationError ||
      error instanceof StoreError ||
      error instanceof TypeError ||
      error instanceof RangeError
    )
      return error;
    const file = JSON.stringify(this.settings.filename);
    if (this.disposed)
      return new StoreError(operation, "disposed", `SqliteStore ${operation} was called after the store was disposed.`);
    if (isBusy(error))
      return new StoreError(
        operation,
        "busy",
        `SqliteStore ${operation}: another connection held ${file} locked for longer than busyTimeoutMillis (${this.settings.busyTimeoutMillis} ms). Nothing was done; retry.`,
        error
      );
    return new StoreError(operation, "rejected", `SqliteStore ${operation} on ${file} failed: ${error.message}`, error);
  }
}

/**
 * Refuses what a handler returned when it is a promise: the driver is
 * synchronous, and writes it made after the transaction ended would land
 * outside it.
 */
export function synchronously(result: unknown, what: string): void {
  if (typeof (result as PromiseLike<unknown> | undefined)?.then !== "function") return;
  // Nothing may wait for it: its writes would land outside the transaction.
  Promise.resolve(result).catch(() => {});
  throw new Error(
    `SqliteStore runs ${what} synchronously, inside its write transaction, but one returned a promise: write with the connection's synchronous calls and return nothing`
  );
}

/** Most statements kept prepared for projection handlers, per connection. */
const PREPARED_BY_HANDLERS = 64;

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
  // Handlers prepare their statements on every event (as the guides show):
  // preparing costs more than the write itself, so each text is prepared once
  // per connection and handed out again. Bounded, for handlers that build
  // their SQL with the values in it: past the bound, the oldest text goes.
  const prepared = new Map<string, Statement>();
  return {
    exec(sql) {
      check();
      db.exec(sql);
    },
    prepare(sql) {
      check();
      let statement = prepared.get(sql);
      if (!statement) {
        statement = db.prepare(sql);
        if (prepared.size >= PREPARED_BY_HANDLERS) prepared.delete(prepared.keys().next().value!);
        prepared.set(sql, statement);
      }
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
