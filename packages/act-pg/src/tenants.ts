/**
 * Tenants by store on PostgreSQL: a schema per tenant on one database (one
 * pool and one listening connection for all of them), or a database per
 * tenant on one server (a small pool and a listener per tenant).
 */
import type { Store, TenantStores } from "@act-root/act";
import { checkTenantId } from "@act-root/act/internal";
import { checkConfig, identifier, type PostgresStoreConfig } from "./config.js";
import { connection, createPool } from "./connection.js";
import { PostgresConnections, sharedParts } from "./connections.js";
import { PostgresStore } from "./postgres-store.js";

/**
 * How `postgresSchemaTenants` and `postgresDatabaseTenants` reach the server
 * and name each tenant's schema or database: the connection and store
 * settings of {@link PostgresStoreConfig} (the same for every tenant), and a
 * prefix.
 *
 * @experimental
 * @example
 * ```ts
 * const config: PostgresTenantsConfig = { connectionString: process.env.DATABASE_URL, prefix: "t_", max: 20 };
 * ```
 */
export type PostgresTenantsConfig = Omit<PostgresStoreConfig, "schema" | "connections"> & {
  /**
   * Starts each tenant's schema (or database) name, followed by the tenant id
   * with `-` as `_` (default `"tenant_"`: tenant `acme-eu` lives in
   * `tenant_acme_eu`). A plain SQL identifier of at most 20 characters.
   */
  readonly prefix?: string;
};

/** The SQL name of a tenant's schema or database: the prefix and the id, `-` as `_` (ids hold no `_`, so names never collide). */
function sqlName(prefix: string, tenant: string): string {
  return `${prefix}${checkTenantId(tenant).replace(/-/g, "_")}`;
}

/** The prefix, checked. */
function prefixOf(config: PostgresTenantsConfig): string {
  const prefix = config.prefix ?? "tenant_";
  identifier("prefix", prefix, 20);
  return prefix;
}

/**
 * A schema per tenant in one database: each tenant's tables live in schema
 * `<prefix><tenant>` (`seed` creates it), and every tenant's store shares
 * one pool (`max` connections, default 10) and one listening connection
 * ({@link PostgresConnections}). Removing a tenant drops its schema with
 * everything in it — read-model tables a projection wrote there too.
 *
 * Cheap per tenant (a schema, no connection) and one database to back up;
 * tenants share the server's resources and one migration runs per schema.
 *
 * @experimental
 * @param config - the database, the pool's size and the schema prefix (see {@link PostgresTenantsConfig})
 * @returns the strategy for `buildTenants({ store })`
 * @throws Error naming `prefix` or `table` when it is not a plain SQL identifier
 * @see [Multi-tenancy](/docs/guides/multi-tenancy) — the strategies side by side.
 * @example
 * ```ts
 * import { postgresSchemaTenants } from "@act-root/act-pg";
 *
 * const tenants = act().with(Counter).buildTenants({
 *   store: postgresSchemaTenants({ connectionString: process.env.DATABASE_URL, max: 20 }),
 * });
 * await tenants.add("acme"); // schema tenant_acme
 * ```
 */
export function postgresSchemaTenants(config: PostgresTenantsConfig = {}): TenantStores & {
  /** The pool and listener every tenant's store shares (for figures: `connections.opened()`). */
  readonly connections: PostgresConnections;
} {
  const prefix = prefixOf(config);
  const { prefix: _, ...store } = config;
  // Fails now, not at the first tenant, on a bad table name or number.
  checkConfig(store);
  const connections = new PostgresConnections(config);
  return {
    connections,
    store: (tenant: string): Store => new PostgresStore({ ...store, connections, schema: sqlName(prefix, tenant) }),
    erase: async (tenant: string) => {
      const schema = sqlName(prefix, tenant);
      // The store's drop took its tables; anything else in the schema is the tenant's too.
      await sharedParts(connections).pool.query(`DROP SCHEMA IF EXISTS ${identifier("schema", schema)} CASCADE`);
      return [`schema ${schema}`];
    },
    dispose: () => connections.dispose(),
  };
}

/**
 * A database per tenant on one server: each tenant's store is a
 * {@link PostgresStore} on database `<prefix><tenant>`, created by
 * `tenants.add` (as the configured user, who needs `CREATEDB`) and dropped
 * by `tenants.remove`. Each tenant has a pool of its own (`max` connections,
 * default 2 here) and, while the tenants' consumer runs, a listening
 * connection: PostgreSQL's connections and `NOTIFY` channels belong to one
 * database, so nothing can be shared between tenants.
 *
 * The strongest separation on one server — its own catalog, backups and
 * `DROP DATABASE` — at a connection or more per active tenant: beyond a few
 * hundred tenants per server, prefer a schema per tenant or a pooler.
 *
 * @experimental
 * @param config - the server, the maintenance database to create and drop from (`database`, default `postgres`),
 *   each tenant's pool size and the database prefix (see {@link PostgresTenantsConfig})
 * @returns the strategy for `buildTenants({ store })`
 * @throws Error naming `prefix` or `table` when it is not a plain SQL identifier
 * @see [Multi-tenancy](/docs/guides/multi-tenancy) — the strategies side by side.
 * @example
 * ```ts
 * import { postgresDatabaseTenants } from "@act-root/act-pg";
 *
 * const tenants = act().with(Counter).buildTenants({ store: postgresDatabaseTenants({ host: "db.internal", user: "saas" }) });
 * await tenants.add("acme"); // database tenant_acme
 * ```
 */
export function postgresDatabaseTenants(config: PostgresTenantsConfig = {}): TenantStores {
  const prefix = prefixOf(config);
  const { prefix: _, ...store } = config;
  checkConfig(store);
  // The maintenance database, where CREATE and DROP DATABASE run: one connection, closed when idle.
  const admin = createPool({ ...connection(config), max: 1, idleTimeoutMillis: 1_000 });
  admin.on("error", () => {}); // an idle connection lost: the next call opens another
  let closed: Promise<void> | undefined;
  // A connection string's database wins over the `database` field: the tenant's goes into the URL.
  const on = (database: string) => {
    if (!config.connectionString) return { database };
    const url = new URL(config.connectionString);
    url.pathname = `/${database}`;
    return { connectionString: url.toString(), database };
  };
  return {
    store: (tenant: string): Store =>
      new PostgresStore({ ...store, max: config.max ?? 2, ...on(sqlName(prefix, tenant)) }),
    create: async (tenant: string) => {
      const database = sqlName(prefix, tenant);
      const { rowCount } = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
      if (rowCount) return;
      await admin.query(`CREATE DATABASE ${identifier("database", database)}`).catch((error: { code?: string }) => {
        if (error.code !== "42P04") throw error; // created meanwhile by another process
      });
    },
    erase: async (tenant: string) => {
      const database = sqlName(prefix, tenant);
      // The store's pool is closed, but its server processes may outlive it by a moment: FORCE ends them.
      await admin.query(`DROP DATABASE IF EXISTS ${identifier("database", database)} WITH (FORCE)`);
      return [`database ${database}`];
    },
    dispose: () => (closed ??= admin.end()),
  };
}
