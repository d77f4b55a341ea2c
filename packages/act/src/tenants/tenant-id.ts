import { ValidationError } from "../core/errors.js";

/**
 * What a tenant id may look like: 1 to 40 lower-case letters, digits and
 * `-`, starting and ending with a letter or digit — `"acme"`, `"shop-42"`, a
 * lower-case UUID. Strategies turn it into a file name, a schema or a
 * database name as it is (a `-` becomes `_` in SQL names, which no id may
 * contain, so two ids never share a name): nothing in an id can reach a
 * path, an SQL statement or another tenant's name, and ids differing only in
 * case cannot collide on a file system that ignores case.
 */
const TENANT_ID = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;

/** The rule, as the error says it. */
const RULE =
  '1 to 40 lower-case letters, digits or "-", starting and ending with a letter or digit (e.g. "acme" or a UUID)';

/**
 * Checks a tenant id and returns it.
 *
 * @param tenant - the id as given
 * @throws ValidationError naming the id and the rule it breaks
 */
export function checkTenantId(tenant: unknown): string {
  if (typeof tenant === "string" && TENANT_ID.test(tenant)) return tenant;
  const shown = typeof tenant === "string" ? JSON.stringify(tenant.slice(0, 60)) : `a ${typeof tenant}`;
  throw new ValidationError("tenant id", tenant, [
    { path: "", message: `${shown} is not a tenant id: expected ${RULE}` },
  ]);
}
