/**
 * A read model: the tasks not done yet, in a table of the store's own SQLite
 * file. The store runs each batch of the projection in the write transaction
 * that also moves the projection's position, and hands the handlers that
 * transaction's connection: a row and the position commit together, so each
 * event is applied exactly once, even across crashes. SQLite's driver is
 * synchronous, and so are the handlers.
 */
import { projection } from "@act-root/act";
import type { Connection } from "@act-root/act-sqlite";
import Database from "libsql";
import { databaseFile } from "./store.js";
import { TodoList } from "./todo.js";

/** A row of the read model. */
export type OpenTask = { list: string; id: string; title: string };

// Created by the handlers themselves (a no-op once it exists), so the read
// model also comes back after the store's tables were dropped.
const CREATE =
  "CREATE TABLE IF NOT EXISTS open_tasks (list TEXT NOT NULL, id TEXT NOT NULL, title TEXT NOT NULL, PRIMARY KEY (list, id))";

export const OpenTasks = projection<Connection>("OpenTasks")
  .with(TodoList) // brings the list's events into the handlers' types
  .on("TaskAdded", (event, db) => {
    db.exec(CREATE);
    db.prepare("INSERT INTO open_tasks (list, id, title) VALUES (?, ?, ?)").run(
      event.stream,
      event.data.id,
      event.data.title
    );
  })
  .on("TaskCompleted", (event, db) => {
    db.exec(CREATE);
    db.prepare("DELETE FROM open_tasks WHERE list = ? AND id = ?").run(event.stream, event.data.id);
  })
  .on("ListClosed", (event, db) => {
    db.exec(CREATE);
    db.prepare("DELETE FROM open_tasks WHERE list = ?").run(event.stream);
  })
  .build();

/**
 * The open tasks of a list, as projected so far, through a connection of
 * its own (an empty list before the projection first ran).
 */
export async function readOpenTasks(list: string, filename = databaseFile()): Promise<OpenTask[]> {
  const db = new Database(filename);
  try {
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'open_tasks'").get()) return [];
    const rows = db
      .prepare("SELECT list, id, title FROM open_tasks WHERE list = ? ORDER BY id")
      .all(list) as OpenTask[];
    // Only the columns: libsql adds a `_metadata` field to each row object.
    return rows.map(({ list, id, title }) => ({ list, id, title }));
  } finally {
    db.close();
  }
}
