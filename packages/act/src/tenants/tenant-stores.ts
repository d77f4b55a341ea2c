import { BuilderError } from "../core/errors.js";
import type { Store } from "../types/ports.js";

/**
 * A strategy of tenants by store: where each tenant's data lives and how it
 * is created and erased. The store packages ship one per way of separating
 * tenants — `sqliteTenants` (a file per tenant) in `@act-root/act-sqlite`,
 * `postgresSchemaTenants` (a schema per tenant, one pool and one listening
 * connection for all), `postgresDatabaseTenants` (a database per tenant) and
 * `postgresSharedTenants` (shared tables under row-level security) in
 * `@act-root/act-pg`; `buildTenants` also takes a plain function from a
 * tenant id to its store.
 *
 * Each tenant's store is a store of its own: an app bound to it reads and
 * writes nothing else, so no call of one tenant's app can reach another
 * tenant's events, streams or reactions.
 *
 * @experimental
 * @see [Multi-tenancy](/docs/guides/multi-tenancy) — the strategies side by side.
 * @example
 * ```ts
 * const inMemory: TenantStores = { store: () => new InMemoryStore() };
 * const tenants = act().with(Counter).buildTenants({ store: inMemory });
 * ```
 */
export type TenantStores = {
  /**
   * Creates the store of a tenant (not seeded: `tenants.add` seeds it).
   * Called once per tenant per process, with an id already checked.
   *
   * @param tenant - the tenant id
   */
  store(tenant: string): Store;
  /**
   * Creates what the tenant's store lives in when the store's `seed` cannot
   * (a database), before the first seed. Called by `tenants.add`; must do
   * nothing when it exists already.
   *
   * @param tenant - the tenant id
   */
  create?(tenant: string): Promise<void>;
  /**
   * Erases what is left of a removed tenant once its store was dropped and
   * disposed (its file, its database), and says what that was.
   *
   * @param tenant - the tenant id
   * @returns what was erased, in words (`file data/acme.db`), for the removal's report
   */
  erase?(tenant: string): Promise<readonly string[]>;
  /** Closes what the tenants' stores share (a pool, a listening connection), after every store was disposed. */
  dispose?(): Promise<void>;
  /**
   * How long a tenant goes unused before the tenants' consumer rests its
   * store (see `rest`), in ms. Without it, or without `rest`, stores stay open.
   */
  readonly idleMillis?: number;
  /**
   * Gives back what an idle tenant's store holds open (a file's descriptors)
   * until its next call, which opens it again; nothing is lost. Called by the
   * tenants' consumer for a tenant unused for `idleMillis`, with no drain
   * running, no work left and no timer pending.
   *
   * @param tenant - the tenant id
   */
  rest?(tenant: string): void;
};

/** A strategy, from what `buildTenants({ store })` accepts. */
export function strategyOf(given: unknown): TenantStores {
  if (typeof given === "function") return { store: given as (tenant: string) => Store };
  if (typeof given === "object" && given !== null && typeof (given as TenantStores).store === "function")
    return given as TenantStores;
  throw new BuilderError(
    "act",
    "buildTenants",
    "buildTenants({ store }) needs a function from a tenant id to its store, or a strategy with a store(tenant) method (sqliteTenants, postgresSchemaTenants, postgresDatabaseTenants)"
  );
}
