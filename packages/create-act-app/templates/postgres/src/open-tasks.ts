/**
 * A read model: the tasks not done yet, in a table of the store's own
 * PostgreSQL database. The store runs each batch of the projection in one
 * transaction that also moves the projection's position, and hands the
 * handlers that transaction's client: the rows and the position commit
 * together, so each event is applied exactly once, even across crashes.
 * Write through that client only — a query on another connection is outside
 * the transaction.
 */
import { projection } from "@act-root/act";
import pg from "pg";
import { databaseUrl } from "./store.js";
import { TodoList } from "./todo.js";

/** A row of the read model. */
export type OpenTask = { list: string; id: string; title: string };

// Created by the handlers themselves (a no-op once it exists), so the read
// model also comes back after the store's tables were dropped.
const CREATE =
  "CREATE TABLE IF NOT EXISTS open_tasks (list text NOT NULL, id text NOT NULL, title text NOT NULL, PRIMARY KEY (list, id))";

export const OpenTasks = projection<pg.PoolClient>("OpenTasks")
  .with(TodoList) // brings the list's events into the handlers' types
  .on("TaskAdded", async (event, client) => {
    await client.query(CREATE);
    await client.query("INSERT INTO open_tasks (list, id, title) VALUES ($1, $2, $3)", [
      event.stream,
      event.data.id,
      event.data.title,
    ]);
  })
  .on("TaskCompleted", async (event, client) => {
    await client.query(CREATE);
    await client.query("DELETE FROM open_tasks WHERE list = $1 AND id = $2", [event.stream, event.data.id]);
  })
  .on("ListClosed", async (event, client) => {
    await client.query(CREATE);
    await client.query("DELETE FROM open_tasks WHERE list = $1", [event.stream]);
  })
  .build();

/**
 * The open tasks of a list, as projected so far, through a connection of
 * its own (an empty list before the projection first ran).
 */
export async function readOpenTasks(list: string, connectionString = databaseUrl()): Promise<OpenTask[]> {
  const client = new pg.Client({ connectionString });
  // A connection the server ends (a restart) must not crash the process.
  client.on("error", () => {});
  await client.connect();
  try {
    const { rows } = await client.query<{ ready: boolean }>("SELECT to_regclass('open_tasks') IS NOT NULL AS ready");
    if (!rows[0]?.ready) return [];
    return (await client.query<OpenTask>("SELECT list, id, title FROM open_tasks WHERE list = $1 ORDER BY id", [list]))
      .rows;
  } finally {
    await client.end();
  }
}

/** Drops the read model's table (tests start from an empty one). */
export async function dropOpenTasks(connectionString = databaseUrl()): Promise<void> {
  const client = new pg.Client({ connectionString });
  client.on("error", () => {});
  await client.connect();
  try {
    await client.query("DROP TABLE IF EXISTS open_tasks");
  } finally {
    await client.end();
  }
}
