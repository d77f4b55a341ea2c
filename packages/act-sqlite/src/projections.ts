/**
 * Projections exactly once: `project` runs a projection's writes and the
 * acknowledgement of its lease (`SQL.ack` in `schema.ts`) in one write
 * transaction, synchronously, on the store's connection.
 */
import type { Lease, StoreError } from "@act-root/act";
import { type Database, synchronously } from "./database.js";
import type { Connection } from "./driver.js";
import { ackParams } from "./leases.js";
import { SQL } from "./schema.js";

/** Runs `work` and acknowledges `lease` in one transaction; rolls back when the acknowledgement is refused. */
export function project(db: Database, lease: Lease, work: (db: Connection) => unknown): boolean {
  const ack = db.statement("project", SQL.ack);
  let thrown: { error: unknown } | undefined;
  const refused = new Error("refused");
  try {
    return db.write("project", () => {
      try {
        synchronously(db.handle("project", work), "projection handlers");
      } catch (error) {
        thrown = { error };
        throw error;
      }
      if (ack.run(...ackParams(lease, Date.now())) > 0) return true;
      throw refused;
    });
  } catch (error) {
    if (thrown) throw thrown.error;
    if ((error as StoreError).cause === refused || error === refused) return false;
    throw error;
  }
}
