/**
 * Tenants in shared tables on PostgreSQL: every tenant's rows in the same
 * tables, a `tenant` column leading every key, kept apart by row-level
 * security (`shared-sql.ts`) rather than by the store's queries.
 */
import type { Store, TenantStores } from "@act-root/act";
import { checkTenantId } from "@act-root/act/internal";
import * as archive from "./archive-sql.js";
import { checkConfig, type PostgresStoreConfig } from "./config.js";
import { connection, createPool, type PostgresConnectionsConfig } from "./connection.js";
import { PostgresConnections, sharedParts } from "./connections.js";
import { migrate as migrateSchema } from "./migration.js";
import { PostgresStore } from "./postgres-store.js";
import * as shared from "./shared-sql.js";
import * as sql from "./sql.js";
import * as keys from "./subject-key-sql.js";
import { scoped } from "./tenant-scope.js";

/**
 * How `postgresSharedTenants` reaches the database: the app role's
 * connection, pool and store settings of {@link PostgresStoreConfig} (the
 * same for every tenant; `schema` and `table` name the shared tables), and
 * the tables' owner for the migration.
 *
 * @experimental
 * @example
 * ```ts
 * const config: PostgresSharedTenantsConfig = {
 *   connectionString: process.env.APP_DATABASE_URL, // role act_app: no BYPASSRLS, owns nothing
 *   owner: { connectionString: process.env.OWNER_DATABASE_URL }, // role act_owner: creates the tables
 *   max: 20,
 * };
 * ```
 */
export type PostgresSharedTenantsConfig = Omit<PostgresStoreConfig, "connections"> & {
  /**
   * Where the tables' owner connects, for `migrate` (which creates the
   * tables, turns row-level security on and grants the app role its rows):
   * a role that owns the tables and is never the app's. Left out, the app
   * role runs the migration and owns the tables — `FORCE ROW LEVEL
   * SECURITY` still holds it to the policy, but an owner may switch the
   * policy off, so production keeps two roles.
   */
  readonly owner?: PostgresConnectionsConfig;
};

/**
 * Every tenant in the same tables of one database: each table has a
 * `tenant` column leading its keys, and row-level security — enabled and
 * forced, with a policy comparing each row's tenant with the transaction's
 * `act.tenant` setting — lets a tenant's statements see and write its own
 * rows only. Each tenant's store sets the setting in every transaction it
 * runs (`set_config('act.tenant', tenant, true)`, which ends with the
 * transaction, so a pooled connection never carries one tenant's setting to
 * the next). A statement that filters by nothing still sees one tenant; one
 * without a tenant sees nothing and writes nothing.
 *
 * All tenants share one pool (`max` connections, default 10) and one
 * listening connection, with a channel per tenant: a tenant's commits wake
 * its own consumers only. Adding a tenant creates nothing (the first add in
 * a process runs `migrate` once); removing one deletes its rows from every
 * table in one transaction.
 *
 * The cheapest per tenant — no schema, no connection, one migration for all
 * — and what fits thousands of small tenants; the separation is the
 * policy's, so the app must connect as a role without `BYPASSRLS` that does
 * not own the tables (a tenant's store refuses to start otherwise), and
 * tenants share indexes, vacuum and backups.
 *
 * @experimental
 * @param config - the app role's connection, the pool's size, the tables' names and the owner's connection
 *   (see {@link PostgresSharedTenantsConfig})
 * @returns the strategy for `buildTenants({ store })`, with `migrate` and the shared `connections`
 * @throws Error naming `schema` or `table` when it is not a plain SQL identifier
 * @see [Multi-tenancy](/docs/guides/multi-tenancy) — the strategies side by side, and the roles to set up.
 * @example
 * ```ts
 * import { postgresSharedTenants } from "@act-root/act-pg";
 *
 * const tenants = act().with(Counter).buildTenants({
 *   store: postgresSharedTenants({
 *     connectionString: process.env.APP_DATABASE_URL,
 *     owner: { connectionString: process.env.OWNER_DATABASE_URL },
 *   }),
 * });
 * await tenants.add("acme"); // rows of tenant acme in public.events and the tables beside it
 * ```
 */
export function postgresSharedTenants(config: PostgresSharedTenantsConfig = {}): TenantStores & {
  /** The pool and listener every tenant's store shares (for figures: `connections.opened()`). */
  readonly connections: PostgresConnections;
  /**
   * Creates or upgrades the shared tables as the owner, turns row-level
   * security on and forces it, creates the policy and grants the app role
   * its rows. Idempotent, and on current tables a read of the catalog that
   * locks nothing (see `PostgresStore.seed`); the first `tenants.add` of a
   * process runs it, and a deploy may run it before.
   */
  migrate(): Promise<void>;
  /** Closes the shared pool and listener and the owner's connection, after every tenant's store was disposed. */
  dispose(): Promise<void>;
} {
  const { owner, ...store } = config;
  // Fails now, not at the first tenant, on a bad table name or number.
  const { schema, table } = checkConfig(store);
  const connections = new PostgresConnections(config);
  // The DDL names no tenant: the tenant column and keys are what it needs.
  const n = sql.names(schema, table, "");
  const ownerPool = owner && createPool({ ...connection(owner), max: 1, idleTimeoutMillis: 1_000 });
  ownerPool?.on("error", () => {}); // an idle connection lost: the next call opens another
  let migrated: Promise<void> | undefined;
  let closed: Promise<void> | undefined;

  const migrate = async () => {
    const app = sharedParts(connections).pool;
    const [{ rows: appRole }, { rows: ownerRole }] = await Promise.all([
      app.query<{ role: string }>("SELECT current_user AS role"),
      (ownerPool ?? app).query<{ role: string }>("SELECT current_user AS role"),
    ]);
    const role = appRole[0].role;
    const grants = role === ownerRole[0].role ? "" : shared.grants(n, `"${role.replace(/"/g, '""')}"`);
    const ddl = sql.seed(n) + keys.seedSubjectKeys(n) + archive.seedArchive(n) + shared.rowSecurity(n) + grants;
    await migrateSchema(ownerPool ?? app, n, ddl);
  };
  /** The migration, its failure said as such: which role ran it, on which tables. */
  const migrateOrSay = () =>
    migrate().catch((error: Error) => {
      throw new Error(
        `postgresSharedTenants migrate of ${n.events} and the tables beside it failed (${owner ? "as the owner role" : "as the app role, no owner given"}): ${error.message}`,
        { cause: error }
      );
    });

  return {
    connections,
    migrate: migrateOrSay,
    store: (tenant: string): Store => new PostgresStore(scoped({ ...store, connections }, checkTenantId(tenant))),
    create: async () => {
      migrated ??= migrateOrSay().catch((error) => {
        migrated = undefined; // tried again by the next add
        throw error;
      });
      await migrated;
    },
    erase: async (tenant: string) => [`rows of tenant ${tenant} in ${n.events} and every table beside it`],
    dispose: () => (closed ??= Promise.all([connections.dispose(), ownerPool?.end()]).then(() => {})),
  };
}
