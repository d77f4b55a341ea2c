/**
 * The SQL of the archive (`<table>_archive`, see `archive.ts`): its table,
 * and the statements that move the events of closed streams into it, purge
 * it, and bound a move by how far every reaction has got. Names arrive
 * quoted and validated (see `sql.ts`); the event names are library
 * constants.
 */
import { CLOSE_EVENT, SNAP_EVENT } from "@act-root/act";
import type { Names } from "./sql.js";

const literal = (name: string) => `'${name.replace(/'/g, "''")}'`;
const SNAP = literal(SNAP_EVENT);
const CLOSED = literal(CLOSE_EVENT);

/** The archive table's quoted name: `"schema"."table_archive"`. */
export const archiveTable = (n: Names) => `${n.schema}."${n.raw.table}_archive"`;

/**
 * `seed()`'s part: the archive table (the log's columns and the archiving
 * time) with the log's indexes for reads, one on the archiving time for
 * purges, and the partial index on the log that finds close events.
 */
export function seedArchive(n: Names): string {
  const { table } = n.raw;
  const archive = archiveTable(n);
  return `
CREATE TABLE IF NOT EXISTS ${archive} (${n.tenantColumn}
  id bigint NOT NULL,
  stream text NOT NULL,
  version integer NOT NULL,
  name text NOT NULL,
  data json NOT NULL,
  meta json NOT NULL,
  created timestamptz NOT NULL,
  archived timestamptz NOT NULL,
  PRIMARY KEY (${n.scope}id)
);
CREATE UNIQUE INDEX IF NOT EXISTS "${table}_archive_stream_version" ON ${archive} (${n.scope}stream, version);
CREATE INDEX IF NOT EXISTS "${table}_archive_snapshots" ON ${archive} (${n.scope}stream, id) WHERE name = ${SNAP};
CREATE INDEX IF NOT EXISTS "${table}_archive_archived" ON ${archive} (${n.scope}archived);
CREATE INDEX IF NOT EXISTS "${table}_closed" ON ${n.events} (${n.scope}stream) WHERE name = ${CLOSED};`;
}

/** `drop()`'s part. */
export const dropArchive = (n: Names) => `DROP TABLE IF EXISTS ${archiveTable(n)};`;

/**
 * `archive.move`, one batch: one statement, so one short transaction. `bound`
 * is the last id no reaction still needs — the lowest watermark of a
 * reaction stream with work left, of every discovery position, and of the
 * positions of the reactions named in `$3` (-1 for one never discovered);
 * null when nothing holds anything back. The batch is the next `$5` streams
 * closed before `$1`, by name after `$4` (null for the first batch); their
 * events that precede the stream's summary (the snapshot right before the
 * close) and are within the bound are deleted from the log and inserted
 * into the archive with the archiving time `$2`. Returns how many moved per
 * stream, then a row without stream: how many the bound held back, how many
 * streams the batch took, and the last of them (where the next batch
 * starts).
 */
export function moveArchive(n: Names): string {
  return `
WITH bound AS (
  SELECT LEAST(
    (SELECT min(at) FROM ${n.watermarks} WHERE head > at),
    (SELECT min(at) FROM ${n.discovery}),
    (SELECT min(COALESCE(d.at, -1)) FROM unnest($3::text[]) AS r(name) LEFT JOIN ${n.discovery} d ON d.name = r.name)
  ) AS up_to
), batch AS (
  SELECT c.stream, c.version - 1 AS summary FROM ${n.events} c
  JOIN ${n.events} s ON s.stream = c.stream AND s.version = c.version - 1 AND s.name = ${SNAP}
  WHERE c.name = ${CLOSED} AND c.created < $1::timestamptz AND ($4::text IS NULL OR c.stream > $4::text)
  ORDER BY c.stream LIMIT $5::int
), selected AS (
  SELECT e.id, e.id <= COALESCE((SELECT up_to FROM bound), e.id) AS free
  FROM batch JOIN ${n.events} e ON e.stream = batch.stream AND e.version < batch.summary
), moved AS (
  DELETE FROM ${n.events} e USING selected WHERE e.id = selected.id AND selected.free
  RETURNING e.*
), kept AS (
  INSERT INTO ${archiveTable(n)} (id, stream, version, name, data, meta, created, archived)
  SELECT id, stream, version, name, data, meta, created, $2::timestamptz FROM moved
  RETURNING stream
)
SELECT stream, count(*)::int AS events, 0 AS held, 0 AS streams, NULL AS last FROM kept GROUP BY stream
UNION ALL SELECT NULL, 0, (SELECT count(*)::int FROM selected WHERE NOT free),
  (SELECT count(*)::int FROM batch), (SELECT max(stream) FROM batch)
ORDER BY 1 NULLS LAST`;
}

/** `archive.purge`: deletes the events archived before `$1`; how many per stream. */
export function purgeArchive(n: Names): string {
  return `
WITH gone AS (DELETE FROM ${archiveTable(n)} WHERE archived < $1::timestamptz RETURNING stream)
SELECT stream, count(*)::int AS events FROM gone GROUP BY stream ORDER BY stream`;
}
