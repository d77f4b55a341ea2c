/**
 * Reading events: `query` over one stream's ids or a range of the log (an
 * event's index is its id less the first id), filtered event by event.
 * Loads are queries too: one stream from its latest snapshot (`from_snapshot`).
 */
import { type Query, QuerySchema, SNAP_EVENT, StreamSchema } from "../../core/schemas.js";
import type { Committed, Schemas } from "../../types/action.js";
import { upper, validate } from "../../core/utils.js";
import type { Database, Event } from "./database.js";

/** Calls `callback` with each event matching `query`, in order; returns how many. */
export function query<E extends Schemas>(
  db: Database,
  callback: (event: Committed<E, keyof E>) => void,
  query: Query
): number {
  const {
    stream,
    names,
    ids: wanted,
    before,
    after,
    limit,
    created_before,
    created_after,
    backward,
    correlation,
    with_snaps,
    from_snapshot,
  } = validate("query", query, QuerySchema);
  if (stream !== undefined) validate("stream", stream, StreamSchema);
  // Candidates: one stream's ids, or the whole log (where index = id - first).
  let ids: number[] | undefined;
  let start = 0;
  let end = db.events.length;
  if (stream !== undefined) {
    const log = db.streams.get(stream);
    if (!log) return 0;
    ids = log.ids;
    end = ids.length;
    if (from_snapshot !== undefined) start = log.snaps.get(from_snapshot) ?? 0;
    if (after !== undefined) start = Math.max(start, upper(ids, after));
    if (before !== undefined) end = Math.min(end, upper(ids, before - 1));
  } else {
    if (after !== undefined) start = Math.max(0, after + 1 - db.first);
    if (before !== undefined) end = Math.min(end, Math.max(0, before - db.first));
  }
  if (wanted) {
    // Named ids: only those within the range found above, in id order.
    const low = ids ? ids[start] : start + db.first;
    const high = ids ? ids[end - 1] : end - 1 + db.first;
    const picked = [...new Set(wanted)].filter((id) => id >= low && id <= high).sort((a, b) => a - b);
    ids = ids ? picked.filter((id) => db.events[id - db.first]?.stream === stream) : picked;
    start = 0;
    end = ids.length;
  }
  const include = (e: Event) =>
    (with_snaps || from_snapshot !== undefined || e.name !== SNAP_EVENT) &&
    (!names || names.includes(e.name)) &&
    (!created_before || e.created < created_before) &&
    (!created_after || e.created > created_after) &&
    (!correlation || e.meta.correlation === correlation);
  // A load (one stream, snapshots included, nothing else asked) takes every
  // event in the range: it skips the filter, which it would pass anyway.
  const every =
    (with_snaps || from_snapshot !== undefined) && !names && !created_before && !created_after && !correlation;
  let count = 0;
  const max = limit ?? Number.POSITIVE_INFINITY;
  for (let i = 0; i < end - start && count < max; i++) {
    const index = backward ? end - 1 - i : start + i;
    const event = db.events[ids ? ids[index] - db.first : index];
    // An empty slot is an event moved to the archive (see `archive.ts`).
    if (event && (every || include(event))) {
      callback(event as Committed<E, keyof E>);
      count++;
    }
  }
  return count;
}
