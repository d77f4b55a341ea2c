/**
 * Timers (see `TimerStore`): scheduling, cancelling, claiming the due ones,
 * recording how they ended, and the reads `next`, `list` and `count`. Each
 * change is one write transaction over the statements of `SQL` in
 * `schema.ts`, so two claims — in this process or another — never take the
 * same timer.
 */
import type {
  ClaimedTimer,
  ScheduledTimer,
  StoredTimer,
  TimerClaim,
  TimerCounts,
  TimerChanges,
  TimerFilter,
  TimerOutcome,
  TimerStore,
} from "@act-root/act";
import {
  checkNow,
  checkScheduled,
  checkTimerChanges,
  checkTimerClaim,
  checkTimerIds,
  checkTimerOutcomes,
  stringifyJson,
} from "@act-root/act/internal";
import type { Database } from "./database.js";
import type { Connection } from "./driver.js";
import { SQL } from "./schema.js";

/** The first columns of the claim and the listing: id, action, stream, actor and payload (JSON), due, correlation. */
type Scheduled = [string, string, string, string, string, number, string | null];
/** A row of `SQL.claimTimers`: then token and attempts. */
type ClaimedRow = [...Scheduled, number, number];
/** A row of `SQL.listTimers`: then status, token, attempts, claimed_by, claimed_until, fired and error. */
type TimerRow = [...Scheduled, string, number, number, string | null, number, number | null, string | null];

/** What every listing hands out of a row's first columns. */
function scheduledOf([id, action, stream, actor, payload, due, correlation]: ClaimedRow | TimerRow): ScheduledTimer {
  const timer = { id, action, stream, actor: JSON.parse(actor), payload: JSON.parse(payload), due: new Date(due) };
  return correlation === null || correlation === undefined ? timer : { ...timer, correlation };
}

/** The values of `SQL.scheduleTimer` for each timer, their JSON checked. */
function rowsOf(timers: readonly ScheduledTimer[]): unknown[][] {
  return timers.map((t) => [
    t.id,
    t.action,
    t.stream,
    stringifyJson(t.actor, "SqliteStore timers.schedule: actor"),
    stringifyJson(t.payload ?? null, `SqliteStore timers.schedule: payload of timer "${t.id}"`),
    t.due.getTime(),
    t.correlation ?? null,
  ]);
}

/** Earliest due first, then by id (`RETURNING` keeps no order). */
const byDue = (a: ClaimedTimer, b: ClaimedTimer) =>
  a.due.getTime() - b.due.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The timers of one SQLite store. */
export class Timers implements TimerStore {
  constructor(private readonly db: Database) {}

  async schedule(timers: readonly ScheduledTimer[]): Promise<string[]> {
    checkScheduled(timers);
    const rows = rowsOf(timers);
    if (!rows.length) return [];
    const insert = this.db.statement("timers.schedule", SQL.scheduleTimer);
    return this.db.write("timers.schedule", () =>
      rows.flatMap((row) => insert.rows(...row).map(([id]) => id as string))
    );
  }

  /**
   * The timer writes of a commit (`InlineCommit.timers`), checked now: the
   * returned work writes them inside the commit's transaction, then runs
   * the commit's own `work`, so they are kept with the events or not at all.
   *
   * @param changes - the timers to schedule and cancel
   * @param operation - the commit, for errors
   * @param work - the commit's inline work
   */
  within<W extends (events: any[], db: Connection) => unknown>(changes: TimerChanges, operation: string, work: W): W {
    const cancel = checkTimerChanges(changes);
    const rows = rowsOf(changes.schedule);
    const at = changes.now.getTime();
    return ((events: any[], db: Connection) => {
      const insert = this.db.statement(operation, SQL.scheduleTimer);
      for (const row of rows) insert.rows(...row);
      const drop = this.db.statement(operation, SQL.cancelTimer);
      for (const id of cancel) drop.rows(id, at);
      return work(events, db);
    }) as W;
  }

  async cancel(ids: readonly string[], now: Date): Promise<string[]> {
    const unique = checkTimerIds(ids);
    const at = checkNow(now).getTime();
    if (!unique.length) return [];
    const cancel = this.db.statement("timers.cancel", SQL.cancelTimer);
    return this.db.write("timers.cancel", () => unique.filter((id) => cancel.rows(id, at).length > 0));
  }

  async claim(claim: TimerClaim): Promise<ClaimedTimer[]> {
    checkTimerClaim(claim);
    if (!claim.limit || !claim.actions.length) return [];
    const update = this.db.statement("timers.claim", SQL.claimTimers);
    const rows = this.db.write(
      "timers.claim",
      () =>
        update.rows(
          claim.by,
          claim.now.getTime(),
          claim.millis,
          JSON.stringify(claim.actions),
          claim.limit
        ) as ClaimedRow[]
    );
    return rows.map((row) => ({ ...scheduledOf(row), token: row[7], attempts: row[8] })).sort(byDue);
  }

  async settle(outcomes: readonly TimerOutcome[]): Promise<string[]> {
    checkTimerOutcomes(outcomes);
    if (!outcomes.length) return [];
    const update = this.db.statement("timers.settle", SQL.settleTimer);
    return this.db.write("timers.settle", () =>
      outcomes
        .filter(
          (o) =>
            update.rows(o.id, o.by, o.token, o.at.getTime(), o.error ?? null, o.retryAt?.getTime() ?? null).length > 0
        )
        .map((o) => o.id)
    );
  }

  async next(actions: readonly string[]): Promise<Date | undefined> {
    const [row] = this.db.read("timers.next", SQL.nextTimer, JSON.stringify(actions));
    const next = row?.[0];
    return next === null || next === undefined ? undefined : new Date(Number(next));
  }

  async list(filter: TimerFilter = {}): Promise<StoredTimer[]> {
    const ids = filter.ids ? JSON.stringify(checkTimerIds(filter.ids)) : null;
    const rows = this.db.read(
      "timers.list",
      SQL.listTimers,
      filter.status ?? null,
      ids,
      filter.limit ?? -1
    ) as TimerRow[];
    return rows.map((row) => {
      const [, , , , , , , status, token, attempts, by, until, fired, error] = row;
      return {
        ...scheduledOf(row),
        status: status as StoredTimer["status"],
        token,
        attempts,
        ...(by !== null && { claimedBy: by }),
        ...(until > 0 && { claimedUntil: new Date(until) }),
        ...(fired !== null && { fired: new Date(fired) }),
        ...(error !== null && { error }),
      };
    });
  }

  async count(now: Date): Promise<TimerCounts> {
    const [row] = this.db.read("timers.count", SQL.countTimers, checkNow(now).getTime());
    return { pending: Number(row?.[0] ?? 0), overdue: Number(row?.[1] ?? 0) };
  }
}
