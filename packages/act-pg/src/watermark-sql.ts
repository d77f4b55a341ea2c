/**
 * The SQL of the PostgreSQL store's reaction streams: one plain statement per
 * operation on the watermarks table — polling for work, registering streams,
 * leases and their renewals, acknowledgements and blocks, the operator
 * commands — and on the discovery positions. Every value is a `$n`
 * parameter; the inputs of the statements that take many streams at once
 * are one JSON array (`$1`). The events and their reads are in `sql.ts`.
 */
import type { Names } from "./sql.js";

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
ON CONFLICT (${n.scope}stream) DO UPDATE SET
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
  ON CONFLICT (${n.scope}stream) DO NOTHING
  RETURNING stream, at, retry, done, token, head, ahead, reactions
), free AS (
  SELECT w.stream, i.holder FROM ${n.watermarks} w JOIN input i ON i.stream = w.stream
  WHERE i.token IS NULL AND NOT w.blocked AND w.at <= i.at
    AND (w.leased_until IS NULL OR w.leased_until <= now() OR w.leased_by = i.holder)
  FOR UPDATE OF w SKIP LOCKED
), taken AS (
  UPDATE ${n.watermarks} w SET leased_by = f.holder, leased_until = now() + $2::bigint * interval '1 millisecond',
    token = w.token + 1
  FROM free f WHERE w.stream = f.stream
  RETURNING w.stream, w.at, w.retry, w.done, w.token, w.head, w.ahead, w.reactions
), mine AS (
  SELECT w.stream FROM ${n.watermarks} w JOIN input i ON i.stream = w.stream
  WHERE i.token IS NOT NULL AND NOT w.blocked AND w.at <= i.at AND w.leased_by = i.holder AND w.token = i.token
  FOR UPDATE OF w
), renewed AS (
  UPDATE ${n.watermarks} w SET leased_until = now() + $2::bigint * interval '1 millisecond'
  FROM mine m WHERE w.stream = m.stream
  RETURNING w.stream, w.at, w.retry, w.done, w.token, w.head, w.ahead, w.reactions
)
SELECT stream, at, retry, done, token, head, ahead, reactions FROM ins
UNION ALL
SELECT stream, at, retry, done, token, head, ahead, reactions FROM taken
UNION ALL
SELECT stream, at, retry, done, token, head, ahead, reactions FROM renewed`;
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
ON CONFLICT (${n.scope}name) DO UPDATE SET at = excluded.at WHERE d.at < excluded.at`;
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
