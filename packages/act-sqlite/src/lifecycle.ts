/**
 * Creating, upgrading and dropping the store's tables (their SQL and the
 * upgrade steps are `migrate` and `drop` in `schema.ts`), and copying the
 * database to a backup file; closing it.
 */
import { logger } from "@act-root/act";
import type { Database } from "./database.js";
import type { DriverError } from "./driver.js";
import { backupFile, discardBackupFile } from "./file.js";
import type { Notifier } from "./notify.js";
import { drop as dropTables, migrate } from "./schema.js";

/** Creates the tables, or moves an older file forward, in one write transaction. */
export function seed(db: Database): void {
  const connection = db.connection("seed");
  db.write("seed", () => migrate(connection));
  // Statements prepared before the tables existed refer to nothing.
  db.forgetStatements();
}

/** Drops the tables in one write transaction (the row remembering the last id stays). */
export function drop(db: Database): void {
  const connection = db.connection("drop");
  db.forgetStatements();
  db.write("drop", () => dropTables(connection));
  db.forgetStatements();
}

/** Writes a consistent copy of the database to a new file at `destination` (`VACUUM INTO`). */
export function backup(db: Database, destination: string): void {
  const operation = `backup to ${JSON.stringify(destination)}`;
  const vacuum = db.statement(operation, "VACUUM INTO ?");
  const path = backupFile(destination);
  try {
    vacuum.run(path);
  } catch (error) {
    discardBackupFile(path);
    throw db.failure(operation, error as DriverError);
  }
}

/** Stops the change checks and closes the file; a second call does nothing. */
export function close(db: Database, notifier: Notifier): void {
  if (db.disposed) return;
  notifier.stop();
  try {
    db.close();
  } catch (error) {
    logger.warn(error, "act-sqlite: closing the database failed");
  }
}
