/**
 * Projections exactly once: `project` runs a projection's writes and the
 * acknowledgement of its lease (the `ack` statement of `watermark-sql.ts`)
 * in one transaction on one pooled client.
 */
import type { Lease } from "@act-root/act";
import type pg from "pg";
import type { Database } from "./database.js";
import type { DriverError } from "./errors.js";
import { ackInput } from "./leases.js";

/** Runs `work` and acknowledges `lease` in one transaction; rolls back when the acknowledgement is refused. */
export async function project(db: Database, lease: Lease, work: (client: pg.PoolClient) => unknown): Promise<boolean> {
  db.checkOpen("project");
  const client = await db.connect("project");
  // A connection that failed mid-transaction is closed rather than reused.
  let broken: Error | undefined;
  let handler = false;
  try {
    await client.query(db.begin());
    handler = true;
    await work(client);
    handler = false;
    const text = db.statements.ack;
    const { rows } = await client.query<{ owns: boolean }>({
      name: db.name(text),
      text,
      values: [ackInput([lease])],
    });
    // Committed also when the holder lacks a reaction the stream gained:
    // the writes and its reactions' progress (`ahead`) go together.
    await client.query(rows.length ? "COMMIT" : "ROLLBACK");
    return rows.some((r) => r.owns);
  } catch (error) {
    await client.query("ROLLBACK").catch((lost: Error) => {
      broken = lost;
    });
    throw handler ? error : db.failure("project", error as DriverError);
  } finally {
    client.release(broken);
  }
}
