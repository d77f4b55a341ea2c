/**
 * The SQL of the keys of data subjects (see `SubjectKeyStore`): the tables
 * `<table>_subject_keys` (each version's raw key in base64, `NULL` once
 * destroyed) and `<table>_subject_streams` (the streams holding each
 * subject's data, whose snapshots `forget` empties), created by `seed`.
 * Each operation is one statement.
 */
import { SNAP_EVENT } from "@act-root/act";
import { archiveTable } from "./archive-sql.js";
import type { Names } from "./sql.js";

/** The two tables' quoted names. */
export function subjectKeyTables(n: Names) {
  const { table } = n.raw;
  return { keys: `${n.schema}."${table}_subject_keys"`, streams: `${n.schema}."${table}_subject_streams"` };
}

/** Part of `seed`: the tables and the index `forgotten` reads. */
export function seedSubjectKeys(n: Names): string {
  const { keys, streams } = subjectKeyTables(n);
  return `
CREATE TABLE IF NOT EXISTS ${keys} (${n.tenantColumn}
  subject text NOT NULL,
  version integer NOT NULL,
  key text,
  PRIMARY KEY (${n.scope}subject, version)
);
CREATE TABLE IF NOT EXISTS ${streams} (${n.tenantColumn}
  subject text NOT NULL,
  stream text NOT NULL,
  PRIMARY KEY (${n.scope}subject, stream)
);
CREATE INDEX IF NOT EXISTS "${n.raw.table}_subject_streams_stream" ON ${streams} (${n.scope}stream);`;
}

/** Part of `drop`. */
export function dropSubjectKeys(n: Names): string {
  const { keys, streams } = subjectKeyTables(n);
  return `DROP TABLE IF EXISTS ${streams}; DROP TABLE IF EXISTS ${keys};`;
}

/**
 * `$1` subject, `$2` stream, `$3` a fresh key: creates version 1 when the
 * subject has none, records the stream, returns the latest version. (The
 * select does not see the row the same statement inserts: the union does.)
 */
export function currentKey(n: Names): string {
  const { keys, streams } = subjectKeyTables(n);
  return `WITH created AS (
  INSERT INTO ${keys} (subject, version, key) VALUES ($1, 1, $3) ON CONFLICT DO NOTHING RETURNING version, key
), linked AS (
  INSERT INTO ${streams} (subject, stream) VALUES ($1, $2) ON CONFLICT DO NOTHING
)
SELECT version, key FROM created
UNION ALL (SELECT version, key FROM ${keys} WHERE subject = $1 ORDER BY version DESC LIMIT 1)
ORDER BY version DESC LIMIT 1`;
}

/** `$1` subjects, `$2` versions (parallel arrays). */
export function readKeys(n: Names): string {
  const { keys } = subjectKeyTables(n);
  return `SELECT subject, version, key FROM ${keys}
WHERE (subject, version) IN (SELECT * FROM unnest($1::text[], $2::integer[]))`;
}

/** `$1` subject, `$2` the new key: a version after the latest, unless there is none or it was destroyed. */
export function rotateKey(n: Names): string {
  const { keys } = subjectKeyTables(n);
  return `INSERT INTO ${keys} (subject, version, key)
SELECT subject, version + 1, $2 FROM ${keys} WHERE subject = $1 AND key IS NOT NULL ORDER BY version DESC LIMIT 1
RETURNING version`;
}

/**
 * `$1` subject, `$2` the emptied snapshot's JSON: destroys every key version
 * and empties the snapshots of its streams, in the log and in the archive
 * (snapshots archived with a stream's older events are sealed with the
 * stream's key, which stays).
 */
export function forgetSubject(n: Names): string {
  const { keys, streams } = subjectKeyTables(n);
  return `WITH destroyed AS (
  UPDATE ${keys} SET key = NULL WHERE subject = $1 RETURNING version
), emptied AS (
  UPDATE ${n.events} SET data = $2::json
  WHERE name = '${SNAP_EVENT}' AND data::text <> $2
    AND stream IN (SELECT stream FROM ${streams} WHERE subject = $1)
  RETURNING id
), archived AS (
  UPDATE ${archiveTable(n)} SET data = $2::json
  WHERE name = '${SNAP_EVENT}' AND data::text <> $2
    AND stream IN (SELECT stream FROM ${streams} WHERE subject = $1)
  RETURNING id
)
SELECT (SELECT count(*) FROM destroyed)::integer AS versions,
  ((SELECT count(*) FROM emptied) + (SELECT count(*) FROM archived))::integer AS snapshots`;
}

/** `$1` stream: whether a subject whose data it holds was forgotten. */
export function streamForgotten(n: Names): string {
  const { keys, streams } = subjectKeyTables(n);
  return `SELECT 1 FROM ${streams} s JOIN ${keys} k ON k.subject = s.subject
WHERE s.stream = $1 AND k.key IS NULL LIMIT 1`;
}
