/**
 * `seed` and `drop` of a tenant's store in tables shared by every tenant
 * (`postgresSharedTenants`): the tables belong to all tenants, so a tenant's
 * `seed` creates nothing — the migration did, as the tables' owner — and
 * checks that row-level security guards them; its `drop` deletes the
 * tenant's rows, never a table.
 */
import { StoreError } from "@act-root/act";
import type { Database } from "./database.js";
import * as shared from "./shared-sql.js";

/** One table as the guard finds it. */
type Guarded = { name: string; found: boolean; enabled: boolean; forced: boolean; policy: boolean; bypasses: boolean };

/**
 * Refuses to serve the tenant unless every table exists, has row-level
 * security enabled and forced with the policy, and the connected role does
 * not bypass it; then checks the ids as `seed` does.
 */
export async function seedTenant(
  db: Database,
  ids: { forget(): void; check(operation: string): Promise<void> } // the store's IdCheck (its type would import lifecycle.ts back)
): Promise<void> {
  const tables = shared.sharedTables(db.names);
  const { rows } = await db.run<Guarded>("seed", db.statements.guard, [tables]);
  const refuse = (why: string): never => {
    throw new StoreError("seed", "rejected", `PostgresStore seed of tenant "${db.names.tenant}" refused: ${why}`);
  };
  const missing = rows.filter((t) => !t.found).map((t) => t.name);
  if (missing.length)
    refuse(
      `${missing.join(", ")} not found. The shared tables are created by their migration (the strategy's migrate(), run as the tables' owner), not by a tenant.`
    );
  const lacks = (t: Guarded) =>
    [
      !t.enabled && "ROW LEVEL SECURITY",
      !t.forced && "FORCE ROW LEVEL SECURITY",
      !t.policy && `policy ${shared.POLICY} as the migration makes it (the table's only policy)`,
    ].filter(Boolean);
  const unguarded = rows.filter((t) => lacks(t).length).map((t) => `${t.name} lacks ${lacks(t).join(" and ")}`);
  if (unguarded.length)
    refuse(
      `${unguarded.join("; ")}: tenants' rows would not be kept apart. Run the migration again (migrate(), as the tables' owner).`
    );
  if (rows[0]?.bypasses)
    refuse(
      "the connected role is a superuser or has BYPASSRLS, so row-level security does not apply to it and each tenant would see every tenant's rows. Connect as an app role without them (see the multi-tenancy guide's role set-up)."
    );
  ids.forget();
  await ids.check("seed");
}

/** Deletes the tenant's rows from every table in one transaction; returns how many. */
export async function dropTenant(db: Database): Promise<number> {
  const { rows } = await db.run<{ rows: number }>("drop", db.statements.eraseTenant);
  return rows[0].rows;
}
