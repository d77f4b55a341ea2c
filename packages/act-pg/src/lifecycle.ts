/**
 * Creating, upgrading and dropping the store's tables (their SQL is `seed`,
 * `drop` and `dropSchema` in `sql.ts`), closing the pool, and the check that this server's new
 * event ids will exceed the stored ones.
 */
import { StoreError } from "@act-root/act";
import type { Database } from "./database.js";
import type { DriverError } from "./errors.js";
import { migrate } from "./migration.js";
import type { Notifier } from "./notify.js";
import { dropTenant, seedTenant } from "./shared-tables.js";

/**
 * Refuses to write when this server's next ids would not exceed the
 * largest stored one. Event ids come from transaction ids; a dump restored
 * into a new server brings ids from the old server's higher transaction
 * counter, and new events would get lower ids — reads by position (every
 * drain) would skip them. Checked by `seed` and before the store's first
 * commit, once per store (one indexed read).
 */
export class IdCheck {
  /** The check in flight or passed; cleared when it failed, so the next call checks again. */
  #checked?: Promise<void>;

  constructor(private readonly db: Database) {}

  /** Passes once this server's ids are known to exceed the stored ones; checks at most once until `forget`. */
  check(operation: string): Promise<void> {
    this.#checked ??= (async () => {
      const { rows } = await this.db.run<{ max_id: number; next_id: number }>(operation, this.db.statements.idCheck);
      const { max_id, next_id } = rows[0];
      if (max_id < next_id) return;
      const epoch = Math.floor(max_id / 2 ** 48) + 1;
      throw new StoreError(
        operation,
        "rejected",
        `PostgresStore ${operation} refused: ${this.db.names.events} holds event ids up to ${max_id}, but this server's next transaction would give ids from ${next_id}. ` +
          "The table was probably restored from a dump into a new server, whose transaction ids start lower: new events would get ids below the restored ones and drains would skip them. " +
          `Before anything writes, stop the server, raise its transaction id epoch with \`pg_resetwal -e ${epoch} "$PGDATA"\` and start it again (see "Backups" in the PostgreSQL in production guide).`
      );
    })().catch((error) => {
      this.#checked = undefined; // checked again next time
      throw error;
    });
    return this.#checked;
  }

  /** Checks again at the next call (after `seed`, which may have found another table). */
  forget(): void {
    this.#checked = undefined;
  }
}

/**
 * Creates or upgrades the schema, tables and indexes — unless they are
 * current, which a read of the catalog tells without locking them — then
 * checks the ids (a tenant's store in shared tables checks their guard
 * instead of creating them).
 */
export async function seed(db: Database, ids: IdCheck): Promise<void> {
  db.checkOpen("seed");
  if (db.names.tenant !== undefined) return seedTenant(db, ids);
  try {
    await migrate(db.pool, db.names, db.statements.seed);
  } catch (error) {
    throw db.failure("seed", error as DriverError);
  }
  ids.forget();
  await ids.check("seed");
}

/**
 * Drops the tables, and the schema when it is not `public` and nothing else lives in it; a tenant's store in
 * shared tables deletes the tenant's rows instead.
 */
export async function drop(db: Database): Promise<void> {
  db.checkOpen("drop");
  if (db.names.tenant !== undefined) {
    await dropTenant(db);
    return;
  }
  try {
    await db.pool.query(db.statements.drop);
    if (db.names.raw.schema !== "public") {
      await db.pool.query(db.statements.dropSchema).catch((error: DriverError) => {
        if (error.code !== "2BP01") throw error; // other objects live in the schema: keep it
      });
    }
  } catch (error) {
    throw db.failure("drop", error as DriverError);
  }
}

/** Ends the pool once the last notification is sent and the key purge in flight is done; a second call waits for the first. */
export async function close(
  db: Database,
  notifier: Notifier,
  appender: { purged(): Promise<void> } // the appender (its type would import this module back)
): Promise<void> {
  db.disposed ??= (async () => {
    await notifier.quiet();
    await appender.purged();
    await notifier.unlisten();
    await db.close();
  })();
  await db.disposed;
}
