/**
 * Reading events: `query`, a page of rows at a time (the statement is built
 * per query shape by `sql.query`). Loads are queries too: one stream from its
 * latest snapshot (`from_snapshot`).
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
import * as sql from "./sql.js";

/** Rows per page when `query` walks a large result. */
const PAGE = 1_000;

/** A row of `query` (see `sql.query`): id, stream, version, created (epoch ms), name, data, meta. */
type EventRow = [number, string, number, number, string, unknown, EventMeta];

/**
 * Calls `callback` with each event matching `query`, a page of `PAGE` rows at
 * a time; returns how many. `names` with another `events` table reads that
 * one instead (the archive).
 */
export async function query<E extends Schemas>(
  db: Database,
  callback: (event: Committed<E, keyof E>) => void,
  query: Query,
  names: sql.Names = db.names
): Promise<number> {
  const q = validate("query", query, QuerySchema);
  if (q.stream !== undefined) validate("stream", q.stream, StreamSchema);
  const operation = q.stream !== undefined ? `query of stream "${q.stream}"` : "query";
  let count = 0;
  let page = { ...q };
  for (;;) {
    const size = Math.min(PAGE, q.limit === undefined ? PAGE : q.limit - count);
    if (size <= 0) return count;
    const { text, values } = sql.query(names, { ...page, limit: size });
    const { rows } = await db.run<EventRow>(operation, text, values, "array");
    const events = rows as unknown as EventRow[];
    // Indexed, not destructured with `for…of`: a load walks every row of its stream.
    for (let i = 0; i < events.length; i++) {
      const row = events[i];
      callback({
        id: row[0],
        stream: row[1],
        version: row[2],
        created: new Date(row[3]),
        name: row[4],
        data: row[5],
        meta: row[6],
      } as Committed<E, keyof E>);
    }
    count += rows.length;
    if (rows.length < size) return count;
    // The next page continues past the last row. Forward, `from_snapshot`
    // only bounds the first page (the rest come after it); backward, every
    // page walks towards the snapshot, so each one keeps that bound.
    const lastId = (rows[rows.length - 1] as unknown as EventRow)[0];
    if (q.backward) page = { ...page, before: lastId };
    else {
      const { from_snapshot, ...rest } = page;
      page = { ...rest, after: lastId };
      if (from_snapshot !== undefined) page.with_snaps = true;
    }
  }
}
