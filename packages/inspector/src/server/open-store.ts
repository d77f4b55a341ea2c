/**
 * What the `act-inspector` command opens from its arguments: the store, the
 * catalog that lists its streams and, for a tenant, which one. A tenant's
 * store is the one its strategy (`sqliteTenants`, `postgresSchemaTenants`,
 * `postgresSharedTenants`) builds for it, so the inspector reads exactly
 * what the tenant's app reads: in shared tables, every statement runs under
 * the tenant's `act.tenant` setting and row-level security keeps out every
 * other tenant's rows.
 */
import { join } from "node:path";
import type { Store } from "@act-root/act";
import type { parseArgs } from "./args.js";
import { type Catalog, StoreCatalog } from "./catalog.js";
import { PgCatalog } from "./pg-catalog.js";
import { SqliteCatalog } from "./sqlite-catalog.js";

/** A store opened for the inspector, with its catalog and the tenant it belongs to. */
export type Opened = {
  readonly store: Store;
  readonly catalog: Catalog;
  /** The tenant inspected, if the store is one tenant's. */
  readonly tenant?: string;
  /** Closes the catalog, the store and what the tenants' strategy shares. */
  close(): Promise<void>;
};

/** How the pools the inspector opens name themselves in `pg_stat_activity`. */
const APPLICATION = "act-inspector";

/** Opens the store the arguments name; each store package is loaded only when asked for. */
export async function openStore(args: ReturnType<typeof parseArgs>): Promise<Opened> {
  const opened = (store: Store, catalog: Catalog, tenant?: string, shared?: { dispose?(): Promise<void> }): Opened => ({
    store,
    catalog,
    ...(tenant !== undefined && { tenant }),
    close: async () => {
      await catalog.close();
      await store.dispose();
      await shared?.dispose?.();
    },
  });
  if (args.sqliteTenants !== undefined) {
    const tenant = args.tenant!;
    const { sqliteTenants } = await import("@act-root/act-sqlite");
    const strategy = sqliteTenants({ folder: args.sqliteTenants });
    // The file is never created here: the catalog refuses a tenant without one.
    const catalog = await SqliteCatalog.open(join(args.sqliteTenants, `${tenant}.db`));
    return opened(strategy.store(tenant), catalog, tenant, strategy);
  }
  if (args.sqlite) {
    const catalog = await SqliteCatalog.open(args.sqlite);
    const { SqliteStore } = await import("@act-root/act-sqlite");
    return opened(new SqliteStore({ filename: args.sqlite }), catalog);
  }
  const connection = { connectionString: args.pg, applicationName: APPLICATION };
  const { PostgresStore, postgresSchemaTenants, postgresSharedTenants } = await import("@act-root/act-pg");
  if (args.pgSchemaTenant !== undefined) {
    const tenant = args.pgSchemaTenant;
    const prefix = args.prefix ?? "tenant_";
    const strategy = postgresSchemaTenants({ ...connection, prefix, table: args.table, max: 4 });
    // The schema the strategy names for the tenant: the prefix, then the id with "-" as "_".
    const schema = `${prefix}${tenant.replace(/-/g, "_")}`;
    const store = strategy.store(tenant);
    return opened(store, new PgCatalog({ connectionString: args.pg, schema, table: args.table }), tenant, strategy);
  }
  if (args.pgSharedTenant !== undefined) {
    const tenant = args.pgSharedTenant;
    const strategy = postgresSharedTenants({ ...connection, schema: args.schema, table: args.table, max: 4 });
    const store = strategy.store(tenant);
    try {
      // A tenant's seed creates nothing: it refuses tables without row-level security, and a role
      // that bypasses it (a superuser), which would show every tenant's rows.
      await store.seed();
    } catch (error) {
      await store.dispose();
      await strategy.dispose();
      throw error;
    }
    // Listed through the tenant's store, so the listing is held to the tenant's rows too.
    const label = `postgres ${args.schema ?? "public"}.${args.table ?? "events"} (shared)`;
    return opened(store, new StoreCatalog(store, label), tenant, strategy);
  }
  const config = { connectionString: args.pg, schema: args.schema, table: args.table };
  return opened(new PostgresStore({ ...config, applicationName: APPLICATION }), new PgCatalog(config));
}
