/**
 * Tenants by store on SQLite: a file per tenant in one folder.
 */
import type { Store, TenantStores } from "@act-root/act";
import { checkOptions, checkTenantId, OptionSchemas } from "@act-root/act/internal";
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
  /**
   * How long a tenant goes unused before its file is closed, in ms (default
   * 300,000; 0 keeps every file open). The tenants' consumer closes it, and
   * the tenant's next call opens it again.
   */
  readonly idleMillis?: number;
};

/** Five minutes: a tenant in use is seldom idle that long, and one that is gives back its file descriptors. */
const IDLE_MILLIS = 300_000;
const IDLE_OPTION = OptionSchemas.store
  .omit({ idempotencyMillis: true })
  .extend({ idleMillis: OptionSchemas.whole(0).optional() });

/**
 * A SQLite file per tenant: tenant `acme`'s store is `<folder>/acme.db`,
 * created by `tenants.add`; removing the tenant deletes the file (and its
 * `-wal` and `-shm` companions). Each tenant's store opens its file at its
 * first call and keeps it open (three file descriptors while in WAL mode)
 * until the tenant is idle for `idleMillis` (five minutes by default): then
 * the tenants' consumer closes it ({@link SqliteStore.rest}), and the next
 * call opens it again. A tenant with a timer pending or a drain running is
 * not idle.
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
  const { folder, idleMillis = IDLE_MILLIS, ...settings } = options ?? ({} as SqliteTenantsOptions);
  if (typeof folder !== "string" || !folder)
    throw new TypeError("sqliteTenants({ folder }) needs the folder of the tenants' files");
  checkOptions("sqliteTenants", { idleMillis }, IDLE_OPTION);
  const filename = (tenant: string) => join(folder, `${checkTenantId(tenant)}.db`);
  checkConfig({ ...settings, filename: filename("check") });
  /** Each tenant's store, to rest it when idle. */
  const stores = new Map<string, SqliteStore>();
  return {
    store: (tenant: string): Store => {
      const store = new SqliteStore({
        ...settings,
        changeCheckMillis: settings.changeCheckMillis ?? 1_000,
        filename: filename(tenant),
      });
      stores.set(tenant, store);
      return store;
    },
    ...(idleMillis > 0 && { idleMillis, rest: (tenant: string) => stores.get(tenant)?.rest() }),
    erase: async (tenant: string) => {
      stores.delete(tenant);
      const file = filename(tenant);
      for (const suffix of ["", "-wal", "-shm", "-journal"]) await rm(`${file}${suffix}`, { force: true });
      return [`file ${file}`];
    },
  };
}
