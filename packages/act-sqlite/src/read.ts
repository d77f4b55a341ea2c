/**
 * Reading events: `query`, a page of rows at a time (the statement is built
 * per query by `query` in `schema.ts`; each page comes back as one JSON
 * array). Loads are queries too: one stream from its latest snapshot
 * (`from_snapshot`).
 */
import {
  type Committed,
  type EventMeta,
  type Query,
  QuerySchema,
  type Schemas,
  StreamSchema,
  validate,
} from "@act-root/act";
import type { Database } from "./database.js";
import { query as buildQuery } from "./schema.js";

/** Rows per page when `query` walks a large result. */
const PAGE = 1_000;

/** An event of a `query` page: its data and metadata parsed. */
type EventRow = [number, string, number, number, string, Record<string, unknown>, EventMeta];

/**
 * A page in the order it was read (by `column`: version in a stream, id in
 * the log), whatever order the aggregate put it in. Pages come back sorted,
 * and sorting a sorted array costs one pass.
 */
const inOrder = (rows: EventRow[], column: 0 | 2, backward?: boolean) =>
  rows.sort(backward ? (a, b) => b[column] - a[column] : (a, b) => a[column] - b[column]);

/** Calls `callback` with each event of `table` matching `query`, a page of `PAGE` rows at a time; returns how many. */
export function query<E extends Schemas>(
  db: Database,
  callback: (event: Committed<E, keyof E>) => void,
  query: Query,
  table: "act_events" | "act_archive" = "act_events"
): number {
  const q = validate("query", query, QuerySchema);
  if (q.stream !== undefined) validate("stream", q.stream, StreamSchema);
  const operation = q.stream !== undefined ? `query of stream "${q.stream}"` : "query";
  let count = 0;
  let cursor: number | undefined;
  for (;;) {
    // Pages keep memory flat on a long read, and every statement runs to its end.
    const size = q.limit === undefined ? PAGE : Math.min(PAGE, q.limit - count);
    if (size <= 0) return count;
    const built = buildQuery(q, size, cursor);
    // The archive has the log's columns and index names under its own prefix.
    const text = table === "act_events" ? built.text : built.text.replaceAll("act_events", table);
    const { values } = built;
    const [[page]] = db.read(operation, text, ...values) as [[string]];
    const rows = inOrder(JSON.parse(page) as EventRow[], q.stream !== undefined ? 2 : 0, q.backward);
    // Fields picked by position: never spread a stored array into an event.
    for (const [id, stream, version, created, name, data, meta] of rows)
      callback({ id, stream, version, created: new Date(created), name, data, meta } as Committed<E, keyof E>);
    count += rows.length;
    if (rows.length < size) return count;
    const last = rows[rows.length - 1];
    cursor = q.stream !== undefined ? last[2] : last[0];
  }
}
