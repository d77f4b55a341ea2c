/**
 * The SQL of the archive (`act_archive`, see `archive.ts`): its table, and
 * the statements that move the events of closed streams into it, purge it,
 * and find how far every reaction has got. The archive is a table of the
 * same file, not an attached one: SQLite commits a transaction over several
 * files in WAL mode atomically only per file, so a crash could leave an
 * event deleted from the log and not yet in the archive (or in both).
 */
import { CLOSE_EVENT, SNAP_EVENT } from "@act-root/act";

const literal = (name: string) => `'${name.replace(/'/g, "''")}'`;
const SNAP = literal(SNAP_EVENT);
const CLOSED = literal(CLOSE_EVENT);

/**
 * The archive table (the log's columns and the archiving time, epoch ms)
 * with the log's index names under its own prefix, so a query built for the
 * log reads it once `act_events` is replaced by `act_archive`; and the
 * partial index that finds close events in the log.
 */
export const ARCHIVE = `CREATE TABLE IF NOT EXISTS act_archive (
  id INTEGER PRIMARY KEY,
  stream TEXT NOT NULL,
  version INTEGER NOT NULL,
  name TEXT NOT NULL,
  data TEXT NOT NULL,
  meta TEXT NOT NULL,
  created INTEGER NOT NULL,
  archived INTEGER NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS act_archive_stream_version ON act_archive (stream, version);
CREATE INDEX IF NOT EXISTS act_archive_snapshots ON act_archive (stream, version) WHERE name = ${SNAP};
CREATE INDEX IF NOT EXISTS act_archive_archived ON act_archive (archived);
CREATE INDEX IF NOT EXISTS act_events_closed ON act_events (stream) WHERE name = ${CLOSED};`;

/**
 * The events a move takes up, selected once per move into a table of the
 * connection's own (`temp`, so no other connection and no file sees it):
 * id, stream, and whether the reactions' bound lets it go.
 */
const MOVING = "temp.act_archive_moving";

/** The statements of the archive. */
export const ARCHIVE_SQL = {
  /** Creates the selection's table when the connection has none. */
  moving: `CREATE TEMP TABLE IF NOT EXISTS act_archive_moving (
  id INTEGER PRIMARY KEY,
  stream TEXT NOT NULL,
  free INTEGER NOT NULL
)`,
  /**
   * The last id no reaction still needs: the lowest watermark of a reaction
   * stream with work left, of every discovery position, and of the
   * positions of the reactions named in `?1` (a JSON array; -1 for one never
   * discovered). Null when nothing holds anything back.
   */
  bound: `SELECT min(b) FROM (
  SELECT min(at) AS b FROM act_watermarks WHERE head > at
  UNION ALL SELECT min(at) FROM act_discovery
  UNION ALL SELECT coalesce((SELECT d.at FROM act_discovery d WHERE d.name = r.value), -1) FROM json_each(?1) r
)`,
  /**
   * Selects the events of streams closed before `?1` (epoch ms) that
   * precede the stream's summary (the snapshot right before the close);
   * free when their id is at most `?2` (the reactions' bound).
   */
  select: `INSERT INTO ${MOVING} (id, stream, free)
SELECT e.id, e.stream, e.id <= ?2 FROM act_events c INDEXED BY act_events_closed
JOIN act_events s ON s.stream = c.stream AND s.version = c.version - 1 AND s.name = ${SNAP}
JOIN act_events e ON e.stream = c.stream AND e.version < c.version - 1
WHERE c.name = ${CLOSED} AND c.created < ?1`,
  /** The events to move, per stream: `[stream, count]`. */
  streams: `SELECT stream, count(*) FROM ${MOVING} WHERE free GROUP BY stream ORDER BY stream`,
  /** Copies them into the archive with the archiving time `?1`. */
  copy: `INSERT INTO act_archive (id, stream, version, name, data, meta, created, archived)
SELECT e.id, e.stream, e.version, e.name, e.data, e.meta, e.created, ?1 FROM ${MOVING} m
JOIN act_events e ON e.id = m.id WHERE m.free ORDER BY m.id`,
  /** Deletes them from the log. */
  remove: `DELETE FROM act_events WHERE id IN (SELECT id FROM ${MOVING} WHERE free)`,
  /** The events the bound held back. */
  held: `SELECT count(*) FROM ${MOVING} WHERE NOT free`,
  /** Empties the selection. */
  clear: `DELETE FROM ${MOVING}`,
  /** The archived events to purge (archived before `?`), per stream. */
  expired: "SELECT stream, count(*) FROM act_archive WHERE archived < ? GROUP BY stream ORDER BY stream",
  /** Purges them. */
  purge: "DELETE FROM act_archive WHERE archived < ?",
} as const;
