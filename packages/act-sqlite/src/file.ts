/**
 * Opening a database file: the checks that turn a wrong path or a wrong file
 * into an error naming it, before anything is written to it.
 */
import { StoreError } from "@act-root/act";
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  lstatSync,
  openSync,
  type Stats,
  statSync,
  unlinkSync,
} from "node:fs";
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

/** Read and write for the owner only: the event log is nobody else's to read. */
const PRIVATE = 0o600;

/**
 * Creates `path` empty with mode 0600, refusing to follow a symbolic link or
 * to open a file that exists (`O_EXCL`, `O_NOFOLLOW`). SQLite creates the
 * `-wal` and `-shm` files with the mode of the database file, so they are
 * private too; left to itself it would create all three readable by every
 * user (0644 under the usual umask).
 */
function createPrivate(path: string): void {
  closeSync(openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, PRIVATE));
}

/** The file at `path` itself, a symbolic link not followed; undefined when there is none. */
function entry(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** A refused backup, naming the destination; not retryable. */
function refusedBackup(destination: string, why: string, cause?: Error): StoreError {
  return new StoreError(
    "backup",
    "rejected",
    `SqliteStore could not back up to ${JSON.stringify(destination)}: ${why}`,
    cause
  );
}

/**
 * Checks a backup destination and creates it, empty and private (0600), for
 * `VACUUM INTO` to fill; returns its absolute path. Refused: a `file:` URI
 * (SQLite would read its parameters, such as `mode=` or `vfs=`, and could
 * write nothing, or write elsewhere), a symbolic link (the copy would go
 * wherever it points, even a dangling one), and a file that exists.
 *
 * @param destination - the path given to `backup()`
 * @returns the absolute path, now an empty file with mode 0600
 * @throws StoreError naming the destination and the reason
 */
export function backupFile(destination: string): string {
  if (typeof destination !== "string" || destination.trim() === "" || inMemory(destination))
    throw refusedBackup(String(destination), "give the path of a new file.");
  if (/^file:/i.test(destination))
    throw refusedBackup(
      destination,
      "a `file:` URI is not accepted, since SQLite would read its parameters; give a plain path."
    );
  // Absolute: relative to the working directory, never read as a URI.
  const path = resolve(destination);
  const found = entry(path);
  if (found?.isSymbolicLink())
    throw refusedBackup(path, "it is a symbolic link, and the copy would be written where it points; give a new file.");
  if (found) throw refusedBackup(path, "the file exists; a backup is only written to a new file.");
  const directory = dirname(path);
  if (!entry(directory)?.isDirectory())
    throw refusedBackup(path, `the directory "${directory}" does not exist; create it first.`);
  try {
    createPrivate(path);
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    throw refusedBackup(
      path,
      e.code === "EEXIST" || e.code === "ELOOP" ? "another file took its place; give a new file." : `${e.message}.`,
      e
    );
  }
  return path;
}

/** Removes the empty file {@link backupFile} created, after a failed copy; leaves anything else alone. */
export function discardBackupFile(path: string): void {
  const found = entry(path);
  if (found?.isFile() && found.size === 0) unlinkSync(path);
}

/**
 * Opens the database, refuses a file that is not SQLite or was written by a
 * newer version of this package (before writing anything to it), and sets
 * WAL mode, the busy timeout and the sync level.
 */
export function openDatabase(settings: FileSettings): Connection {
  const memory = inMemory(settings.filename);
  const path = memory ? ":memory:" : resolve(settings.filename);
  if (!memory) {
    check(path);
    if (!existsSync(path))
      try {
        createPrivate(path);
      } catch {
        // Another process created it first, or the directory is not
        // writable: SQLite opens the one or names the other below.
      }
  }
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
    // Deleted and overwritten content is zeroed, not left in free space: a
    // forgotten subject's keys and snapshots must leave no bytes behind.
    db.exec("PRAGMA secure_delete = ON");
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
