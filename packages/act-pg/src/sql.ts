/**
 * The SQL of the PostgreSQL store: one plain statement per operation.
 *
 * Event `data` and `meta` are `json` columns, not `jsonb`: the store writes
 * and reads them whole, and `json` keeps the exact text (key order included)
 * at a lower cost on both sides; `->`/`->>` still work in ad-hoc SQL.
 *
 * Table and schema names arrive here already validated and double-quoted
 * (see `identifier` in `config.ts`); every value is a `$n` parameter. The
 * only literal is the snapshot event name, a constant of the library, which
 * must appear literally so the partial snapshot index matches the queries.
 *
 * ## Global positions
 *
 * An event's `id` is `(xid << 16) + n`: the id of the transaction that
 * committed it (`pg_current_xact_id()`, 64-bit, never reused) shifted by 16
 * bits, plus its index in the commit. Ids are unique, increase within a
 * commit and from one commit to the next of the same stream, and — what a
 * sequence cannot give — every transaction still running or yet to start has
 * an xid at least `pg_snapshot_xmin(pg_current_snapshot())`. So the events
 * with `id < xmin << 16` are a prefix of the log that can no longer grow:
 * readers that track a position (`query({ after })`, `poll`, drains) read
 * only that prefix and can never step past an event whose transaction commits
 * late. (With a sequence, a transaction that took id 10 and commits after
 * the one that took id 11 is skipped by a reader that already moved to 11.)
 * 16 bits allow 65,536 events per commit; a signed 64-bit id leaves room for
 * 2^47 transactions, and JavaScript numbers stay exact up to 2^37 of them.
 */
import { SNAP_EVENT } from "@act-root/act";

/** Quoted, validated names of everything the store creates. */
export type Names = {
  /** `"schema"` */
  readonly schema: string;
  /** `"schema"."table"` */
  readonly events: string;
  /** `"schema"."table_watermarks"` */
  readonly watermarks: string;
  /** Unquoted parts, for index names and catalog lookups. */
  readonly raw: { readonly schema: string; readonly table: string };
};

/** Bits of an id that number the events of one commit. */
export const COMMIT_BITS = 16;
/** Most events one commit can hold. */
export const MAX_EVENTS_PER_COMMIT = 2 ** COMMIT_BITS;

/** The snapshot event name as a SQL literal (a library constant, not user input). */
const SNAP = `'${SNAP_EVENT.replace(/'/g, "''")}'`;

/** First id no running or future transaction can take: the end of the stable prefix. */
const STABLE_END = `(pg_snapshot_xmin(pg_current_snapshot())::text::bigint << ${COMMIT_BITS})`;

/** Builds the names from validated identifiers. */
export function names(schema: string, table: string): Names {
  const q = (s: string) => `"${s}"`;
  return {
    schema: q(schema),
    events: `${q(schema)}.${q(table)}`,
    watermarks: `${q(schema)}.${q(`${table}_watermarks`)}`,
    raw: { schema, table },
  };
}

/** `seed()`: idempotent DDL, run in one transaction. */
export function seed(n: Names): string {
  const { table } = n.raw;
  return `
CREATE SCHEMA IF NOT EXISTS ${n.schema};
CREATE TABLE IF NOT EXISTS ${n.events} (
  id bigint PRIMARY KEY,
  stream text NOT NULL,
  version integer NOT NULL,
  name text NOT NULL,
  data json NOT NULL,
  meta json NOT NULL,
  created timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS "${table}_stream_version" ON ${n.events} (stream, version);
CREATE INDEX IF NOT EXISTS "${table}_stream_id" ON ${n.events} (stream, id);
CREATE INDEX IF NOT EXISTS "${table}_snapshots" ON ${n.events} (stream, id) WHERE name = ${SNAP};
CREATE TABLE IF NOT EXISTS ${n.watermarks} (
  stream text PRIMARY KEY,
  source text,
  at bigint NOT NULL,
  retry integer NOT NULL DEFAULT 0,
  blocked boolean NOT NULL DEFAULT false,
  error text,
  leased_by text,
  leased_until timestamptz
);`;
}

/** `drop()`: removes the tables (the schema separately, only when empty and not `public`). */
export function drop(n: Names): string {
  return `DROP TABLE IF EXISTS ${n.watermarks}; DROP TABLE IF EXISTS ${n.events};`;
}

/** Drops the schema if nothing else lives in it. */
export function dropSchema(n: Names): string {
  return `DROP SCHEMA IF EXISTS ${n.schema} RESTRICT`;
}

/**
 * `commit()`: one statement. Reads the stream's last version, checks it
 * against `$4` (null = no check) and inserts every message of `$2` (a JSON
 * array of `{ name, data }`) with `$3` as meta — or nothing. Returns one row
 * per inserted event, or a single row with null id when nothing was inserted,
 * always carrying the version the stream was at. Two concurrent commits that
 * read the same last version collide on the unique `(stream, version)` index:
 * the database decides, the loser gets a unique violation.
 *
 * Parameters: `$1` stream, `$2` messages (json), `$3` meta (json), `$4` expected version (int or null).
 */
export function commit(n: Names): string {
  return `
WITH last AS (
  SELECT COALESCE((SELECT version FROM ${n.events} WHERE stream = $1 ORDER BY version DESC LIMIT 1), -1) AS v
), ins AS (
  INSERT INTO ${n.events} (id, stream, version, name, data, meta)
  SELECT (pg_current_xact_id()::text::bigint << ${COMMIT_BITS}) + m.ord - 1, $1, last.v + m.ord, m.msg->>'name', m.msg->'data', $3::json
  FROM last CROSS JOIN json_array_elements($2::json) WITH ORDINALITY AS m(msg, ord)
  WHERE $4::integer IS NULL OR last.v = $4::integer
  RETURNING id, version, created
)
SELECT last.v AS last, ins.id, ins.version, ins.created FROM last LEFT JOIN ins ON true ORDER BY ins.version`;
}

/** The stream's last version (-1 when empty): `$1` stream. */
export function lastVersion(n: Names): string {
  return `SELECT COALESCE((SELECT version FROM ${n.events} WHERE stream = $1 ORDER BY version DESC LIMIT 1), -1) AS v`;
}

/** What `query()` accepts (the core's `Query`). */
export type QueryFilter = {
  stream?: string;
  names?: string[];
  before?: number;
  after?: number;
  limit?: number;
  created_before?: Date;
  created_after?: Date;
  backward?: boolean;
  correlation?: string;
  with_snaps?: boolean;
  from_snapshot?: boolean;
};

/**
 * `query()`: one SELECT built from the filters, with values as parameters.
 *
 * Position-based reads — any read with `after`, and any read of the whole
 * log — are limited to the stable prefix (see the module comment). A read of
 * one stream without `after` (what `load` does) sees every committed event of
 * the stream: within a stream, commits are serialised by the unique
 * `(stream, version)` index, so nothing can commit behind them.
 */
export function query(n: Names, q: QueryFilter): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const param = (value: unknown, cast = "") => {
    values.push(value);
    return `$${values.length}${cast}`;
  };
  const where: string[] = [];
  if (q.stream !== undefined) {
    const stream = param(q.stream);
    where.push(`stream = ${stream}`);
    if (q.from_snapshot)
      where.push(
        `id >= COALESCE((SELECT s.id FROM ${n.events} s WHERE s.stream = ${stream} AND s.name = ${SNAP} ORDER BY s.id DESC LIMIT 1), -1)`
      );
  }
  if (!q.with_snaps && !q.from_snapshot) where.push(`name <> ${SNAP}`);
  if (q.names) where.push(`name = ANY(${param(q.names, "::text[]")})`);
  if (q.after !== undefined) where.push(`id > ${param(q.after, "::bigint")}`);
  if (q.before !== undefined) where.push(`id < ${param(q.before, "::bigint")}`);
  if (q.created_after) where.push(`created > ${param(q.created_after, "::timestamptz")}`);
  if (q.created_before) where.push(`created < ${param(q.created_before, "::timestamptz")}`);
  if (q.correlation !== undefined) where.push(`meta->>'correlation' = ${param(q.correlation)}`);
  if (q.stream === undefined || q.after !== undefined) where.push(`id < ${STABLE_END}`);
  const limit = q.limit !== undefined ? ` LIMIT ${param(q.limit, "::bigint")}` : "";
  const text =
    // Columns by position (the store reads rows as arrays); `created` as epoch
    // milliseconds, which is cheaper to turn into a Date than timestamp text.
    `SELECT id, stream, version, floor(extract(epoch FROM created) * 1000)::float8 AS created, name, data, meta FROM ${n.events}` +
    (where.length ? ` WHERE ${where.join(" AND ")}` : "") +
    ` ORDER BY id${q.backward ? " DESC" : ""}${limit}`;
  return { text, values };
}

/**
 * `poll()`: reaction streams that are not blocked, not leased (or the lease
 * expired), and whose source (or the whole log when no source) has events
 * after the watermark within the stable prefix. Snapshot events do not
 * count: drains never fetch them, so a stream whose only new event is a
 * snapshot has nothing to do (counting it would poll that stream forever and
 * let it crowd out streams with real work). The `$1` lowest watermarks
 * come first (lagging), then the `$2` highest of the rest (leading).
 */
export function poll(n: Names): string {
  return `
WITH bound AS (SELECT ${STABLE_END} AS id),
ready AS (
  SELECT w.stream, w.source, w.at FROM ${n.watermarks} w CROSS JOIN bound
  WHERE NOT w.blocked
    AND (w.leased_until IS NULL OR w.leased_until <= now())
    AND CASE WHEN w.source IS NULL
      THEN EXISTS (SELECT 1 FROM ${n.events} e WHERE e.id > w.at AND e.id < bound.id AND e.name <> ${SNAP})
      ELSE EXISTS (SELECT 1 FROM ${n.events} e WHERE e.stream = w.source AND e.id > w.at AND e.id < bound.id AND e.name <> ${SNAP})
    END
), lag AS (
  SELECT stream, source, at FROM ready ORDER BY at, stream LIMIT $1
), lead AS (
  SELECT stream, source, at FROM ready WHERE stream NOT IN (SELECT stream FROM lag) ORDER BY at DESC, stream LIMIT $2
)
SELECT stream, source, at, true AS lagging FROM lag
UNION ALL
SELECT stream, source, at, false AS lagging FROM lead`;
}

/** Input rows of the watermark statements: `$1` is a JSON array of leases. */
const INPUT = (columns: string) => `input AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS i(${columns}))`;

/**
 * `lease(leases, 0)`: registers missing streams at their `at`, never moving
 * an existing one (but widening its source to every stream when another
 * source names it), and returns every stream's stored `retry`.
 */
export function register(n: Names): string {
  return `
WITH ${INPUT("stream text, source text, at bigint")},
ins AS (
  INSERT INTO ${n.watermarks} (stream, source, at)
  SELECT stream, source, at FROM input
  ON CONFLICT (stream) DO NOTHING
  RETURNING stream, retry
), widen AS (
  -- Reactions from different sources share this stream: it must read them all.
  UPDATE ${n.watermarks} w SET source = NULL FROM input i
  WHERE w.stream = i.stream AND w.source IS NOT NULL AND w.source IS DISTINCT FROM i.source
)
SELECT stream, retry FROM ins
UNION ALL
SELECT w.stream, w.retry FROM ${n.watermarks} w JOIN input i ON i.stream = w.stream`;
}

/**
 * `lease(leases, millis)`: grants each stream to its holder for `$2` ms unless
 * it is blocked, another holder's lease has not expired, or its watermark has
 * moved past the lease's `at` — the watermark the drainer polled (another
 * drainer handled those events since: granting it would run them twice). Rows another
 * transaction has locked right now are skipped (`FOR UPDATE SKIP LOCKED`), so
 * competing drainers never wait for each other. Missing streams are
 * registered already leased.
 */
export function lease(n: Names): string {
  return `
WITH ${INPUT("stream text, source text, at bigint, holder text")},
ins AS (
  INSERT INTO ${n.watermarks} (stream, source, at, leased_by, leased_until)
  SELECT stream, source, at, holder, now() + $2::integer * interval '1 millisecond' FROM input
  ON CONFLICT (stream) DO NOTHING
  RETURNING stream, retry
), free AS (
  SELECT w.stream, i.holder FROM ${n.watermarks} w JOIN input i ON i.stream = w.stream
  WHERE NOT w.blocked AND w.at <= i.at
    AND (w.leased_by IS NULL OR w.leased_by = i.holder OR w.leased_until <= now())
  FOR UPDATE OF w SKIP LOCKED
), taken AS (
  UPDATE ${n.watermarks} w SET leased_by = f.holder, leased_until = now() + $2::integer * interval '1 millisecond'
  FROM free f WHERE w.stream = f.stream
  RETURNING w.stream, w.retry
)
SELECT stream, retry FROM ins
UNION ALL
SELECT stream, retry FROM taken`;
}

/** `ack()`: moves the watermark, stores `retry`, releases — only where `holder` still holds it. */
export function ack(n: Names): string {
  return `
WITH ${INPUT("stream text, holder text, at bigint, retry integer")}
UPDATE ${n.watermarks} w SET at = GREATEST(w.at, i.at), retry = i.retry, leased_by = NULL, leased_until = NULL
FROM input i
WHERE w.stream = i.stream AND w.leased_by = i.holder AND NOT w.blocked
RETURNING w.stream`;
}

/** `block()`: blocks with the error, stores `retry`, releases — only where `holder` still holds it. */
export function block(n: Names): string {
  return `
WITH ${INPUT("stream text, holder text, retry integer, error text")}
UPDATE ${n.watermarks} w SET blocked = true, error = i.error, retry = i.retry, leased_by = NULL, leased_until = NULL
FROM input i
WHERE w.stream = i.stream AND w.leased_by = i.holder AND NOT w.blocked
RETURNING w.stream`;
}
