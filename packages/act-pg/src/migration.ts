/**
 * Running the store's migration (its idempotent DDL) only when the schema is
 * not current: what `seed` and `postgresSharedTenants`' `migrate` call.
 */
import type pg from "pg";
import * as migration from "./migration-sql.js";
import type { Names } from "./sql.js";

/** Serialises concurrent migrations (several processes starting): they would race on the catalog. */
const LOCK = `SELECT pg_advisory_xact_lock(hashtext(${"$$act-pg seed$$"}))`;

/**
 * Runs `ddl` on the tables `n` names unless the stamp on the events table
 * says the last migration ran this very `ddl` and the catalog still looks as
 * it left it; returns whether it ran.
 *
 * The check reads the catalog only, so on a current schema — every start of
 * a process after the first, every `tenants.add` of a known tenant — it
 * takes no lock on the store's tables and never waits for, or holds up, the
 * drains of other processes. When something is missing, the DDL runs in one
 * transaction under an advisory lock, after checking again (another process
 * may have migrated while this one waited), and stamps the result.
 */
export async function migrate(pool: pg.Pool, n: Names, ddl: string): Promise<boolean> {
  const version = migration.version(ddl);
  const check = migration.check(n);
  const stampOf = async (on: pg.Pool | pg.PoolClient) => {
    const { rows } = await on.query<{ stamp: string | null; catalog: string }>(check);
    return { current: rows[0].stamp === `${version} catalog ${rows[0].catalog}`, catalog: rows[0].catalog };
  };
  if ((await stampOf(pool)).current) return false;
  const client = await pool.connect();
  const ignore = () => {}; // a lost connection is reported by the query it fails
  client.on("error", ignore);
  try {
    await client.query(`BEGIN; ${LOCK}`);
    const ran = !(await stampOf(client)).current;
    if (ran) {
      await client.query(ddl);
      const { catalog } = await stampOf(client);
      await client.query(migration.stamp(n, `${version} catalog ${catalog}`));
    }
    await client.query("COMMIT");
    return ran;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.off("error", ignore);
    client.release();
  }
}
