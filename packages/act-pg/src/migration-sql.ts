/**
 * The SQL that tells whether the store's schema is current, so a migration
 * that would change nothing takes no lock at all.
 *
 * `CREATE … IF NOT EXISTS` and `ALTER TABLE … ADD COLUMN IF NOT EXISTS` take
 * their table's `AccessExclusiveLock` even when the object exists; queued
 * behind a long reader, that lock stops every later read and write of the
 * table — the drains of every other process — until it is granted. So the
 * migration stamps the events table (its comment) with what it ran and what
 * the catalog looked like after, and the next one compares first: the
 * catalog is read from PostgreSQL's own tables, which takes no lock on the
 * store's tables.
 */
import { createHash } from "node:crypto";
import { sharedTables } from "./shared-sql.js";
import type { Names } from "./sql.js";

/** A string as a SQL literal. */
const literal = (value: string) => `'${value.replace(/'/g, "''")}'`;

/**
 * What the stamp starts with for `ddl`: a digest of the migration's text, so
 * a library whose migration changed (a new column, index or policy) runs it
 * once more.
 */
export function version(ddl: string): string {
  return `act-pg schema ${createHash("sha1").update(ddl).digest("hex").slice(0, 16)}`;
}

/**
 * The stamp's comparison, one row: `stamp`, the comment of the events table
 * (null before the first stamped migration), and `catalog`, a digest of
 * every table of the store as the catalog describes it now — whether it
 * exists, its columns with their types, defaults and nullability, its
 * indexes, row-level security, policies and grants. A column, index, table
 * or policy dropped or changed by hand changes the digest, so the next
 * migration puts it back.
 */
export function check(n: Names): string {
  const tables = `unnest(ARRAY[${sharedTables(n).map(literal).join(", ")}]::text[]) WITH ORDINALITY AS t(name, o)`;
  return `
SELECT obj_description(to_regclass(${literal(n.events)}), 'pg_class') AS stamp,
  (SELECT md5(string_agg(part, E'\\n' ORDER BY o, part)) FROM (
    SELECT t.o, concat_ws('|', 'table', t.name, c.oid IS NOT NULL, c.relrowsecurity, c.relforcerowsecurity, c.relacl::text) AS part
    FROM ${tables} LEFT JOIN pg_class c ON c.oid = to_regclass(t.name)
    UNION ALL
    SELECT t.o, concat_ws('|', 'column', a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid))
    FROM ${tables} JOIN pg_attribute a ON a.attrelid = to_regclass(t.name) AND a.attnum > 0 AND NOT a.attisdropped
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    UNION ALL
    SELECT t.o, concat_ws('|', 'index', pg_get_indexdef(i.indexrelid))
    FROM ${tables} JOIN pg_index i ON i.indrelid = to_regclass(t.name)
    UNION ALL
    SELECT t.o, concat_ws('|', 'policy', p.polname, p.polcmd, p.polpermissive, p.polroles::text,
      pg_get_expr(p.polqual, p.polrelid), pg_get_expr(p.polwithcheck, p.polrelid))
    FROM ${tables} JOIN pg_policy p ON p.polrelid = to_regclass(t.name)
  ) AS parts) AS catalog`;
}

/** Writes `stamp` as the events table's comment (run last in the migration's transaction). */
export function stamp(n: Names, value: string): string {
  return `COMMENT ON TABLE ${n.events} IS ${literal(value)}`;
}
