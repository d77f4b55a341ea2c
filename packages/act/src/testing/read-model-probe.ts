/**
 * How the store conformance suite reaches a read model in the store's own
 * database, through the handle `Store.project` passes: a table of keys it
 * empties, writes to and reads from. Give one to {@link storeConformance}
 * for a store whose `project` runs a real transaction, so the suite checks
 * that a projection's writes commit and roll back together with its
 * position. Each function may be synchronous — a store that runs `project`'s
 * work synchronously (SQLite) needs it to be.
 *
 * @experimental
 * @typeParam Tx - the handle the store's `project` passes
 * @example
 * ```ts
 * const probe: ReadModelProbe<Connection> = {
 *   reset: (db) => db.exec("CREATE TABLE IF NOT EXISTS probe (key TEXT PRIMARY KEY); DELETE FROM probe"),
 *   write: (db, key) => void db.prepare("INSERT INTO probe (key) VALUES (?)").run(key),
 *   read: (db, key) => db.prepare("SELECT 1 FROM probe WHERE key = ?").row(key) !== undefined,
 * };
 * ```
 */
export type ReadModelProbe<Tx = any> = {
  /**
   * Creates the table if missing and empties it.
   *
   * @param tx - the handle `project` passed
   */
  reset(tx: Tx): unknown;
  /**
   * Adds `key` to the table.
   *
   * @param tx - the handle `project` passed
   * @param key - the key to add
   */
  write(tx: Tx, key: string): unknown;
  /**
   * Whether the table holds `key`, as committed.
   *
   * @param tx - the handle `project` passed
   * @param key - the key to look for
   */
  read(tx: Tx, key: string): boolean | Promise<boolean>;
};
