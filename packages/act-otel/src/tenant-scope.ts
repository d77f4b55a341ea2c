import type { Attributes } from "@opentelemetry/api";
import type { Act, Store, Tenants } from "@act-root/act";
import { A } from "./names.js";

/**
 * Which work the metrics measure, and the attributes that say whose it is:
 * `measure(store)` gives the attributes to add to a metric of work on that
 * store — `{ "act.tenant": id }` for a tenant's, `{}` without tenants — or
 * undefined when that work is not measured (another tenant's, when scoped
 * to one). `owner(store)` gives the same attribute for a span, whether or
 * not the work is measured: spans cover every app of the process, and a
 * trace of another tenant's work still says whose it is. `apps()` lists the
 * apps whose stores the gauges read, each with its attributes.
 */
export type Scope = {
  measure(store: Store | undefined): Attributes | undefined;
  owner(store: Store | undefined): Attributes;
  apps(): Array<{ app: Act<any, any, any>; attributes: Attributes }>;
};

/** Whether `target` is a `Tenants` (told apart from an app by what only it has). */
export const isTenants = (target: unknown): target is Tenants<any, any, any> =>
  typeof (target as Tenants<any, any, any> | undefined)?.tenantOf === "function";

/**
 * The scope of {@link instrument}'s metrics:
 *
 * - apps, no tenant: everything, no tenant attribute;
 * - apps and a tenant (a process serving one tenant): everything, as that tenant's;
 * - a `Tenants`: every tenant's work with its own `act.tenant` (work on stores of no
 *   tenant still counts, without one), and every served tenant gauged;
 * - a `Tenants` and a tenant: that tenant's work and gauges only.
 */
export function scopeOf(
  target: Act<any, any, any> | ReadonlyArray<Act<any, any, any>> | Tenants<any, any, any> | undefined,
  tenant: string | undefined
): Scope {
  const label = (id: string): Attributes => ({ [A.tenant]: id });
  if (isTenants(target)) {
    const tenants = target;
    const owner = (store: Store | undefined): Attributes => {
      const id = tenants.tenantOf(store);
      return id === undefined ? {} : label(id);
    };
    if (tenant === undefined)
      return {
        measure: owner,
        owner,
        apps: () => tenants.list().map((id) => ({ app: tenants.app(id), attributes: label(id) })),
      };
    const attributes = label(tenant);
    return {
      measure: (store) => (tenants.tenantOf(store) === tenant ? attributes : undefined),
      owner,
      apps: () => (tenants.has(tenant) ? [{ app: tenants.app(tenant), attributes }] : []),
    };
  }
  const list = target === undefined ? [] : Array.isArray(target) ? target : [target as Act<any, any, any>];
  const attributes = tenant === undefined ? {} : label(tenant);
  return { measure: () => attributes, owner: () => attributes, apps: () => list.map((app) => ({ app, attributes })) };
}
