/**
 * Tenants by store on SQLite: a file per tenant in one folder.
 */
import type { Store, TenantStores } from "@act-root/act";
import { checkTenantId } from "@act-root/act/internal";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { checkConfig, type SqliteStoreOptions } from "./config.js";
import { SqliteStore } from "./sqlite-store.js";

/**
 * Where `sqliteTenants` keeps each tenant's file, and the settings of every
 * tenant's {@link SqliteStore}.
 *
 * @experimental
 * @example
 * ```ts
 * const options: SqliteTenantsOptions = { folder: "./data/tenants", synchronous: "NORMAL" };
 * ```
 */
export type SqliteTenantsOptions = Omit<SqliteStoreOptions, "filename"> & {
  /** The folder of the tenants' files (it must exist): tenant `acme` lives in `<folder>/acme.db`. */
  readonly folder: string;
};

/**
 * A SQLite file per tenant: tenant `acme`'s store is `<folder>/acme.db`,
 * created by `tenants.add`; removing the tenant deletes the file (and its
 * `-wal` and `-shm` companions). Each tenant's store opens its file at its
 * first call and keeps it open (three file descriptors while in WAL mode).
 * `changeCheckMillis` defaults to 1,000 here: each tenant with a running
 * consumer checks its file for other processes' commits that often.
 *
 * The simplest separation — a tenant is a file to copy, move or delete — for
 * tenants served by one machine.
 *
 * @experimental
 * @param options - the folder and the stores' settings (see {@link SqliteTenantsOptions})
 * @returns the strategy for `buildTenants({ store })`
 * @throws ValidationError naming an option that is missing or out of range
 * @see [Multi-tenancy](/docs/guides/multi-tenancy) — the strategies side by side.
 * @example
 * ```ts
 * import { sqliteTenants } from "@act-root/act-sqlite";
 *
 * const tenants = act().with(Counter).buildTenants({ store: sqliteTenants({ folder: "./data" }) });
 * await tenants.add("acme"); // ./data/acme.db
 * ```
 */
export function sqliteTenants(options: SqliteTenantsOptions): TenantStores {
  const { folder, ...settings } = options ?? ({} as SqliteTenantsOptions);
  if (typeof folder !== "string" || !folder)
    throw new TypeError("sqliteTenants({ folder }) needs the folder of the tenants' files");
  const filename = (tenant: string) => join(folder, `${checkTenantId(tenant)}.db`);
  checkConfig({ ...settings, filename: filename("check") });
  return {
    store: (tenant: string): Store =>
      new SqliteStore({
        ...settings,
        changeCheckMillis: settings.changeCheckMillis ?? 1_000,
        filename: filename(tenant),
      }),
    erase: async (tenant: string) => {
      const file = filename(tenant);
      for (const suffix of ["", "-wal", "-shm", "-journal"]) await rm(`${file}${suffix}`, { force: true });
      return [`file ${file}`];
    },
  };
}
