/**
 * The SQL of copying into and out of the PostgreSQL store (see
 * `StoreTransfer`): one plain statement per operation. Rows arrive as one
 * JSON array parameter (`$1`) and are written with every column given, so
 * they land exactly as another store kept them; times travel as epoch
 * milliseconds.
 */
import { archiveTable } from "./archive-sql.js";
import { COMMIT_BITS, type Names } from "./sql.js";
import { subjectKeyTables } from "./subject-key-sql.js";

/** An epoch-milliseconds `bigint` expression as a `timestamptz`. */
const fromMillis = (column: string) => `timestamptz 'epoch' + ${column} * interval '1 millisecond'`;
/** A `timestamptz` column as epoch milliseconds. */
const toMillis = (column: string) => `floor(extract(epoch FROM ${column}) * 1000)::float8`;

/** One advisory lock per events table: two copies into one table take turns. */
export function lock(n: Names): string {
  return `SELECT pg_advisory_xact_lock(hashtext(${`$$act-pg transfer ${n.events.replace(/\$/g, "")}$$`}))`;
}

/**
 * The id of the last event (-1: none), and the lowest id the transaction
 * asking could give an event of its own (its transaction id, shifted as ids
 * are): copied ids must stay below it, or new commits would get lower ids.
 */
export function lastId(n: Names): string {
  return `SELECT COALESCE((SELECT max(id) FROM ${n.events}), -1) AS last,
  pg_current_xact_id()::text::bigint << ${COMMIT_BITS} AS own`;
}

/** Events of `$1` with their own ids, versions and times; data JSON `null` stays `null`. */
export function insertEvents(n: Names): string {
  return `INSERT INTO ${n.events} (id, stream, version, name, data, meta, created)
SELECT id, stream, version, name, COALESCE(data, 'null'::json), meta, ${fromMillis("created")}
FROM json_to_recordset($1::json) AS e(id bigint, stream text, version integer, name text, data json, meta json, created bigint)`;
}

/** How many records the store holds beside its events. */
export function countRecords(n: Names): string {
  return `SELECT (SELECT count(*) FROM ${n.watermarks}) + (SELECT count(*) FROM ${n.keys})
  + (SELECT count(*) FROM ${n.discovery}) + (SELECT count(*) FROM ${n.timers})
  + (SELECT count(*) FROM ${subjectKeyTables(n).keys}) AS held`;
}

/** Every reaction stream, by name. */
export function watermarks(n: Names): string {
  return `SELECT stream, source, at, head, retry, blocked, error, leased_by, ${toMillis("leased_until")} AS leased_until,
  done, token, reactions, ahead
FROM ${n.watermarks} ORDER BY stream COLLATE "C"`;
}

/** Every idempotency key, expired ones too, by stream and key. */
export function keys(n: Names): string {
  return `SELECT stream, key, from_version, to_version, ${toMillis("expires")} AS expires, request
FROM ${n.keys} ORDER BY stream COLLATE "C", key COLLATE "C"`;
}

/** Every discovery position, by reaction. */
export function discovery(n: Names): string {
  return `SELECT name, at FROM ${n.discovery} ORDER BY name COLLATE "C"`;
}

/** Every timer, in any status, by id. */
export function timers(n: Names): string {
  return `SELECT id, action, stream, actor, payload, due, status, token, attempts, claimed_by, claimed_until, fired, error, correlation
FROM ${n.timers} ORDER BY id COLLATE "C"`;
}

/** Every data subject: its key versions in order (NULL once destroyed) and its streams, by subject. */
export function subjects(n: Names): string {
  const { keys, streams } = subjectKeyTables(n);
  return `SELECT k.subject, k.keys, COALESCE(s.streams, '{}') AS streams
FROM (SELECT subject, array_agg(key ORDER BY version) AS keys FROM ${keys} GROUP BY subject) k
LEFT JOIN (SELECT subject, array_agg(stream ORDER BY stream COLLATE "C") AS streams FROM ${streams} GROUP BY subject) s
  USING (subject)
ORDER BY k.subject COLLATE "C"`;
}

/** The key versions of the subjects of `$1`, as `SubjectRecord`s (version 1 first). */
export function insertSubjectKeys(n: Names): string {
  return `INSERT INTO ${subjectKeyTables(n).keys} (subject, version, key)
SELECT s.subject, k.version, k.key
FROM json_to_recordset($1::json) AS s(subject text, keys json),
  json_array_elements_text(s.keys) WITH ORDINALITY AS k(key, version)`;
}

/** The streams of the subjects of `$1`. */
export function insertSubjectStreams(n: Names): string {
  return `INSERT INTO ${subjectKeyTables(n).streams} (subject, stream)
SELECT s.subject, t.stream
FROM json_to_recordset($1::json) AS s(subject text, streams json), json_array_elements_text(s.streams) AS t(stream)`;
}

/** The id of the archive's last event (-1: none). */
export function lastArchived(n: Names): string {
  return `SELECT COALESCE((SELECT max(id) FROM ${archiveTable(n)}), -1) AS last`;
}

/** A page of the archive after `$1`, at most `$2` events, with their archiving times. */
export function archived(n: Names): string {
  return `SELECT id, stream, version, name, data, meta, ${toMillis("created")} AS created, ${toMillis("archived")} AS archived
FROM ${archiveTable(n)} WHERE id > $1 ORDER BY id LIMIT $2`;
}

/** Archived events of `$1` with their own ids, versions and times. */
export function insertArchived(n: Names): string {
  return `INSERT INTO ${archiveTable(n)} (id, stream, version, name, data, meta, created, archived)
SELECT id, stream, version, name, COALESCE(data, 'null'::json), meta, ${fromMillis("created")}, ${fromMillis("archived")}
FROM json_to_recordset($1::json)
  AS e(id bigint, stream text, version integer, name text, data json, meta json, created bigint, archived bigint)`;
}

/** The reaction streams of `$1`, as `WatermarkRecord`s. */
export function insertWatermarks(n: Names): string {
  return `INSERT INTO ${n.watermarks} (stream, source, at, head, retry, blocked, error, leased_by, leased_until, done, token, reactions, ahead)
SELECT stream, source, at, head, retry, blocked, error, "leasedBy", ${fromMillis('"leasedUntil"')},
  ARRAY(SELECT json_array_elements_text(done)), token, ARRAY(SELECT json_array_elements_text(reactions)), ahead
FROM json_to_recordset($1::json) AS r(stream text, source text, at bigint, head bigint, retry integer, blocked boolean,
  error text, "leasedBy" text, "leasedUntil" bigint, done json, token bigint, reactions json, ahead jsonb)`;
}

/** The idempotency keys of `$1`, as `KeyRecord`s. */
export function insertKeys(n: Names): string {
  return `INSERT INTO ${n.keys} (stream, key, from_version, to_version, expires, request)
SELECT stream, key, "from", "to", ${fromMillis("expires")}, request
FROM json_to_recordset($1::json) AS k(stream text, key text, "from" integer, "to" integer, expires bigint, request text)`;
}

/** The discovery positions of `$1`. */
export function insertDiscovery(n: Names): string {
  return `INSERT INTO ${n.discovery} (name, at) SELECT reaction, at FROM json_to_recordset($1::json) AS d(reaction text, at bigint)`;
}

/** The timers of `$1`, as `TimerRecord`s. */
export function insertTimers(n: Names): string {
  return `INSERT INTO ${n.timers} (id, action, stream, actor, payload, due, status, token, attempts, claimed_by, claimed_until, fired, error, correlation)
SELECT id, action, stream, actor, COALESCE(payload, 'null'::json), due, status, token, attempts, "claimedBy", "claimedUntil", fired, error, correlation
FROM json_to_recordset($1::json) AS t(id text, action text, stream text, actor json, payload json, due bigint, status text,
  token bigint, attempts integer, "claimedBy" text, "claimedUntil" bigint, fired bigint, error text, correlation text)`;
}
