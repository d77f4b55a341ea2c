/**
 * The SQL of tables shared by every tenant (`postgresSharedTenants`): the
 * row-level security that keeps each tenant to its own rows, the grants of
 * the app role, the check a tenant's store runs before it serves, and the
 * erasure of one tenant.
 *
 * Every shared table has a `tenant` column leading its keys (see `names` in
 * `sql.ts`), filled by default from the transaction's `act.tenant` setting,
 * and one policy: a row is visible, and may be written, only when its
 * tenant is the transaction's. A statement that forgets to filter by
 * tenant still sees one tenant; a transaction that sets none sees nothing
 * and cannot write (the column's default fails).
 */
import { archiveTable } from "./archive-sql.js";
import type { Names } from "./sql.js";
import { subjectKeyTables as subjectTables } from "./subject-key-sql.js";

/** The policy's name on every shared table. */
export const POLICY = "act_tenant_rows";

/**
 * The transaction's tenant, or null — which matches no row and passes no
 * check — when none is set: never set on the connection (`true`: null, not
 * an error), or set by an earlier transaction, which leaves it empty.
 */
const CURRENT = "NULLIF(current_setting('act.tenant', true), '')";

/** The policy's expression as PostgreSQL prints it back (`pg_get_expr`), as a SQL literal. */
const PRINTED = `'(tenant = NULLIF(current_setting(''act.tenant''::text, true), ''''::text))'`;

/** A string as a SQL literal. */
const literal = (value: string) => `'${value.replace(/'/g, "''")}'`;

/** Every table of the store, quoted: each holds rows of every tenant. */
export function sharedTables(n: Names): string[] {
  const subjects = subjectTables(n);
  return [n.events, n.watermarks, n.keys, n.discovery, n.timers, subjects.keys, subjects.streams, archiveTable(n)];
}

/**
 * Turns row-level security on for every table — `FORCE` too, so the tables'
 * owner is held to it as well — and makes the policy the table's only one
 * (dropping any other: permissive policies add up, so another would let
 * more rows through), so a migration also restores one that was dropped or
 * changed (run after `seed`'s tables,
 * in the migration's transaction).
 */
export function rowSecurity(n: Names): string {
  return sharedTables(n)
    .map(
      (table) => `
ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY;
ALTER TABLE ${table} FORCE ROW LEVEL SECURITY;
DO $act$ DECLARE p record; BEGIN
  FOR p IN SELECT polname FROM pg_policy WHERE polrelid = ${literal(table)}::regclass LOOP
    EXECUTE format('DROP POLICY %I ON %s', p.polname, ${literal(table)});
  END LOOP;
END $act$;
CREATE POLICY ${POLICY} ON ${table} USING (tenant = ${CURRENT}) WITH CHECK (tenant = ${CURRENT});`
    )
    .join("");
}

/** Lets `role` (a quoted name) use the schema and read and write the tables' rows — never own or alter them. */
export function grants(n: Names, role: string): string {
  return `
GRANT USAGE ON SCHEMA ${n.schema} TO ${role};
GRANT SELECT, INSERT, UPDATE, DELETE ON ${sharedTables(n).join(", ")} TO ${role};`;
}

/**
 * What a tenant's store checks before it serves (`seed`), one row per
 * table: whether it exists, has row-level security on and forced, and has
 * the policy as the migration made it; and whether the connected role escapes every policy (a
 * superuser, or `BYPASSRLS`).
 */
export function guard(): string {
  return `
SELECT t.name, c.oid IS NOT NULL AS found, COALESCE(c.relrowsecurity, false) AS enabled,
  COALESCE(c.relforcerowsecurity, false) AS forced,
  -- The only policy (permissive ones add up: another one would let more rows through), on every command
  -- and role, with the expression as the migration writes it (as PostgreSQL prints it back).
  COALESCE((SELECT count(*) = 1 AND bool_and(p.polname = '${POLICY}' AND p.polcmd = '*' AND p.polpermissive
      AND p.polroles = '{0}' AND pg_get_expr(p.polqual, p.polrelid) = ${PRINTED}
      AND pg_get_expr(p.polwithcheck, p.polrelid) = ${PRINTED})
    FROM pg_policy p WHERE p.polrelid = c.oid), false) AS policy,
  (SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user) AS bypasses
FROM unnest($1::text[]) WITH ORDINALITY AS t(name, o) LEFT JOIN pg_class c ON c.oid = to_regclass(t.name)
ORDER BY t.o`;
}

/**
 * Deletes every row of the transaction's tenant from every table, in one
 * statement (so in one transaction), and counts them. The filter repeats
 * the policy: should the policy ever be missing, it still erases one
 * tenant, never all of them.
 */
export function eraseTenant(n: Names): string {
  const tables = sharedTables(n);
  const parts = tables.map((table, i) => `d${i} AS (DELETE FROM ${table} WHERE tenant = ${CURRENT} RETURNING 1)`);
  const count = tables.map((_, i) => `(SELECT count(*) FROM d${i})`).join(" + ");
  return `WITH ${parts.join(",\n")}\nSELECT (${count})::integer AS rows`;
}
