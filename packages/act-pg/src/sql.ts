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
 * sequence cannot give — a reader can tell which transactions could still
 * add events below a given id: those running when its snapshot was taken.
 * Readers that track a position across streams (`query({ after })` without
 * a stream, drains) read only below the first of those that can write the
 * events table (see `stableEnd`), so they never step past an event whose
 * transaction commits late. (With a sequence, a transaction that took id 10
 * and commits after the one that took id 11 is skipped by a reader that
 * already moved to 11.)
 * 16 bits allow 65,536 events per commit; a signed 64-bit id leaves room for
 * 2^47 transactions, and JavaScript numbers stay exact up to 2^37 of them.
 */
import { createHash } from "node:crypto";
import { type Query, SNAP_EVENT } from "@act-root/act";

/** Quoted, validated names of everything the store creates. */
export type Names = {
  /** `"schema"` */
  readonly schema: string;
  /** `"schema"."table"` */
  readonly events: string;
  /** `"schema"."table_watermarks"` */
  readonly watermarks: string;
  /** `"schema"."table_keys"`: idempotency keys. */
  readonly keys: string;
  /** `"schema"."table_discovery"`: how far correlation has gone, per reaction. */
  readonly discovery: string;
  /** The LISTEN/NOTIFY channel commits are announced on (see `channel`). */
  readonly channel: string;
  /** Unquoted parts, for index names and catalog lookups. */
  readonly raw: { readonly schema: string; readonly table: string };
};

/** Bits of an id that number the events of one commit. */
export const COMMIT_BITS = 16;
/** Most events one commit can hold. */
export const MAX_EVENTS_PER_COMMIT = 2 ** COMMIT_BITS;

/** The snapshot event name as a SQL literal (a library constant, not user input). */
const SNAP = `'${SNAP_EVENT.replace(/'/g, "''")}'`;

/**
 * First id an event still invisible to this statement could have: the end of
 * the stable prefix for reads across streams.
 *
 * Transactions still running when the statement's snapshot was taken are
 * the only ones whose events could appear later below newer ids. Only those
 * that can write this store's table matter: the ones holding a write lock on
 * it now, and the ones that have ended since the snapshot (they may have
 * written before ending). The store commits in single statements, which take
 * that lock before their transaction id exists, so a transaction that writes
 * elsewhere, or only reads — a console left open in another database, a long
 * report on another table — never holds reactions back. Without such a
 * writer, the bound is the snapshot's end (`xmax`).
 */
function stableEnd(n: Names): string {
  const table = `'${n.events.replace(/'/g, "''")}'::regclass`;
  // A writer is found by its transaction id in two ways. The backend that
  // holds the write lock shows the id in pg_stat_activity as soon as it is
  // assigned, which is before any snapshot can list it. The lock a
  // transaction holds on its own id is taken a moment later, so looking only
  // for that lock would miss a writer caught in between — its events would
  // then commit below a position a reader had already passed. The second
  // way stays for roles that cannot see other sessions' ids.
  //
  // The order matters: look for the write lock first, then at the status. A
  // writer ends by recording its commit and only then releasing its locks,
  // so "no lock" seen first means "ended" is seen after; the other way round,
  // a writer ending between the two checks would be missed.
  return `(SELECT LEAST(pg_snapshot_xmax(pg_current_snapshot())::text::bigint,
    COALESCE(min(x::text::bigint), 9223372036854775807)) << ${COMMIT_BITS}
  FROM pg_snapshot_xip(pg_current_snapshot()) AS x
  WHERE CASE
    WHEN EXISTS (
      SELECT 1 FROM pg_stat_activity a JOIN pg_locks r ON r.pid = a.pid
      WHERE a.backend_xid = (x::text::bigint & 4294967295)::text::xid
        AND r.locktype = 'relation' AND r.relation = ${table} AND r.mode = 'RowExclusiveLock') THEN true
    WHEN EXISTS (
      SELECT 1 FROM pg_locks t JOIN pg_locks r ON r.virtualtransaction = t.virtualtransaction
      WHERE t.locktype = 'transactionid' AND t.transactionid::text::bigint = (x::text::bigint & 4294967295)
        AND r.locktype = 'relation' AND r.relation = ${table} AND r.mode = 'RowExclusiveLock') THEN true
    ELSE pg_xact_status(x) IS DISTINCT FROM 'in progress'
  END)`;
}

/** PostgreSQL truncates identifiers, channel names included, to 63 bytes. */
const MAX_IDENTIFIER_BYTES = 63;

/**
 * The channel commits to `schema.table` are announced on: `act:<schema>.<table>`
 * when that fits PostgreSQL's 63-byte limit, otherwise the start of it and a
 * short hash of the whole name. A longer name would make `pg_notify` fail on
 * every commit and `LISTEN` listen on a truncated name, so wake-ups would stop
 * without a word; the hash keeps two long names on different channels.
 */
export function channel(schema: string, table: string): string {
  const full = `act:${schema}.${table}`;
  if (Buffer.byteLength(full) <= MAX_IDENTIFIER_BYTES) return full;
  const hash = createHash("sha1").update(full).digest("hex").slice(0, 12);
  return `${full.slice(0, MAX_IDENTIFIER_BYTES - hash.length - 1)}#${hash}`;
}

/** Builds the names from validated identifiers. */
export function names(schema: string, table: string): Names {
  const q = (s: string) => `"${s}"`;
  return {
    schema: q(schema),
    events: `${q(schema)}.${q(table)}`,
    watermarks: `${q(schema)}.${q(`${table}_watermarks`)}`,
    keys: `${q(schema)}.${q(`${table}_keys`)}`,
    discovery: `${q(schema)}.${q(`${table}_discovery`)}`,
    channel: channel(schema, table),
    raw: { schema, table },
  };
}

/**
 * `seed()`: idempotent DDL, run in one transaction. Columns added since the
 * first release are added to existing tables too, so upgrading the library
 * only needs `seed()` again.
 */
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
  created timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
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
);
ALTER TABLE ${n.watermarks} ADD COLUMN IF NOT EXISTS done text[] NOT NULL DEFAULT '{}';
ALTER TABLE ${n.watermarks} ADD COLUMN IF NOT EXISTS head bigint NOT NULL DEFAULT -1;
ALTER TABLE ${n.watermarks} ADD COLUMN IF NOT EXISTS token bigint NOT NULL DEFAULT 0;
ALTER TABLE ${n.watermarks} ADD COLUMN IF NOT EXISTS reactions text[] NOT NULL DEFAULT '{}';
-- Reactions that handled a stream past its watermark (it moved back for one that joined late), by name.
ALTER TABLE ${n.watermarks} ADD COLUMN IF NOT EXISTS ahead jsonb NOT NULL DEFAULT '{}';
-- reactions() lists streams by name in byte order: read in index order, not sorted on each call.
CREATE INDEX IF NOT EXISTS "${table}_watermarks_by_name" ON ${n.watermarks} (stream COLLATE "C");
CREATE INDEX IF NOT EXISTS "${table}_watermarks_blocked" ON ${n.watermarks} (stream COLLATE "C") WHERE blocked;
-- poll() reads only the streams with work: thousands of caught-up ones cost it nothing.
CREATE INDEX IF NOT EXISTS "${table}_watermarks_ready" ON ${n.watermarks} (at, stream) WHERE head > at AND NOT blocked;
CREATE TABLE IF NOT EXISTS ${n.keys} (
  stream text NOT NULL,
  key text NOT NULL,
  from_version integer NOT NULL,
  to_version integer NOT NULL,
  expires timestamptz NOT NULL,
  PRIMARY KEY (stream, key)
);
-- What the request that used the key asked for (a digest); keys stored before have none.
ALTER TABLE ${n.keys} ADD COLUMN IF NOT EXISTS request text;
CREATE INDEX IF NOT EXISTS "${table}_keys_expires" ON ${n.keys} (expires);
CREATE TABLE IF NOT EXISTS ${n.discovery} (
  name text PRIMARY KEY,
  at bigint NOT NULL
);`;
}

/** `drop()`: removes the tables (the schema separately, only when empty and not `public`). */
export function drop(n: Names): string {
  return `DROP TABLE IF EXISTS ${n.discovery}; DROP TABLE IF EXISTS ${n.keys}; DROP TABLE IF EXISTS ${n.watermarks}; DROP TABLE IF EXISTS ${n.events};`;
}

/** Drops the schema if nothing else lives in it. */
export function dropSchema(n: Names): string {
  return `DROP SCHEMA IF EXISTS ${n.schema} RESTRICT`;
}

/**
 * `commit()`: one statement. Reads the stream's last version and event id,
 * checks them against `$4` and `$5` (null = no check) and inserts every
 * message of `$2` (a JSON array of `{ name, data }`) with `$3` as meta — or
 * nothing. With `keyed`, it also claims the idempotency key `$6` for `$7` ms, for the request `$8` (a
 * digest, or null), unless the stream holds it unexpired, and inserts nothing when it cannot. Returns one row per inserted
 * event (its id, version and time in epoch milliseconds, as the reads return
 * it), or a single row with null id when nothing was inserted, always
 * carrying the version the stream was at and the id of its last event. Two concurrent commits that read
 * the same last version collide on the unique `(stream, version)` index, two
 * with the same key on the keys' primary key: the database decides.
 *
 * Commits without a key (almost all) use the statement without the keys
 * table, so they neither plan nor lock it.
 */
export function commit(n: Names, keyed: boolean): string {
  const claimed = keyed
    ? `, claimed AS (
  INSERT INTO ${n.keys} (stream, key, from_version, to_version, expires, request)
  SELECT $1, $6::text, last.v + 1, last.v + json_array_length($2::json), now() + $7::bigint * interval '1 millisecond', $8::text
  FROM last WHERE ($4::integer IS NULL OR last.v = $4::integer) AND ($5::bigint IS NULL OR last.id = $5::bigint)
  ON CONFLICT (stream, key) DO UPDATE SET
    from_version = EXCLUDED.from_version, to_version = EXCLUDED.to_version, expires = EXCLUDED.expires,
    request = EXCLUDED.request
    WHERE ${n.keys}.expires <= now()
  RETURNING 1
)`
    : "";
  return `
WITH top AS (
  SELECT version, id FROM ${n.events} WHERE stream = $1 ORDER BY version DESC LIMIT 1
), last AS (
  SELECT COALESCE((SELECT version FROM top), -1) AS v, (SELECT id FROM top) AS id
)${claimed}, ins AS (
  INSERT INTO ${n.events} (id, stream, version, name, data, meta, created)
  SELECT (pg_current_xact_id()::text::bigint << ${COMMIT_BITS}) + m.ord - 1, $1, last.v + m.ord, m.msg->>'name', m.msg->'data', $3::json,
    date_trunc('milliseconds', now())
  FROM last CROSS JOIN json_array_elements($2::json) WITH ORDINALITY AS m(msg, ord)
  WHERE ($4::integer IS NULL OR last.v = $4::integer) AND ($5::bigint IS NULL OR last.id = $5::bigint)${keyed ? " AND EXISTS (SELECT 1 FROM claimed)" : ""}
  RETURNING id, version, created
)
SELECT last.v AS last, last.id AS last_id, ins.id, ins.version, floor(extract(epoch FROM ins.created) * 1000)::float8 AS created
FROM last LEFT JOIN ins ON true ORDER BY ins.version`;
}

/**
 * Announces commits to listeners on channel `$1` with payload `$2`, in a transaction of its
 * own. PostgreSQL commits notifying transactions one at a time (it holds a
 * database-wide lock from before the commit until after it), so a `NOTIFY`
 * inside every event commit would forbid concurrent commits from sharing a
 * disk flush and cap the store's write rate. This transaction commits
 * without waiting for the disk: a wake-up lost in a crash only means the
 * consumers' next poll finds the work.
 */
export function notify(): string {
  return `SELECT pg_notify($1::text, $2::text), set_config('synchronous_commit', 'off', true)`;
}

/** The stream's last version (-1 when empty): `$1` stream. */
export function lastVersion(n: Names): string {
  return `SELECT COALESCE((SELECT version FROM ${n.events} WHERE stream = $1 ORDER BY version DESC LIMIT 1), -1) AS v`;
}

/**
 * Deletes up to `$1` expired idempotency keys (the expiry index finds them).
 * Run apart from commits, so a commit never waits for it.
 */
export function purgeKeys(n: Names): string {
  return `DELETE FROM ${n.keys} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${n.keys} WHERE expires <= now() ORDER BY expires LIMIT $1::integer))`;
}

/**
 * The largest stored event id, and the smallest id the next transaction of
 * this server can give (its next transaction id, shifted as ids are). The
 * first must be below the second, or new events would get lower ids than
 * stored ones — a dump restored into a new server.
 */
export function idCheck(n: Names): string {
  return `SELECT COALESCE((SELECT max(id) FROM ${n.events}), -1) AS max_id,
  pg_snapshot_xmax(pg_current_snapshot())::text::bigint << ${COMMIT_BITS} AS next_id`;
}

/** `recall()`: the versions committed under key `$2` on stream `$1`, and for which request, unless expired. */
export function recall(n: Names): string {
  return `SELECT from_version, to_version, request FROM ${n.keys} WHERE stream = $1 AND key = $2 AND expires > now()`;
}

/**
 * `query()`: one SELECT built from the filters, with values as parameters.
 *
 * Reads across streams (no `stream`) are limited to the stable prefix (see
 * `stableEnd`). A read of one stream sees every committed event of the
 * stream: within a stream, commits are serialised by the unique `(stream,
 * version)` index and ids grow with versions, so nothing can commit behind
 * what it read.
 */
export function query(n: Names, q: Query): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const param = (value: unknown, cast = "") => {
    values.push(value);
    return `$${values.length}${cast}`;
  };
  const where: string[] = [];
  if (q.stream !== undefined) {
    const stream = param(q.stream);
    where.push(`stream = ${stream}`);
    if (q.from_snapshot !== undefined)
      where.push(
        `id >= COALESCE((SELECT s.id FROM ${n.events} s WHERE s.stream = ${stream} AND s.name = ${SNAP} AND s.data->>'of' = ${param(q.from_snapshot)} ORDER BY s.id DESC LIMIT 1), -1)`
      );
  }
  if (!q.with_snaps && q.from_snapshot === undefined) where.push(`name <> ${SNAP}`);
  if (q.names) where.push(`name = ANY(${param(q.names, "::text[]")})`);
  if (q.ids) where.push(`id = ANY(${param(q.ids, "::bigint[]")})`);
  if (q.after !== undefined) where.push(`id > ${param(q.after, "::bigint")}`);
  if (q.before !== undefined) where.push(`id < ${param(q.before, "::bigint")}`);
  if (q.created_after) where.push(`created > ${param(q.created_after, "::timestamptz")}`);
  if (q.created_before) where.push(`created < ${param(q.created_before, "::timestamptz")}`);
  if (q.correlation !== undefined) where.push(`meta->>'correlation' = ${param(q.correlation)}`);
  if (q.stream === undefined) where.push(`id < ${stableEnd(n)}`);
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
 * `poll()`: reaction streams with work — correlation recorded an event
 * reacting into them (`head`) past their watermark — that are not blocked,
 * not leased and not waiting out a retry's backoff (`leased_until` in the
 * future). The `$1` lowest watermarks come first (lagging), then the `$2`
 * highest of the rest (leading). With `$3`, only streams whose reactions
 * are all in it: an app never takes a stream for a reaction it lacks.
 */
export function poll(n: Names): string {
  return `
WITH ready AS (
  SELECT stream, source, at FROM ${n.watermarks}
  WHERE NOT blocked AND head > at AND (leased_until IS NULL OR leased_until <= now())
    AND ($3::text[] IS NULL OR reactions <@ $3::text[])
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
 * A CTE for `ack` and `block`: a holder whose lease an operator reset or
 * unblock overtook (same holder, older token) has finished its handlers, so
 * its refused call gives the stream back instead of leaving other drainers to
 * wait for the old lease to run out. It never touches a row the main update
 * changes (those carry the input's token).
 */
const RELEASE_OVERTAKEN = (n: Names) => `overtaken AS (
  UPDATE ${n.watermarks} o SET leased_by = NULL, leased_until = NULL
  FROM input i WHERE o.stream = i.stream AND o.leased_by = i.holder AND o.token > i.token
  RETURNING o.stream)`;

/** The distinct, sorted names of a text array expression (the empty array for NULL). */
const UNION = (names: string) => `ARRAY(SELECT DISTINCT r FROM unnest(COALESCE(${names}, '{}')) AS r ORDER BY r)`;

/** The registration's input row for the conflicting stream (`excluded` has only the table's columns). */
const INPUT_OF = (column: string) => `(SELECT ${column} FROM input WHERE input.stream = excluded.stream)`;

/**
 * Where a registration's joining reactions start on a stream that carries
 * reactions already, for those none of whose names it carries (NULL when
 * none). Evaluated in the update itself, on the row as it is when locked:
 * a registration that waited for another's sees the reactions it added.
 */
const JOIN_AT = `(SELECT min((j->>'at')::bigint) FROM jsonb_array_elements(COALESCE(${INPUT_OF("joining")}, '[]')) j
    WHERE cardinality(w.reactions) > 0
      AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements_text(j->'names') name WHERE name = ANY(w.reactions)))`;

/**
 * `lease(leases, 0)`: registers missing streams at their `at`; widens a
 * stream's source to every stream when another source names it; moves
 * `head` up to the input's and adds the input's reactions to the stream's;
 * returns every stream's stored `retry` and `done`. An existing watermark
 * moves only back, for a reaction that joins a stream already carrying
 * others (none of its names there yet) at a point before it: the joining
 * reaction's events would be skipped otherwise. The watermark then goes
 * back to that point under a new token, retries start over, and the
 * reactions already there are recorded in `ahead` at the old watermark
 * (an entry already further ahead stays).
 *
 * One upsert, in stream order: a stream another transaction is registering
 * at the same moment is waited for and then updated — an insert that
 * skipped it and an update that cannot see it yet would lose this
 * registration's reactions — and two registrations lock their rows in the
 * same order, so they never deadlock.
 */
export function register(n: Names): string {
  return `
WITH ${INPUT("stream text, source text, at bigint, head bigint, reactions text[], joining jsonb")}
INSERT INTO ${n.watermarks} AS w (stream, source, at, head, reactions)
SELECT stream, source, at, GREATEST(at, COALESCE(head, at)), ${UNION("reactions")} FROM input ORDER BY stream
ON CONFLICT (stream) DO UPDATE SET
  -- Reactions from different sources share this stream: it must read them all.
  source = CASE WHEN w.source IS NOT NULL AND w.source IS DISTINCT FROM excluded.source THEN NULL ELSE w.source END,
  head = GREATEST(w.head, COALESCE(${INPUT_OF("head")}, w.head)),
  reactions = ${UNION("w.reactions || excluded.reactions")},
  at = CASE WHEN ${JOIN_AT} < w.at THEN ${JOIN_AT} ELSE w.at END,
  retry = CASE WHEN ${JOIN_AT} < w.at THEN 0 ELSE w.retry END,
  token = CASE WHEN ${JOIN_AT} < w.at THEN w.token + 1 ELSE w.token END,
  ahead = CASE WHEN ${JOIN_AT} < w.at
    THEN COALESCE((SELECT jsonb_object_agg(r, w.at) FROM unnest(w.reactions) r), '{}') || w.ahead
    ELSE w.ahead END
RETURNING w.stream, w.retry, w.done`;
}

/**
 * `lease(leases, millis)`: grants each stream to its holder for `$2` ms
 * unless it is blocked, another holder's lease (or a retry's backoff) has not
 * ended, or its watermark has moved past the lease's `at` — the watermark
 * the drainer polled (another drainer handled those events since: granting
 * it would run them twice). A new lease moves the stream's `token` on. Rows
 * another transaction has locked right now are skipped (`FOR UPDATE SKIP
 * LOCKED`), so competing drainers never wait for each other. Missing streams
 * are registered already leased. Each granted row comes with the stream's
 * `head`: the drain reads no further.
 *
 * An input row with a `token` is a renewal: it extends the lease only where
 * its holder still holds that very token, and it waits for a row lock
 * instead of skipping the row. The lock it meets is a registration's short
 * update of the same row; skipping would take the holder's own lease for
 * one held elsewhere, and the holder would stop in the middle of its work.
 */
export function lease(n: Names): string {
  return `
WITH ${INPUT("stream text, source text, at bigint, holder text, token bigint")},
ins AS (
  INSERT INTO ${n.watermarks} (stream, source, at, head, leased_by, leased_until, token)
  SELECT stream, source, at, at, holder, now() + $2::bigint * interval '1 millisecond', 1 FROM input WHERE token IS NULL
  ON CONFLICT (stream) DO NOTHING
  RETURNING stream, at, retry, done, token, head, ahead
), free AS (
  SELECT w.stream, i.holder FROM ${n.watermarks} w JOIN input i ON i.stream = w.stream
  WHERE i.token IS NULL AND NOT w.blocked AND w.at <= i.at
    AND (w.leased_until IS NULL OR w.leased_until <= now() OR w.leased_by = i.holder)
  FOR UPDATE OF w SKIP LOCKED
), taken AS (
  UPDATE ${n.watermarks} w SET leased_by = f.holder, leased_until = now() + $2::bigint * interval '1 millisecond',
    token = w.token + 1
  FROM free f WHERE w.stream = f.stream
  RETURNING w.stream, w.at, w.retry, w.done, w.token, w.head, w.ahead
), mine AS (
  SELECT w.stream FROM ${n.watermarks} w JOIN input i ON i.stream = w.stream
  WHERE i.token IS NOT NULL AND NOT w.blocked AND w.at <= i.at AND w.leased_by = i.holder AND w.token = i.token
  FOR UPDATE OF w
), renewed AS (
  UPDATE ${n.watermarks} w SET leased_until = now() + $2::bigint * interval '1 millisecond'
  FROM mine m WHERE w.stream = m.stream
  RETURNING w.stream, w.at, w.retry, w.done, w.token, w.head, w.ahead
)
SELECT stream, at, retry, done, token, head, ahead FROM ins
UNION ALL
SELECT stream, at, retry, done, token, head, ahead FROM taken
UNION ALL
SELECT stream, at, retry, done, token, head, ahead FROM renewed`;
}

/** The entries of `ahead` the watermark has not passed: reactions still ahead of it. */
const STILL_AHEAD = `CASE WHEN w.ahead = '{}' THEN w.ahead ELSE COALESCE(
    (SELECT jsonb_object_agg(key, value) FROM jsonb_each(w.ahead) WHERE (value #>> '{}')::bigint > GREATEST(w.at, i.at)),
    '{}') END`;

/** Whether the holder has every reaction the stream carries (or did not say which it has). */
const OWNS = "(i.reactions IS NULL OR w.reactions <@ i.reactions)";

/**
 * The progress of a holder that lacks a reaction the stream gained while it
 * held the lease (a newer release registered it): its own reactions are
 * ahead up to where it got, the watermark stays for the others.
 */
const HOLDER_AHEAD = `w.ahead || COALESCE((SELECT jsonb_object_agg(r, GREATEST(i.at, COALESCE((w.ahead->>r)::bigint, -1)))
    FROM unnest(w.reactions) r WHERE r = ANY(i.reactions) AND i.at > w.at), '{}')`;

/**
 * What `ack` and `block` record for a holder that still holds the stream
 * under the same `token` but lacks a reaction it gained since the lease:
 * the watermark stays (the new reaction has not run), the holder's
 * reactions are recorded as `ahead` up to its progress and its `done` kept,
 * so nothing it ran runs again; the stream is released, not blocked.
 */
const PROGRESS_OF_OTHERS = {
  at: `CASE WHEN ${OWNS} THEN GREATEST(w.at, i.at) ELSE w.at END`,
  done: `CASE WHEN ${OWNS} THEN COALESCE(i.done, '{}') ELSE ${UNION("w.done || i.done")} END`,
  ahead: `CASE WHEN ${OWNS} THEN ${STILL_AHEAD} ELSE ${HOLDER_AHEAD} END`,
};

/**
 * `ack()`: moves the watermark, stores `retry` and `done`, forgets the
 * reactions in `ahead` it passed, releases — where `holder` still holds it
 * under the same `token` and has every reaction the stream carries (when it
 * says which it has); `delay` > 0 keeps the stream out of `poll` for that
 * many ms (the backoff before a retry). A holder that lacks one only
 * records its reactions' progress and releases (see `PROGRESS_OF_OTHERS`);
 * `owns` says which it was.
 */
export function ack(n: Names): string {
  return `
WITH ${INPUT("stream text, holder text, token bigint, reactions text[], at bigint, retry integer, done text[], delay bigint")},
${RELEASE_OVERTAKEN(n)}
UPDATE ${n.watermarks} w SET at = ${PROGRESS_OF_OTHERS.at}, retry = CASE WHEN ${OWNS} THEN i.retry ELSE w.retry END,
  done = ${PROGRESS_OF_OTHERS.done}, ahead = ${PROGRESS_OF_OTHERS.ahead}, leased_by = NULL,
  leased_until = CASE WHEN ${OWNS} AND i.delay > 0 THEN now() + i.delay * interval '1 millisecond' END
FROM input i
WHERE w.stream = i.stream AND w.leased_by = i.holder AND w.token = i.token AND NOT w.blocked
RETURNING w.stream, ${OWNS} AS owns`;
}

/**
 * `block()`: keeps the progress made (`at`, `done`), blocks with the error,
 * stores `retry`, releases — where `holder` still holds it under the same
 * `token`; a holder that lacks a reaction the stream gained since only
 * records its reactions' progress and releases, without blocking.
 */
export function block(n: Names): string {
  return `
WITH ${INPUT("stream text, holder text, token bigint, reactions text[], at bigint, retry integer, done text[], error text")},
${RELEASE_OVERTAKEN(n)}
UPDATE ${n.watermarks} w SET at = ${PROGRESS_OF_OTHERS.at}, done = ${PROGRESS_OF_OTHERS.done},
  ahead = ${PROGRESS_OF_OTHERS.ahead}, blocked = ${OWNS}, error = CASE WHEN ${OWNS} THEN i.error END,
  retry = CASE WHEN ${OWNS} THEN i.retry ELSE w.retry END, leased_by = NULL, leased_until = NULL
FROM input i
WHERE w.stream = i.stream AND w.leased_by = i.holder AND w.token = i.token AND NOT w.blocked
RETURNING w.stream, ${OWNS} AS owns`;
}

/**
 * `reactions()`: the watermarks — all of them, or only the blocked ones
 * (`blocked` true) or the others (false) — at most `$1`, by stream name in
 * byte order. One statement per filter, so each has a plan that reads an
 * index in order (the blocked ones through a partial index): no sort, and
 * `blocked()` never reads the streams that are not. Columns by position (the
 * store reads rows as arrays), the reactions as JSON and the lease's end as
 * epoch milliseconds: on thousands of rows, parsing `text[]` and timestamp
 * text cost more than the statement.
 */
export function reactions(n: Names, blocked?: boolean): string {
  const where = blocked === undefined ? "" : blocked ? "WHERE blocked " : "WHERE NOT blocked ";
  return `
SELECT stream, source, at, head, array_to_json(reactions) AS reactions, token, retry, blocked, error,
  CASE WHEN leased_until > now() THEN leased_by END AS leased_by,
  CASE WHEN leased_until > now() THEN floor(extract(epoch FROM leased_until) * 1000)::float8 END AS leased_until
FROM ${n.watermarks}
${where}ORDER BY stream COLLATE "C" LIMIT $1::bigint`;
}

/**
 * `reactions({ streams })`: the watermarks named in `$2`, blocked or not as
 * `$3` says (null: both), at most `$1`, by stream name in byte order, with
 * the columns of {@link reactions}. The names are looked up through the
 * primary key, so a waiter asking for a few streams reads those rows only,
 * however many the table holds; sorting the few found costs nothing.
 */
export function reactionsIn(n: Names): string {
  return `
SELECT stream, source, at, head, array_to_json(reactions) AS reactions, token, retry, blocked, error,
  CASE WHEN leased_until > now() THEN leased_by END AS leased_by,
  CASE WHEN leased_until > now() THEN floor(extract(epoch FROM leased_until) * 1000)::float8 END AS leased_until
FROM ${n.watermarks}
WHERE stream = ANY($2::text[]) AND ($3::boolean IS NULL OR blocked = $3::boolean)
ORDER BY stream COLLATE "C" LIMIT $1::bigint`;
}

/** `unblock()`: streams `$1` that are blocked resume at their watermark, retries reset, under a new `token`. */
export function unblock(n: Names): string {
  return `
UPDATE ${n.watermarks} SET blocked = false, error = NULL, retry = 0, leased_by = NULL, leased_until = NULL, token = token + 1
WHERE stream = ANY($1::text[]) AND blocked
RETURNING stream`;
}

/** `retire()`: removes the reactions `$1` from every stream that carries one of them. */
export function retire(n: Names): string {
  return `
UPDATE ${n.watermarks} SET reactions = ARRAY(SELECT r FROM unnest(reactions) AS r WHERE r <> ALL($1::text[]) ORDER BY r)
WHERE reactions && $1::text[]
RETURNING stream`;
}

/** `discovered()`: the positions of the reactions `$1` that have one. */
export function discovered(n: Names): string {
  return `SELECT name, at FROM ${n.discovery} WHERE name = ANY($1::text[])`;
}

/**
 * `discover()`: moves the reactions `$1` (no repeats, sorted, so that two
 * racing processes lock the rows in one order) forward to `$2`; a position
 * already past it stays.
 */
export function discover(n: Names): string {
  return `
INSERT INTO ${n.discovery} AS d (name, at) SELECT name, $2::bigint FROM unnest($1::text[]) WITH ORDINALITY AS i (name, o) ORDER BY o
ON CONFLICT (name) DO UPDATE SET at = excluded.at WHERE d.at < excluded.at`;
}

/**
 * `reset()`: streams `$1` go back to watermark `$2`, unblocked, nothing
 * pending, under a new `token` (so no drain in flight records over it). The
 * lease stays until it runs out: its holder may still be running a handler,
 * and no other drainer may start one beside it. `head` stays: a stream reset
 * past it has no work.
 */
export function reset(n: Names): string {
  return `
UPDATE ${n.watermarks} SET at = $2::bigint, done = '{}', ahead = '{}', blocked = false, error = NULL, retry = 0, token = token + 1
WHERE stream = ANY($1::text[])
RETURNING stream`;
}

/**
 * Writers of the events table open longer than `$1` ms (other than this
 * connection): what holds reactions back, for a warning naming them.
 */
export function slowWriters(n: Names): string {
  return `
SELECT a.pid, floor(extract(epoch FROM now() - a.xact_start) * 1000)::float8 AS age_ms
FROM pg_locks r JOIN pg_stat_activity a ON a.pid = r.pid
WHERE r.locktype = 'relation' AND r.relation = '${n.events.replace(/'/g, "''")}'::regclass AND r.mode = 'RowExclusiveLock'
  AND a.pid <> pg_backend_pid() AND a.backend_xid IS NOT NULL AND a.xact_start < now() - $1::bigint * interval '1 millisecond'
ORDER BY a.xact_start`;
}
