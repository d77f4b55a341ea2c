/**
 * SQLite store for Act: a durable event store in one file, shared safely by
 * several processes on one machine.
 *
 * @packageDocumentation
 */
export { SqliteStore, type SqliteStoreOptions } from "./sqlite-store.js";
export type { Connection, Statement } from "./driver.js";
