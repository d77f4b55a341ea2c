/**
 * Reads the ticket list (see ticket-list.ts) where the projection keeps it:
 * the map on the in-memory store, otherwise the table, through a connection
 * of its own — with the driver the store package uses, imported only on its
 * own path.
 */
import { InMemoryStore, store } from "@act-root/act";
import { postgresOptions, sqliteFile, wantsPostgres } from "./store.js";
import { memoryList, TICKET_LIST, type TicketRow } from "./ticket-list.js";

/** Kept in variables so bundlers and test runners don't resolve them up front. */
const PG = "pg";
const LIBSQL = "libsql";

const select = (table: string) => `SELECT id, title, status, priority, agent, customer FROM ${table} ORDER BY id`;

/**
 * The ticket list, by ticket id, as projected so far (an empty list before
 * the projection first ran). Wait for an action's events with
 * `app.projected(TicketList, snapshots)` first to read your own writes.
 */
export async function listTickets(env: Record<string, string | undefined> = process.env): Promise<TicketRow[]> {
  if (store() instanceof InMemoryStore) return [...memoryList.values()].sort((a, b) => a.id.localeCompare(b.id));
  if (wantsPostgres(env)) {
    const { default: pg } = (await import(/* @vite-ignore */ PG)) as typeof import("pg");
    const { schema, ...connection } = postgresOptions(env);
    const table = `"${schema}".${TICKET_LIST}`;
    const client = new pg.Client(connection);
    await client.connect();
    try {
      const [{ ready }] = (
        await client.query<{ ready: boolean }>("SELECT to_regclass($1) IS NOT NULL AS ready", [table])
      ).rows;
      return ready ? (await client.query<TicketRow>(select(table))).rows : [];
    } finally {
      await client.end();
    }
  }
  const { default: Database } = (await import(/* @vite-ignore */ LIBSQL)) as { default: typeof import("libsql") };
  const db = new Database(sqliteFile(env));
  try {
    const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(TICKET_LIST);
    // Only the columns: libsql adds a `_metadata` field to row objects.
    const rows = exists ? (db.prepare(select(TICKET_LIST)).all() as TicketRow[]) : [];
    return rows.map(({ id, title, status, priority, agent, customer }) => ({
      id,
      title,
      status,
      priority,
      agent,
      customer,
    }));
  } finally {
    db.close();
  }
}
