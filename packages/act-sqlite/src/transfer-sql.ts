/**
 * The SQL of copying into and out of the SQLite store (see `StoreTransfer`):
 * one plain statement per operation, `?` parameters only. Rows are written
 * with every column given, so they land exactly as another store kept them.
 */
export const TRANSFER_SQL = {
  /** The id of the last event, snapshots included (-1: none). */
  lastId: "SELECT coalesce(max(id), -1) FROM act_events",
  /**
   * An event with its own id. An id above the `AUTOINCREMENT` sequence moves
   * the sequence up to it, so new commits continue after the copied events.
   */
  insertEvent: "INSERT INTO act_events (id, stream, version, name, data, meta, created) VALUES (?, ?, ?, ?, ?, ?, ?)",
  /** How many records the store holds beside its events. */
  countRecords: `SELECT (SELECT count(*) FROM act_watermarks) + (SELECT count(*) FROM act_keys)
  + (SELECT count(*) FROM act_discovery) + (SELECT count(*) FROM act_timers) + (SELECT count(*) FROM act_subject_keys)`,
  watermarks: `SELECT stream, source, at, head, retry, blocked, error, leased_by, leased_until, done, token, reactions, ahead
FROM act_watermarks ORDER BY stream`,
  keys: "SELECT stream, key, from_version, to_version, expires, request FROM act_keys ORDER BY stream, key",
  discovery: "SELECT name, at FROM act_discovery ORDER BY name",
  timers: `SELECT id, action, stream, actor, payload, due, status, token, attempts, claimed_by, claimed_until, fired, error, correlation
FROM act_timers ORDER BY id`,
  /** Every subject's key versions, by subject and version. */
  subjectKeys: "SELECT subject, version, key FROM act_subject_keys ORDER BY subject, version",
  /** Every subject's streams, by subject and stream. */
  subjectStreams: "SELECT subject, stream FROM act_subject_streams ORDER BY subject, stream",
  insertSubjectKey: "INSERT INTO act_subject_keys (subject, version, key) VALUES (?, ?, ?)",
  insertSubjectStream: "INSERT INTO act_subject_streams (subject, stream) VALUES (?, ?)",
  /** The id of the archive's last event (-1: none). */
  lastArchived: "SELECT coalesce(max(id), -1) FROM act_archive",
  /** A page of the archive after `?`, at most `?` events. */
  archived: `SELECT id, stream, version, name, data, meta, created, archived FROM act_archive
WHERE id > ? ORDER BY id LIMIT ?`,
  insertArchived: `INSERT INTO act_archive (id, stream, version, name, data, meta, created, archived)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  insertWatermark: `INSERT INTO act_watermarks (stream, source, at, head, retry, blocked, error, leased_by, leased_until, done, token, reactions, ahead)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  insertKey: "INSERT INTO act_keys (stream, key, from_version, to_version, expires, request) VALUES (?, ?, ?, ?, ?, ?)",
  insertDiscovery: "INSERT INTO act_discovery (name, at) VALUES (?, ?)",
  insertTimer: `INSERT INTO act_timers (id, action, stream, actor, payload, due, status, token, attempts, claimed_by, claimed_until, fired, error, correlation)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
} as const;
