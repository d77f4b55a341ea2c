/**
 * Which tenant a store built by `postgresSharedTenants` serves: kept beside
 * the store's config object rather than in it, so the public config type
 * gains no field that would let any caller pick a tenant of shared tables.
 */
import type { PostgresStoreConfig } from "./config.js";

/** The tenant of each config a shared-tables strategy made. */
const tenants = new WeakMap<PostgresStoreConfig, string>();

/** Marks `config` as the config of `tenant`'s store in shared tables (the id already checked); returns it. */
export function scoped(config: PostgresStoreConfig, tenant: string): PostgresStoreConfig {
  tenants.set(config, tenant);
  return config;
}

/** The tenant a config was marked for, or undefined for a store of its own tables. */
export function tenantOf(config: PostgresStoreConfig): string | undefined {
  return tenants.get(config);
}
