/**
 * The tables of the SQLite store, how a file's schema version is read and
 * moved forward, and the fixed statements. Everything is plain SQL with `?`
 * parameters; the only literal is the snapshot event name, a constant of the
 * library, which must appear literally for the partial index to be used.
 *
 * Times are integers of epoch milliseconds; `data`, `meta`, `done`,
 * `reactions` and a timer's `actor` and `payload` are JSON text.
 *
 * ## One index for streams
 *
 * Besides the table (ordered by id), events have one index, the unique
 * `(stream, version)`: every commit writes to two B-trees, as a bare insert
 * into a table with that constraint would. Within a stream, ids grow with
 * versions, so a read of one stream is ordered by version, and its id bounds
 * become version bounds found from the end of the stream (SQLite keeps the
 * id in every index entry, so that search reads only the index). A partial
 * index of snapshot events finds a stream's latest snapshot at once.
 *
 * ## Why ids need no visibility rule here
 *
 * SQLite lets one writer in at a time (the store takes the write lock with
 * `BEGIN IMMEDIATE` before reading the stream's version), and
 * `AUTOINCREMENT` hands out ids inside that lock. So commits become visible
 * in id order: a reader that has seen id n will never later find a new event
 * below n. (PostgreSQL commits concurrently and needs more care; see act-pg.)
 */
import { type Query, SNAP_EVENT } from "@act-root/act";
import type { Connection } from "./driver.js";
import { ARCHIVE } from "./archive-sql.js";

/** The schema version this package writes (`PRAGMA user_version`). */
export const SCHEMA_VERSION = 9;

const SNAP = `'${SNAP_EVENT.replace(/'/g, "''")}'`;

/** How far correlation has gone, per reaction name (see `Store.discover`). */
const DISCOVERY =
  "CREATE TABLE IF NOT EXISTS act_discovery (name TEXT PRIMARY KEY, at INTEGER NOT NULL) WITHOUT ROWID;";

/**
 * Scheduled actions (see `TimerStore`). `claimed_until` is 0 when no claim
 * or wait holds the timer. The partial indexes serve the claims, which read
 * only pending timers in due order, and `next`: the earliest due timer no
 * claim holds past its due time (the first entry of the first index, as a
 * rule), and the earliest end among the few claimed ones — without them it
 * read every pending timer (226 ms with 100,000 pending).
 */
const TIMERS = `CREATE TABLE IF NOT EXISTS act_timers (
  id TEXT PRIMARY KEY,
  action TEXT NOT NULL,
  stream TEXT NOT NULL,
  actor TEXT NOT NULL,
  payload TEXT NOT NULL,
  due INTEGER NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending',
  token INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0,
  claimed_by TEXT,
  claimed_until INTEGER NOT NULL DEFAULT 0,
  fired INTEGER,
  error TEXT,
  correlation TEXT
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS act_timers_pending ON act_timers (due, id) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS act_timers_claimed ON act_timers (claimed_until) WHERE status = 'pending' AND claimed_until > 0;`;

/**
 * Keys of data subjects (see `SubjectKeyStore`): each version's raw key in
 * base64, `NULL` once destroyed; and the streams holding each subject's
 * data, whose snapshots a `forget` empties.
 */
export const SUBJECT_KEYS = `CREATE TABLE IF NOT EXISTS act_subject_keys (
  subject TEXT NOT NULL,
  version INTEGER NOT NULL,
  key TEXT,
  PRIMARY KEY (subject, version)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS act_subject_streams (
  subject TEXT NOT NULL,
  stream TEXT NOT NULL,
  PRIMARY KEY (subject, stream)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS act_subject_streams_stream ON act_subject_streams (stream);`;

/** Every table and index at the current version; idempotent. */
const CREATE = `
CREATE TABLE IF NOT EXISTS act_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  stream TEXT NOT NULL,
  version INTEGER NOT NULL,
  name TEXT NOT NULL,
  data TEXT NOT NULL,
  meta TEXT NOT NULL,
  created INTEGER NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS act_events_stream_version ON act_events (stream, version);
CREATE INDEX IF NOT EXISTS act_events_snapshots ON act_events (stream, version) WHERE name = ${SNAP};
CREATE TABLE IF NOT EXISTS act_watermarks (
  stream TEXT PRIMARY KEY,
  source TEXT,
  at INTEGER NOT NULL,
  retry INTEGER NOT NULL DEFAULT 0,
  blocked INTEGER NOT NULL DEFAULT 0,
  error TEXT,
  leased_by TEXT,
  leased_until INTEGER,
  done TEXT NOT NULL DEFAULT '[]',
  head INTEGER NOT NULL DEFAULT -1,
  token INTEGER NOT NULL DEFAULT 0,
  reactions TEXT,
  ahead TEXT NOT NULL DEFAULT '{}'
);
-- poll reads only the streams with work: thousands of caught-up ones cost it nothing.
CREATE INDEX IF NOT EXISTS act_watermarks_ready ON act_watermarks (at, stream) WHERE head > at AND blocked = 0;
CREATE TABLE IF NOT EXISTS act_keys (
  stream TEXT NOT NULL,
  key TEXT NOT NULL,
  from_version INTEGER NOT NULL,
  to_version INTEGER NOT NULL,
  expires INTEGER NOT NULL,
  request TEXT,
  PRIMARY KEY (stream, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS act_meta (key TEXT PRIMARY KEY, value INTEGER) WITHOUT ROWID;
${DISCOVERY}
${TIMERS}
${SUBJECT_KEYS}
${ARCHIVE}
-- Ids start at 0, as in the other stores, and go on after the last one used
-- before a drop (dropping a table forgets its sequence).
INSERT INTO sqlite_sequence (name, seq)
  SELECT 'act_events', coalesce((SELECT value FROM act_meta WHERE key = 'last_id'), -1)
  WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'act_events');
`;

/**
 * Steps from one version to the next, for files whose tables exist at an
 * older version: step `i` takes a file from version `i + 1` to `i + 2`.
 * (Version 0 is a file without this store's tables: `CREATE` makes them.)
 */
const UPGRADES: Array<(db: Connection) => void> = [
  // 1 → 2: lease generations (a stale drainer's ack is refused) and the
  // reactions that target each stream (drainers poll only what they run).
  (db) => {
    const columns = db.prepare("SELECT name FROM pragma_table_info('act_watermarks')").rows().flat();
    if (columns.length && !columns.includes("token"))
      db.exec(
        "ALTER TABLE act_watermarks ADD COLUMN token INTEGER NOT NULL DEFAULT 0; ALTER TABLE act_watermarks ADD COLUMN reactions TEXT;"
      );
  },
  // 2 → 3: how far correlation has gone per reaction, shared by every process
  // on the file. Empty on an upgraded file: the first process correlates the
  // log once from its start, as before, and records the positions.
  (db) => db.exec(DISCOVERY),
  // 3 → 4: what the request that used an idempotency key asked for (a
  // digest), so a key reused for another request is refused. Keys stored
  // before have none and match any request.
  (db) => {
    const columns = db.prepare("SELECT name FROM pragma_table_info('act_keys')").rows().flat();
    if (columns.length && !columns.includes("request")) db.exec("ALTER TABLE act_keys ADD COLUMN request TEXT");
  },
  // 4 → 5: reactions that handled a stream past its watermark, which moved
  // back for a reaction that joined the stream late (a rolling deploy, a
  // backfill): they skip those events, the joining one runs them.
  (db) => {
    const columns = db.prepare("SELECT name FROM pragma_table_info('act_watermarks')").rows().flat();
    if (columns.length && !columns.includes("ahead"))
      db.exec("ALTER TABLE act_watermarks ADD COLUMN ahead TEXT NOT NULL DEFAULT '{}'");
  },
  // 5 → 6: scheduled actions. Empty on an upgraded file.
  (db) => db.exec(TIMERS),
  // 6 → 7: keys of data subjects. Empty on an upgraded file: personal
  // fields written from then on are encrypted, older events stay as written.
  (db) => db.exec(SUBJECT_KEYS),
  // 7 → 8: the archive of closed streams, and the index that finds close
  // events (on a file that has a log to index; a new one gets it from CREATE).
  (db) => {
    if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'act_events'").row()) db.exec(ARCHIVE);
  },
  // 8 → 9: the correlation id a timer scheduled by an action carries to the
  // action it fires. Files at versions 6 to 8 written before it lack the
  // column; their timers have none, and their fired actions start a
  // correlation of their own, as before.
  (db) => {
    const columns = db.prepare("SELECT name FROM pragma_table_info('act_timers')").rows().flat();
    if (columns.length && !columns.includes("correlation"))
      db.exec("ALTER TABLE act_timers ADD COLUMN correlation TEXT");
  },
];

/** The file's schema version. */
export function version(db: Connection): number {
  return Number(db.prepare("PRAGMA user_version").row()?.[0] ?? 0);
}

/**
 * Creates the tables or moves an older file's schema to {@link SCHEMA_VERSION};
 * run inside the seed's write transaction. The caller refuses newer files.
 */
export function migrate(db: Connection): void {
  const from = version(db);
  for (let v = Math.max(from, 1); v < SCHEMA_VERSION; v++) UPGRADES[v - 1](db);
  db.exec(CREATE);
  if (from !== SCHEMA_VERSION) db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
}

/** `drop()`: remembers the last id, then drops the tables (`act_meta` stays, with that one row). */
export function drop(db: Connection): void {
  db.exec("CREATE TABLE IF NOT EXISTS act_meta (key TEXT PRIMARY KEY, value INTEGER) WITHOUT ROWID");
  // SQLite creates its sequence table with the first AUTOINCREMENT table.
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").row())
    db.exec(
      "INSERT OR REPLACE INTO act_meta (key, value) SELECT 'last_id', seq FROM sqlite_sequence WHERE name = 'act_events'"
    );
  db.exec(
    "DROP TABLE IF EXISTS act_archive; DROP TABLE IF EXISTS act_subject_streams; DROP TABLE IF EXISTS act_subject_keys; DROP TABLE IF EXISTS act_timers; DROP TABLE IF EXISTS act_discovery; DROP TABLE IF EXISTS act_keys; DROP TABLE IF EXISTS act_watermarks; DROP TABLE IF EXISTS act_events;"
  );
}

/** The watermark's reactions are all among `?8` (a JSON array), or `?8` is null. */
const OWNS = `
  AND (?8 IS NULL OR reactions IS NULL OR NOT EXISTS (
    SELECT 1 FROM json_each(reactions) r WHERE r.value NOT IN (SELECT value FROM json_each(?8))))`;

/** The entries of `ahead` the new watermark (`?1`) has not passed: reactions still ahead of it. */
const STILL_AHEAD = `CASE WHEN ahead = '{}' THEN ahead ELSE coalesce(
  (SELECT json_group_object(key, value) FROM json_each(ahead) WHERE value > max(at, ?1)), '{}') END`;

/** The fixed statements, prepared once per connection. */
export const SQL = {
  begin: "BEGIN IMMEDIATE",
  commit: "COMMIT",
  rollback: "ROLLBACK",
  dataVersion: "PRAGMA data_version",
  lastVersion: "SELECT version, id FROM act_events WHERE stream = ? ORDER BY version DESC LIMIT 1",
  /**
   * The id is the sequence's next value, given explicitly: SQLite's own
   * numbering starts at 1, the other stores' at 0. (`seed` puts the
   * sequence's row in place; the insert moves it on.)
   */
  insert: `INSERT INTO act_events (id, stream, version, name, data, meta, created)
VALUES ((SELECT seq + 1 FROM sqlite_sequence WHERE name = 'act_events'), ?, ?, ?, ?, ?, ?) RETURNING id`,
  recall: "SELECT from_version, to_version, request FROM act_keys WHERE stream = ? AND key = ? AND expires > ?",
  remember:
    "INSERT OR REPLACE INTO act_keys (stream, key, from_version, to_version, expires, request) VALUES (?, ?, ?, ?, ?, ?)",
  purgeKeys: "DELETE FROM act_keys WHERE expires <= ?",
  /**
   * Streams with work (`head` past the watermark), not blocked, not leased and
   * not waiting out a backoff; when `?2` (a JSON array of reaction names) is
   * given, only streams whose recorded reactions are all in it. The `?3`
   * lowest watermarks are lagging, then the `?4` highest of the others leading.
   */
  poll: `
WITH ready AS (
  SELECT stream, source, at FROM act_watermarks
  WHERE blocked = 0 AND head > at AND (leased_until IS NULL OR leased_until <= ?1)
    AND (?2 IS NULL OR reactions IS NULL OR NOT EXISTS (
      SELECT 1 FROM json_each(reactions) r WHERE r.value NOT IN (SELECT value FROM json_each(?2))))
), lag AS (
  SELECT stream, source, at FROM ready ORDER BY at, stream LIMIT ?3
), lead AS (
  SELECT stream, source, at FROM ready WHERE stream NOT IN (SELECT stream FROM lag) ORDER BY at DESC, stream LIMIT ?4
)
SELECT stream, source, at, lagging FROM (
  SELECT stream, source, at, 1 AS lagging FROM lag
  UNION ALL
  SELECT stream, source, at, 0 AS lagging FROM lead
) ORDER BY lagging DESC, CASE lagging WHEN 1 THEN at ELSE -at END, stream`,
  watermark:
    "SELECT source, at, retry, blocked, leased_by, leased_until, done, head, token, reactions, ahead FROM act_watermarks WHERE stream = ?",
  register: "INSERT INTO act_watermarks (stream, source, at, head, reactions) VALUES (?, ?, ?, ?, ?)",
  widen: "UPDATE act_watermarks SET source = ?, head = max(head, ?), reactions = ? WHERE stream = ?",
  insertLeased:
    "INSERT INTO act_watermarks (stream, source, at, head, leased_by, leased_until, token) VALUES (?, ?, ?, ?, ?, ?, 1)",
  grant: "UPDATE act_watermarks SET leased_by = ?, leased_until = ?, token = ? WHERE stream = ?",
  /** A holder lacking a reaction the stream gained: its reactions' progress (`?1` ahead, `?2` done) recorded, the lease released. */
  keepProgress:
    "UPDATE act_watermarks SET ahead = ?1, done = ?2, leased_by = NULL, leased_until = NULL WHERE stream = ?3",
  /** A reaction joined the stream before its watermark: back to `?1`, a new generation, retries over, `?2` the reactions ahead. */
  join: "UPDATE act_watermarks SET at = ?1, retry = 0, token = token + 1, ahead = ?2 WHERE stream = ?3",
  /**
   * Only the holder, with the current generation, not blocked, and — when it
   * says which reactions it has (`?8`, JSON) — only if it has every reaction
   * the stream carries now: a newer release may have added one since the lease.
   */
  ack: `UPDATE act_watermarks SET at = max(at, ?1), retry = ?2, done = ?3, ahead = ${STILL_AHEAD}, leased_by = NULL, leased_until = ?4
WHERE stream = ?5 AND leased_by = ?6 AND blocked = 0 AND token = ?7${OWNS}`,
  block: `UPDATE act_watermarks SET at = max(at, ?1), retry = ?2, done = ?3, ahead = ${STILL_AHEAD}, blocked = 1, error = ?4, leased_by = NULL, leased_until = NULL
WHERE stream = ?5 AND leased_by = ?6 AND blocked = 0 AND token = ?7${OWNS}`,
  /**
   * Run when an ack or a block is refused: a holder whose lease an operator
   * reset or unblock overtook (same holder, older generation) has finished
   * its handlers, so it gives the stream back instead of leaving other
   * drainers to wait for the old lease to run out.
   */
  releaseOvertaken:
    "UPDATE act_watermarks SET leased_by = NULL, leased_until = NULL WHERE stream = ? AND leased_by = ? AND token > ?",
  reactions: `SELECT stream, source, at, retry, blocked, error, leased_by, leased_until, head, reactions, token FROM act_watermarks
WHERE ?1 IS NULL OR blocked = ?1 ORDER BY stream LIMIT ?2`,
  /**
   * The same columns for the streams named in `?3` (a JSON array): looked up
   * by primary key, so a waiter asking for a few streams reads those rows only.
   */
  reactionsIn: `SELECT stream, source, at, retry, blocked, error, leased_by, leased_until, head, reactions, token FROM act_watermarks
WHERE stream IN (SELECT value FROM json_each(?3)) AND (?1 IS NULL OR blocked = ?1) ORDER BY stream LIMIT ?2`,
  /** A new generation: acks and renewals begun before it are refused. */
  unblock: `UPDATE act_watermarks SET blocked = 0, error = NULL, retry = 0, leased_by = NULL, leased_until = NULL, token = token + 1
WHERE stream = ? AND blocked = 1`,
  /** Streams carrying one of the reactions in `?` (a JSON array), with their reactions. */
  carrying: `SELECT stream, reactions FROM act_watermarks WHERE reactions IS NOT NULL AND EXISTS (
  SELECT 1 FROM json_each(reactions) r WHERE r.value IN (SELECT value FROM json_each(?))) ORDER BY stream`,
  setReactions: "UPDATE act_watermarks SET reactions = ? WHERE stream = ?",
  /**
   * Leaves `head` alone: a stream reset to the end of the log has no work. The
   * lease stays until it runs out: its holder may still be running a handler,
   * and no other drainer may start one beside it.
   */
  reset: `UPDATE act_watermarks SET at = ?, done = '[]', ahead = '{}', blocked = 0, error = NULL, retry = 0, token = token + 1 WHERE stream = ?`,
  /** The positions of the reactions in `?` (a JSON array) that have one. */
  discovered: "SELECT name, at FROM act_discovery WHERE name IN (SELECT value FROM json_each(?))",
  /** Moves the reactions in `?1` (a JSON array) forward to `?2`; a position already past it stays. */
  discover: `INSERT INTO act_discovery (name, at) SELECT value, ?2 FROM json_each(?1) WHERE true
ON CONFLICT (name) DO UPDATE SET at = excluded.at WHERE excluded.at > at`,
  /** A new pending timer; an id the table has is left as it is (no row returned). */
  scheduleTimer: `INSERT INTO act_timers (id, action, stream, actor, payload, due, correlation) VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (id) DO NOTHING RETURNING id`,
  /** Cancels a pending timer unless a claim on it lasts past `?2`; a new generation. */
  cancelTimer: `UPDATE act_timers SET status = 'cancelled', claimed_by = NULL, claimed_until = 0, token = token + 1
WHERE id = ?1 AND status = 'pending' AND claimed_until <= ?2 RETURNING id`,
  /**
   * Claims for `?1` until `?2 + ?3` the `?5` earliest due pending timers, due
   * by `?2`, whose action is in `?4` (a JSON array) and whose claim or wait
   * ended by `?2`: a new generation and one more attempt each.
   */
  claimTimers: `UPDATE act_timers SET claimed_by = ?1, claimed_until = ?2 + ?3, token = token + 1, attempts = attempts + 1
WHERE id IN (SELECT id FROM act_timers INDEXED BY act_timers_pending
  WHERE status = 'pending' AND due <= ?2 AND claimed_until <= ?2 AND action IN (SELECT value FROM json_each(?4))
  ORDER BY due, id LIMIT ?5)
RETURNING id, action, stream, actor, payload, due, correlation, token, attempts`,
  /**
   * The outcome of a claim, only from its holder `?2` with its token `?3`:
   * with a retry time `?6`, pending again until then; else fired (no error
   * `?5`) or failed, at `?4`.
   */
  settleTimer: `UPDATE act_timers SET claimed_by = NULL, error = ?5, claimed_until = coalesce(?6, 0),
  status = CASE WHEN ?6 IS NOT NULL THEN 'pending' WHEN ?5 IS NULL THEN 'fired' ELSE 'failed' END,
  fired = CASE WHEN ?6 IS NULL THEN ?4 ELSE fired END
WHERE id = ?1 AND status = 'pending' AND claimed_by = ?2 AND token = ?3 RETURNING id`,
  /**
   * When the next pending timer of the actions in `?1` (a JSON array) is due
   * or its claim ends: the earliest due timer no claim holds past its due
   * time, read in the order of its index (without `INDEXED BY` SQLite sorts
   * every pending timer), or the earliest end of the claims that do.
   */
  nextTimer: `SELECT min(next) FROM (
  SELECT * FROM (SELECT due AS next FROM act_timers INDEXED BY act_timers_pending
    WHERE status = 'pending' AND claimed_until <= due AND action IN (SELECT value FROM json_each(?1))
    ORDER BY due LIMIT 1)
  UNION ALL
  SELECT min(claimed_until) FROM act_timers INDEXED BY act_timers_claimed
    WHERE status = 'pending' AND claimed_until > 0 AND claimed_until > due AND action IN (SELECT value FROM json_each(?1)))`,
  /** Timers in status `?1` (null: any), with ids in `?2` (a JSON array; null: any), the earliest due first, up to `?3`. */
  listTimers: `SELECT id, action, stream, actor, payload, due, correlation, status, token, attempts, claimed_by, claimed_until, fired, error
FROM act_timers WHERE (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR id IN (SELECT value FROM json_each(?2)))
ORDER BY due, id LIMIT ?3`,
  /**
   * Pending timers, and those due by `?1`: two counts of the pending index's
   * entries, the second a search of its start (due by `?1`) — no row is read,
   * and no expression runs per timer (summing `due <= ?` over every pending
   * timer took 0.9 s with a million pending).
   */
  countTimers: `SELECT (SELECT count(*) FROM act_timers INDEXED BY act_timers_pending WHERE status = 'pending'),
  (SELECT count(*) FROM act_timers INDEXED BY act_timers_pending WHERE status = 'pending' AND due <= ?1)`,
} as const;

/**
 * `query()`: one SELECT built from the filters (a bounded set of shapes, so
 * each is prepared once), with the values as parameters, reading at most
 * `limit` rows past `cursor` — the version (reading a stream) or the id
 * (reading the log) of the last row of the previous page, if any.
 *
 * The page comes back as one row holding one JSON array of
 * `[id, stream, version, created, name, data, meta]` arrays. The driver
 * turns every column of every row into a JavaScript value one native call at
 * a time, which cost more than half of reading a long stream; one text per
 * page, parsed by `JSON.parse`, reads a 5,000-event stream about twice as
 * fast. `data` and `meta` go in through `json()` so that they arrive parsed.
 * The aggregate keeps no promised order, so the caller puts the page back in
 * the order the rows were read.
 */
export function query(q: Query, limit: number, cursor?: number): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const where: string[] = [];
  const add = (clause: string, ...params: unknown[]) => {
    values.push(...params);
    where.push(clause);
  };
  const inStream = q.stream !== undefined;
  if (inStream) {
    add("stream = ?", q.stream);
    if (q.from_snapshot !== undefined)
      add(
        `version >= coalesce((SELECT s.version FROM act_events s INDEXED BY act_events_snapshots WHERE s.stream = ? AND s.name = ${SNAP} AND json_extract(s.data, '$.of') = ? ORDER BY s.version DESC LIMIT 1), -1)`,
        q.stream,
        q.from_snapshot
      );
    // Id bounds as version bounds: the last version at or before the id, searched from the stream's end.
    const lastAt = (op: string) =>
      `coalesce((SELECT b.version FROM act_events b INDEXED BY act_events_stream_version WHERE b.stream = ? AND b.id ${op} ? ORDER BY b.version DESC LIMIT 1), -1)`;
    if (q.after !== undefined) add(`version > ${lastAt("<=")}`, q.stream, q.after);
    if (q.before !== undefined) add(`version <= ${lastAt("<")}`, q.stream, q.before);
  } else {
    if (q.after !== undefined) add("id > ?", q.after);
    if (q.before !== undefined) add("id < ?", q.before);
  }
  if (q.ids) add("id IN (SELECT value FROM json_each(?))", JSON.stringify(q.ids));
  if (!q.with_snaps && q.from_snapshot === undefined) where.push(`name <> ${SNAP}`);
  if (q.names) add("name IN (SELECT value FROM json_each(?))", JSON.stringify(q.names));
  if (q.created_after) add("created > ?", q.created_after.getTime());
  if (q.created_before) add("created < ?", q.created_before.getTime());
  if (q.correlation !== undefined) add("json_extract(meta, '$.correlation') = ?", q.correlation);
  if (cursor !== undefined) add(`${inStream ? "version" : "id"} ${q.backward ? "<" : ">"} ?`, cursor);
  values.push(limit);
  const page =
    // The plan is fixed, whatever statistics an ANALYZE left: a stream is
    // read through its index, the whole log in id order.
    "SELECT id, stream, version, created, name, data, meta FROM act_events" +
    (inStream ? " INDEXED BY act_events_stream_version" : " NOT INDEXED") +
    (where.length ? ` WHERE ${where.join(" AND ")}` : "") +
    ` ORDER BY ${inStream ? "version" : "id"}${q.backward ? " DESC" : ""} LIMIT ?`;
  const text = `SELECT json_group_array(json_array(id, stream, version, created, name, json(data), json(meta))) FROM (${page})`;
  return { text, values };
}
