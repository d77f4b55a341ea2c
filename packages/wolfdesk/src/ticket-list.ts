/**
 * The desk's ticket list: one row per ticket — title, status, priority,
 * agent, customer — kept by a projection in the store's own database, so a
 * row and the projection's position commit together (each event applied
 * exactly once). The same projection writes a Postgres table, a table of
 * the SQLite file, or — on the in-memory store the tests use — a map,
 * depending on the handle the store passes its handlers.
 */
import { projection } from "@act-root/act";
import type { Connection } from "@act-root/act-sqlite";
import type pg from "pg";
import { postgresSchema } from "./store.js";
import { Ticket } from "./ticket.js";

/** A row of the list. */
export type TicketRow = {
  id: string;
  title: string;
  status: string;
  priority: string;
  agent: string | null;
  customer: string;
};

/** The list when the store is in memory (tests): the process holds both. */
export const memoryList = new Map<string, TicketRow>();

/** The table's name; on Postgres it lives in the store's schema (see `listTickets`). */
export const TICKET_LIST = "ticket_list";

const CREATE = `CREATE TABLE IF NOT EXISTS ${TICKET_LIST} (
  id TEXT PRIMARY KEY, title TEXT NOT NULL, status TEXT NOT NULL, priority TEXT NOT NULL,
  agent TEXT, customer TEXT NOT NULL)`;

/** What a handler writes: a new row, or new values for some columns of one. */
type Change = { id: string; row?: TicketRow; set?: Partial<TicketRow> };

/** The statements that apply `changes`, with `?` placeholders. */
function statements(changes: Change[]) {
  return changes.map(({ id, row, set }) =>
    row
      ? { sql: `INSERT INTO ${TICKET_LIST} VALUES (?, ?, ?, ?, ?, ?)`, values: Object.values(row) }
      : {
          sql: `UPDATE ${TICKET_LIST} SET ${Object.keys(set!)
            .map((column) => `${column} = ?`)
            .join(", ")} WHERE id = ?`,
          values: [...Object.values(set!), id],
        }
  );
}

/** On Postgres, in the store's schema, with numbered placeholders. */
async function writePostgres(client: pg.PoolClient, changes: Change[]): Promise<void> {
  await client.query(`SET LOCAL search_path TO "${postgresSchema()}"`);
  await client.query(CREATE);
  for (const { sql, values } of statements(changes)) {
    let n = 0;
    await client.query(
      sql.replace(/\?/g, () => `$${++n}`),
      values
    );
  }
}

/** On SQLite, synchronously: the store runs the handler inside its write transaction. */
function writeSqlite(db: Connection, changes: Change[]): void {
  db.exec(CREATE);
  for (const { sql, values } of statements(changes)) db.prepare(sql).run(...values);
}

/** In memory: the map. */
function writeMemory(changes: Change[]): void {
  for (const { id, row, set } of changes) {
    const current = row ?? memoryList.get(id);
    if (current) memoryList.set(id, { ...current, ...set });
  }
}

/** Applies changes through the handle the store passed: a Postgres client, a SQLite connection, or none (memory). */
function write(handle: unknown, changes: Change[]): void | Promise<void> {
  if (!handle) return writeMemory(changes);
  if ("query" in (handle as object)) return writePostgres(handle as pg.PoolClient, changes);
  return writeSqlite(handle as Connection, changes);
}

/**
 * The ticket list projection: each drain's ticket events in one batch, in log
 * order — synchronously on SQLite, as its store requires.
 */
export const TicketList = projection<unknown>("TicketList")
  .with(Ticket)
  .batch(["TicketOpened", "TicketAssigned", "TicketEscalated", "TicketResolved", "TicketClosed"], (events, handle) =>
    write(
      handle,
      events.map((event): Change => {
        const id = event.stream;
        switch (event.name) {
          case "TicketOpened": {
            const { title, priority, customer } = event.data;
            return { id, row: { id, title, status: "open", priority, agent: null, customer } };
          }
          case "TicketAssigned":
            return { id, set: { agent: event.data.agent } };
          case "TicketEscalated":
            return { id, set: { priority: "high" } };
          case "TicketResolved":
            return { id, set: { status: "resolved" } };
          default:
            return { id, set: { status: "closed" } }; // TicketClosed
        }
      })
    )
  )
  .build();
