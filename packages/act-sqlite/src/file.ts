/**
 * Opening a database file: the checks that turn a wrong path or a wrong file
 * into an error naming it, before anything is written to it.
 */
import { StoreError } from "@act-root/act";
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { type Connection, type DriverError, open } from "./driver.js";
import { SCHEMA_VERSION, version } from "./schema.js";

/** Whether `filename` names a private in-memory database rather than a file. */
export const inMemory = (filename: string) => filename === ":memory:" || filename === "";

/** The connection settings (see `SqliteStoreOptions`). */
export type FileSettings = {
  readonly filename: string;
  readonly synchronous: "FULL" | "NORMAL";
  readonly busyTimeoutMillis: number;
};

/** SQLite result codes (with their extended forms) meaning another connection holds a lock. */
export const isBusy = (error: DriverError) => /^SQLITE_(BUSY|LOCKED)/.test(error.code ?? "");

/** An error opening the file, naming it; not retryable unless the file was locked. */
function refused(filename: string, why: string, cause?: DriverError): StoreError {
  const busy = cause !== undefined && isBusy(cause);
  return new StoreError(
    "open",
    busy ? "busy" : "rejected",
    `SqliteStore could not open "${filename}": ${why}${busy ? " Retry later." : ""}`,
    cause
  );
}

/** Refuses paths the store could only fail on later, with a plain reason. */
function check(path: string): void {
  const directory = dirname(path);
  if (!existsSync(directory)) throw refused(path, `the directory "${directory}" does not exist; create it first.`);
  if (!statSync(directory).isDirectory()) throw refused(path, `"${directory}" is not a directory.`);
  if (!existsSync(path)) return;
  const stat = statSync(path);
  if (!stat.isFile()) throw refused(path, "it is not a file.");
  // Checked on the mode bits as well as with access(): the superuser passes
  // access() on a read-only file, and the store must still not write to it.
  let writable = (stat.mode & 0o222) !== 0;
  try {
    accessSync(path, constants.R_OK | constants.W_OK);
  } catch {
    writable = false;
  }
  if (!writable) throw refused(path, "the file is read-only; the store writes to it (give the process write access).");
}

/**
 * Opens the database, refuses a file that is not SQLite or was written by a
 * newer version of this package (before writing anything to it), and sets
 * WAL mode, the busy timeout and the sync level.
 */
export function openDatabase(settings: FileSettings): Connection {
  const memory = inMemory(settings.filename);
  const path = memory ? ":memory:" : resolve(settings.filename);
  if (!memory) check(path);
  let db: Connection | undefined;
  try {
    db = open(path);
    // First, so every later statement waits for other processes' locks.
    db.exec(`PRAGMA busy_timeout = ${settings.busyTimeoutMillis}`);
    // Reading the header: a file that is not SQLite fails here, unchanged.
    const found = version(db);
    if (found > SCHEMA_VERSION) {
      db.close();
      throw refused(
        path,
        `it was written by a newer version of @act-root/act-sqlite (schema version ${found}; this one knows up to ${SCHEMA_VERSION}). Upgrade the package; the file was left as it is.`
      );
    }
    if (!memory) db.exec("PRAGMA journal_mode = WAL");
    db.exec(`PRAGMA synchronous = ${settings.synchronous}`);
    return db;
  } catch (error) {
    if (error instanceof StoreError) throw error;
    try {
      db?.close();
    } catch {
      // already unusable
    }
    const e = error as DriverError;
    const why =
      e.code === "SQLITE_NOTADB"
        ? "the file is not a SQLite database; the file was left as it is."
        : e.code?.startsWith("SQLITE_READONLY")
          ? "the file (or its directory, where SQLite keeps the -wal and -shm files) is read-only."
          : `${e.message}.`;
    throw refused(path, why, e);
  }
}
