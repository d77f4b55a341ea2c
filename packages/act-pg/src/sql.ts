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
  /** `"schema"."table_timers"`: scheduled actions. */
  readonly timers: string;
  /** The LISTEN/NOTIFY channel commits are announced on (see `channel`). */
  readonly channel: string;
  /** Unquoted parts, for index names and catalog lookups. */
  readonly raw: { readonly schema: string; readonly table: string };
  /**
   * The tenant whose rows this store sees in tables shared by every tenant
   * (`postgresSharedTenants`), or undefined for tables of the store's own.
   */
  readonly tenant?: string;
  /** `"tenant, "` in shared tables, where the tenant leads every key and index; otherwise empty. */
  readonly scope: string;
  /** The tenant column's definition in shared tables (the tenant set for the transaction fills it); otherwise empty. */
  readonly tenantColumn: string;
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

/**
 * Builds the names from validated identifiers; with a (checked) tenant id,
 * those of shared tables: a tenant column leading every key, and a channel
 * per tenant, so one tenant's commits wake only its own consumers.
 */
export function names(schema: string, table: string, tenant?: string): Names {
  const q = (s: string) => `"${s}"`;
  return {
    schema: q(schema),
    events: `${q(schema)}.${q(table)}`,
    watermarks: `${q(schema)}.${q(`${table}_watermarks`)}`,
    keys: `${q(schema)}.${q(`${table}_keys`)}`,
    discovery: `${q(schema)}.${q(`${table}_discovery`)}`,
    timers: `${q(schema)}.${q(`${table}_timers`)}`,
    channel: channel(schema, tenant === undefined ? table : `${table}/${tenant}`),
    raw: { schema, table },
    ...(tenant !== undefined && { tenant }),
    scope: tenant === undefined ? "" : "tenant, ",
    tenantColumn: tenant === undefined ? "" : "\n  tenant text NOT NULL DEFAULT current_setting('act.tenant'),",
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
CREATE TABLE IF NOT EXISTS ${n.events} (${n.tenantColumn}
  id bigint NOT NULL,
  stream text NOT NULL,
  version integer NOT NULL,
  name text NOT NULL,
  data json NOT NULL,
  meta json NOT NULL,
  created timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  PRIMARY KEY (${n.scope}id)
);
CREATE UNIQUE INDEX IF NOT EXISTS "${table}_stream_version" ON ${n.events} (${n.scope}stream, version);
CREATE INDEX IF NOT EXISTS "${table}_stream_id" ON ${n.events} (${n.scope}stream, id);
CREATE INDEX IF NOT EXISTS "${table}_snapshots" ON ${n.events} (${n.scope}stream, id) WHERE name = ${SNAP};
CREATE TABLE IF NOT EXISTS ${n.watermarks} (${n.tenantColumn}
  stream text NOT NULL,
  source text,
  at bigint NOT NULL,
  retry integer NOT NULL DEFAULT 0,
  blocked boolean NOT NULL DEFAULT false,
  error text,
  leased_by text,
  leased_until timestamptz,
  PRIMARY KEY (${n.scope}stream)
);
ALTER TABLE ${n.watermarks} ADD COLUMN IF NOT EXISTS done text[] NOT NULL DEFAULT '{}';
ALTER TABLE ${n.watermarks} ADD COLUMN IF NOT EXISTS head bigint NOT NULL DEFAULT -1;
ALTER TABLE ${n.watermarks} ADD COLUMN IF NOT EXISTS token bigint NOT NULL DEFAULT 0;
ALTER TABLE ${n.watermarks} ADD COLUMN IF NOT EXISTS reactions text[] NOT NULL DEFAULT '{}';
-- Reactions that handled a stream past its watermark (it moved back for one that joined late), by name.
ALTER TABLE ${n.watermarks} ADD COLUMN IF NOT EXISTS ahead jsonb NOT NULL DEFAULT '{}';
-- reactions() lists streams by name in byte order: read in index order, not sorted on each call.
CREATE INDEX IF NOT EXISTS "${table}_watermarks_by_name" ON ${n.watermarks} (${n.scope}stream COLLATE "C");
CREATE INDEX IF NOT EXISTS "${table}_watermarks_blocked" ON ${n.watermarks} (${n.scope}stream COLLATE "C") WHERE blocked;
-- poll() reads only the streams with work: thousands of caught-up ones cost it nothing.
CREATE INDEX IF NOT EXISTS "${table}_watermarks_ready" ON ${n.watermarks} (${n.scope}at, stream) WHERE head > at AND NOT blocked;
CREATE TABLE IF NOT EXISTS ${n.keys} (${n.tenantColumn}
  stream text NOT NULL,
  key text NOT NULL,
  from_version integer NOT NULL,
  to_version integer NOT NULL,
  expires timestamptz NOT NULL,
  PRIMARY KEY (${n.scope}stream, key)
);
-- What the request that used the key asked for (a digest); keys stored before have none.
ALTER TABLE ${n.keys} ADD COLUMN IF NOT EXISTS request text;
CREATE INDEX IF NOT EXISTS "${table}_keys_expires" ON ${n.keys} (expires);
CREATE TABLE IF NOT EXISTS ${n.discovery} (${n.tenantColumn}
  name text NOT NULL,
  at bigint NOT NULL,
  PRIMARY KEY (${n.scope}name)
);
-- Scheduled actions; times in epoch ms by the clock of the app that wrote them (claimed_until 0: no claim).
CREATE TABLE IF NOT EXISTS ${n.timers} (${n.tenantColumn}
  id text NOT NULL,
  action text NOT NULL,
  stream text NOT NULL,
  actor json NOT NULL,
  payload json NOT NULL,
  due bigint NOT NULL,
  status text NOT NULL DEFAULT 'pending',
  token bigint NOT NULL DEFAULT 0,
  attempts integer NOT NULL DEFAULT 0,
  claimed_by text,
  claimed_until bigint NOT NULL DEFAULT 0,
  fired bigint,
  error text,
  correlation text,
  PRIMARY KEY (${n.scope}id)
);
-- Tables written before timers carried their scheduling action's correlation lack the column.
ALTER TABLE ${n.timers} ADD COLUMN IF NOT EXISTS correlation text;
-- Claims read only pending timers, in due order.
CREATE INDEX IF NOT EXISTS "${table}_timers_pending" ON ${n.timers} (${n.scope}due, id) WHERE status = 'pending';
-- When the next timer is due reads only the claimed ones here, a few at a time.
CREATE INDEX IF NOT EXISTS "${table}_timers_claimed" ON ${n.timers} (${n.scope}claimed_until) WHERE status = 'pending' AND claimed_until > 0;`;
}

/** `drop()`: removes the tables (the schema separately, only when empty and not `public`). */
export function drop(n: Names): string {
  return `DROP TABLE IF EXISTS ${n.timers}; DROP TABLE IF EXISTS ${n.discovery}; DROP TABLE IF EXISTS ${n.keys}; DROP TABLE IF EXISTS ${n.watermarks}; DROP TABLE IF EXISTS ${n.events};`;
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
 *
 * With `announcing`, the statement also sends the store's notification:
 * `pg_notify` on channel `$6` (`$9` when keyed) with payload `$7` (`$10`),
 * delivered when the commit is visible — or at once, when nothing was
 * inserted (a wake-up with nothing new is harmless; the payload may announce
 * earlier commits too). A store uses it for one commit per
 * announcement spacing (see `notify.ts`), which spares that announcement a
 * statement and a transaction of its own.
 */
export function commit(n: Names, keyed: boolean, announcing = false): string {
  const channel = keyed ? 9 : 6;
  const announced = announcing
    ? ` CROSS JOIN (SELECT pg_notify($${channel}::text, $${channel + 1}::text)) AS announced`
    : "";
  const claimed = keyed
    ? `, claimed AS (
  INSERT INTO ${n.keys} (stream, key, from_version, to_version, expires, request)
  SELECT $1, $6::text, last.v + 1, last.v + json_array_length($2::json), now() + $7::bigint * interval '1 millisecond', $8::text
  FROM last WHERE ($4::integer IS NULL OR last.v = $4::integer) AND ($5::bigint IS NULL OR last.id = $5::bigint)
  ON CONFLICT (${n.scope}stream, key) DO UPDATE SET
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
FROM last${announced} LEFT JOIN ins ON true ORDER BY ins.version`;
}

/**
 * `commit()` when the caller knows where the stream ends — what an app's
 * action always sends: the last version `$4` (-1 for a stream it found
 * empty) and the id `$5` of the event at that version (null for -1). One
 * INSERT, with no read of the stream's last event first: the messages of
 * `$2` go in at the versions after `$4`, with `$3` as meta, if the event at
 * version `$4` is the one with id `$5` (for -1: if the stream has no event
 * at all). A stream that went on past `$4` already holds version `$4 + 1`,
 * so the insert collides with it on the unique `(stream, version)` index;
 * one dropped and written again has another event at `$4`, and the insert
 * is skipped. The checks are those of {@link commit}, made by an index probe
 * and the index itself; measured against a bare single-row INSERT on the
 * same connection, the statement ran at 0.81–0.86 of its rate where
 * {@link commit}'s ran at 0.71–0.73.
 *
 * Returns one row per inserted event (its id, version and time in epoch
 * milliseconds), none when the check refused. With `announcing`, it also
 * sends the store's notification (channel `$6`, payload `$7`, see
 * {@link commit}) — not always when it inserts nothing, so a refusal
 * announces again later what the payload held.
 */
export function commitChecked(n: Names, announcing = false): string {
  const announced = announcing ? " CROSS JOIN (SELECT pg_notify($6::text, $7::text)) AS announced" : "";
  return `
INSERT INTO ${n.events} (id, stream, version, name, data, meta, created)
SELECT (pg_current_xact_id()::text::bigint << ${COMMIT_BITS}) + m.ord - 1, $1, $4::integer + m.ord, m.msg->>'name', m.msg->'data', $3::json,
  date_trunc('milliseconds', now())
FROM json_array_elements($2::json) WITH ORDINALITY AS m(msg, ord)${announced}
WHERE CASE WHEN $4::integer = -1 THEN NOT EXISTS (SELECT 1 FROM ${n.events} WHERE stream = $1)
  ELSE EXISTS (SELECT 1 FROM ${n.events} WHERE stream = $1 AND version = $4::integer AND id = $5::bigint) END
RETURNING id, version, floor(extract(epoch FROM created) * 1000)::float8 AS created`;
}

/**
 * Announces commits to listeners on channel `$1` with payload `$2`, in a transaction of its
 * own: what is still queued once commits stopped (see `notify.ts`; while they
 * go on, one per spacing carries the notification in its own statement).
 * PostgreSQL commits notifying transactions one at a time (it holds a
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
