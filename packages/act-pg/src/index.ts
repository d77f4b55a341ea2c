/**
 * `@act-root/act-pg` — the PostgreSQL store for Act.
 *
 * Pass a {@link PostgresStore} to the `store` port of `@act-root/act` before
 * anything else uses it, then `seed()` it once.
 *
 * @example
 * ```ts
 * import { store } from "@act-root/act";
 * import { PostgresStore } from "@act-root/act-pg";
 *
 * store(new PostgresStore({ connectionString: process.env.DATABASE_URL }));
 * await store().seed();
 * ```
 *
 * @packageDocumentation
 */
export { PostgresStore } from "./postgres-store.js";
export type { PostgresStoreConfig } from "./config.js";
export { PostgresConnections } from "./connections.js";
export type { PostgresConnectionsConfig } from "./connection.js";
export { postgresSchemaTenants, postgresDatabaseTenants, type PostgresTenantsConfig } from "./tenants.js";
export { postgresSharedTenants, type PostgresSharedTenantsConfig } from "./shared-tenants.js";
