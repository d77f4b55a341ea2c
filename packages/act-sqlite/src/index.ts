/**
 * SQLite store for Act: a durable event store in one file, shared safely by
 * several processes on one machine.
 *
 * @packageDocumentation
 */
export type { SqliteStoreOptions } from "./config.js";
export { SqliteStore } from "./sqlite-store.js";
export type { Connection, Statement } from "./driver.js";
export { sqliteTenants, type SqliteTenantsOptions } from "./tenants.js";
