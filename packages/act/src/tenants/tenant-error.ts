/**
 * Why a tenant was refused: it was never added in this process, or it is
 * being removed (or was removed).
 *
 * @experimental
 * @example
 * ```ts
 * const reason: TenantRefusal = "unknown";
 * ```
 */
export type TenantRefusal = "unknown" | "removed";

/**
 * Thrown by `tenants.app(tenant)` (and the calls that take a tenant) for a
 * tenant this process does not serve: one never added (`reason: "unknown"`:
 * add it first, `await tenants.add(tenant)`), or one being removed or
 * removed (`"removed"`: its data is erased).
 *
 * @experimental
 * @example
 * ```ts
 * try { tenants.app("acme"); }
 * catch (error) {
 *   if (error instanceof TenantError && error.reason === "unknown") await tenants.add("acme");
 * }
 * ```
 */
export class TenantError extends Error {
  /**
   * @param tenant - the tenant id
   * @param reason - `"unknown"` or `"removed"`
   */
  constructor(
    public readonly tenant: string,
    public readonly reason: TenantRefusal
  ) {
    super(
      reason === "unknown"
        ? `Tenant "${tenant}" was not added in this process: call await tenants.add("${tenant}") first (it creates the tenant's store if missing)`
        : `Tenant "${tenant}" was removed: its work stopped and its data was erased`
    );
    this.name = "TenantError";
  }
}
