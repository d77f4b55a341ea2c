/**
 * The SQL of the PostgreSQL store's timers (see `TimerStore`): one plain
 * statement per operation on the timers table. Times are `bigint` epoch
 * milliseconds by the caller's clock; every value is a `$n` parameter, and
 * the statements that take many timers take them as one JSON array (`$1`).
 */
import type { Names } from "./sql.js";

/** New pending timers from `$1`; ids the table has are left as they are. Returns the ids kept. */
export function scheduleTimers(n: Names): string {
  return `INSERT INTO ${n.timers} (id, action, stream, actor, payload, due, correlation)
SELECT id, action, stream, actor, payload, due, correlation FROM json_to_recordset($1::json)
  AS i(id text, action text, stream text, actor json, payload json, due bigint, correlation text)
ON CONFLICT (${n.scope}id) DO NOTHING RETURNING id`;
}

/** Cancels the pending timers of `$1` (text[]) that no claim holds past `$2`; a new generation each. */
export function cancelTimers(n: Names): string {
  return `UPDATE ${n.timers} SET status = 'cancelled', claimed_by = NULL, claimed_until = 0, token = token + 1
WHERE id = ANY($1::text[]) AND status = 'pending' AND claimed_until <= $2::bigint RETURNING id`;
}

/**
 * Claims for `$1` until `$2 + $3` the `$5` earliest due pending timers, due
 * by `$2`, whose action is in `$4` and whose claim or wait ended by `$2`: a
 * new generation and one more attempt each. `SKIP LOCKED`: a concurrent
 * claim passes over the rows this one locked instead of waiting to take them
 * too (it re-reads each row it locks, so a timer claimed meanwhile is not
 * taken twice).
 */
export function claimTimers(n: Names): string {
  return `UPDATE ${n.timers} SET claimed_by = $1, claimed_until = $2::bigint + $3::bigint, token = token + 1, attempts = attempts + 1
WHERE id IN (
  SELECT id FROM ${n.timers}
  WHERE status = 'pending' AND due <= $2::bigint AND claimed_until <= $2::bigint AND action = ANY($4::text[])
  ORDER BY due, id COLLATE "C" LIMIT $5 FOR UPDATE SKIP LOCKED)
RETURNING id, action, stream, actor, payload, due, correlation, token, attempts`;
}

/**
 * The outcomes of `$1`, each only from the claim's holder with its token:
 * with `retry_at`, pending again until then; else fired (no `error`) or
 * failed, at `at`. `$2` lists their ids (text[]) so the rows are found by
 * the primary key whatever the table's statistics say: joined to the JSON
 * alone, a timers table not analysed yet — a new app's, or one that just
 * received a batch of timers — was read whole for every outcome (a hash join
 * over every pending timer, 354 ms with 100,000 pending, until autovacuum's
 * analyse ran).
 */
export function settleTimers(n: Names): string {
  return `UPDATE ${n.timers} t SET claimed_by = NULL, error = i.error, claimed_until = COALESCE(i.retry_at, 0),
  status = CASE WHEN i.retry_at IS NOT NULL THEN 'pending' WHEN i.error IS NULL THEN 'fired' ELSE 'failed' END,
  fired = CASE WHEN i.retry_at IS NULL THEN i.at ELSE t.fired END
FROM json_to_recordset($1::json) AS i(id text, holder text, token bigint, at bigint, error text, retry_at bigint)
WHERE t.id = ANY($2::text[]) AND t.id = i.id AND t.status = 'pending' AND t.claimed_by = i.holder AND t.token = i.token
RETURNING t.id`;
}

/** When the next pending timer of the actions in `$1` is due or its claim ends. */
export function nextTimer(n: Names): string {
  // Two index searches rather than a read of every pending timer: the earliest due one no claim holds past its due
  // time, and the earliest end among the claimed ones (LEAST skips a NULL).
  return `SELECT LEAST(
  (SELECT due FROM ${n.timers} WHERE status = 'pending' AND claimed_until <= due AND action = ANY($1::text[]) ORDER BY due LIMIT 1),
  (SELECT min(claimed_until) FROM ${n.timers} WHERE status = 'pending' AND claimed_until > 0 AND claimed_until > due AND action = ANY($1::text[]))
) AS next`;
}

/** Timers in status `$1` (null: any), with ids in `$2` (null: any), the earliest due first, up to `$3` (null: all). */
export function listTimers(n: Names): string {
  return `SELECT id, action, stream, actor, payload, due, correlation, status, token, attempts, claimed_by, claimed_until, fired, error
FROM ${n.timers} WHERE ($1::text IS NULL OR status = $1) AND ($2::text[] IS NULL OR id = ANY($2::text[]))
ORDER BY due, id COLLATE "C" LIMIT $3::bigint`;
}

/**
 * Pending timers, and those due by `$1`: two counts the pending index
 * answers — its entries, and a search of its start for the overdue ones
 * (the fired, failed and cancelled timers a table keeps are never read).
 */
export function countTimers(n: Names): string {
  return `SELECT (SELECT count(*) FROM ${n.timers} WHERE status = 'pending') AS pending,
  (SELECT count(*) FROM ${n.timers} WHERE status = 'pending' AND due <= $1::bigint) AS overdue`;
}
