/**
 * Timers (see `TimerStore`): scheduling, cancelling, claiming the due ones,
 * recording how they ended, and the reads `next`, `list` and `count`. Every
 * operation is one statement of `timer-sql.ts`, its timers passed as one
 * JSON parameter where it takes many.
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
import type pg from "pg";
import type { Database } from "./database.js";
import type { DriverError } from "./errors.js";

/** A row of the claim and the listing, by name. */
type TimerRow = {
  id: string;
  action: string;
  stream: string;
  actor: { id: string; name: string };
  payload: unknown;
  due: number;
  correlation: string | null;
  token: number;
  attempts: number;
  status: StoredTimer["status"];
  claimed_by: string | null;
  claimed_until: number;
  fired: number | null;
  error: string | null;
};

/** What every listing hands out of a row's first columns. */
const scheduledOf = (r: TimerRow): ScheduledTimer => ({
  id: r.id,
  action: r.action,
  stream: r.stream,
  actor: { id: r.actor.id, name: r.actor.name },
  payload: r.payload,
  due: new Date(r.due),
  ...(r.correlation !== null && { correlation: r.correlation }),
});

/** The JSON array `scheduleTimers` takes, each payload through the check every store applies to what it keeps as JSON. */
function inputOf(timers: readonly ScheduledTimer[]): string {
  return `[${timers
    .map(
      (t) =>
        `{"id":${JSON.stringify(t.id)},"action":${JSON.stringify(t.action)},"stream":${JSON.stringify(t.stream)},` +
        `"actor":${stringifyJson({ id: t.actor.id, name: t.actor.name }, "PostgresStore timers.schedule: actor")},` +
        `"payload":${stringifyJson(t.payload ?? null, `PostgresStore timers.schedule: payload of timer "${t.id}"`)},` +
        `"due":${t.due.getTime()},"correlation":${JSON.stringify(t.correlation ?? null)}}`
    )
    .join(",")}]`;
}

/** Earliest due first, then by id (`RETURNING` keeps no order). */
const byDue = (a: ClaimedTimer, b: ClaimedTimer) =>
  a.due.getTime() - b.due.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The timers of one PostgreSQL store. */
export class Timers implements TimerStore {
  constructor(private readonly db: Database) {}

  async schedule(timers: readonly ScheduledTimer[]): Promise<string[]> {
    checkScheduled(timers);
    if (!timers.length) return [];
    const input = inputOf(timers);
    const { rows } = await this.db.run<{ id: string }>("timers.schedule", this.db.statements.scheduleTimers, [input]);
    const kept = new Set(rows.map((r) => r.id));
    return timers.map((t) => t.id).filter((id, i, all) => kept.has(id) && all.indexOf(id) === i);
  }

  /**
   * The timer writes of a commit (`InlineCommit.timers`), checked now: the
   * returned function writes them on the commit's transaction client, so
   * they are kept with the events or not at all.
   *
   * @param changes - the timers to schedule and cancel
   */
  within(changes: TimerChanges): (client: pg.ClientBase) => Promise<void> {
    const cancel = checkTimerChanges(changes);
    const input = changes.schedule.length ? inputOf(changes.schedule) : undefined;
    const at = changes.now.getTime();
    const { scheduleTimers, cancelTimers } = this.db.statements;
    return async (client) => {
      try {
        if (input) await client.query({ name: this.db.name(scheduleTimers), text: scheduleTimers, values: [input] });
        if (cancel.length)
          await client.query({ name: this.db.name(cancelTimers), text: cancelTimers, values: [cancel, at] });
      } catch (error) {
        throw this.db.failure("timers of a commit", error as DriverError);
      }
    };
  }

  async cancel(ids: readonly string[], now: Date): Promise<string[]> {
    const unique = checkTimerIds(ids);
    const at = checkNow(now).getTime();
    if (!unique.length) return [];
    const { rows } = await this.db.run<{ id: string }>("timers.cancel", this.db.statements.cancelTimers, [unique, at]);
    const cancelled = new Set(rows.map((r) => r.id));
    return unique.filter((id) => cancelled.has(id));
  }

  async claim(claim: TimerClaim): Promise<ClaimedTimer[]> {
    checkTimerClaim(claim);
    if (!claim.limit || !claim.actions.length) return [];
    const { rows } = await this.db.run<TimerRow>("timers.claim", this.db.statements.claimTimers, [
      claim.by,
      claim.now.getTime(),
      claim.millis,
      claim.actions,
      claim.limit,
    ]);
    return rows.map((r) => ({ ...scheduledOf(r), token: r.token, attempts: r.attempts })).sort(byDue);
  }

  async settle(outcomes: readonly TimerOutcome[]): Promise<string[]> {
    checkTimerOutcomes(outcomes);
    if (!outcomes.length) return [];
    const input = outcomes.map((o) => ({
      id: o.id,
      holder: o.by,
      token: o.token,
      at: o.at.getTime(),
      error: o.error ?? null,
      retry_at: o.retryAt?.getTime() ?? null,
    }));
    const { rows } = await this.db.run<{ id: string }>("timers.settle", this.db.statements.settleTimers, [
      JSON.stringify(input),
      outcomes.map((o) => o.id),
    ]);
    const settled = new Set(rows.map((r) => r.id));
    return outcomes.map((o) => o.id).filter((id) => settled.has(id));
  }

  async next(actions: readonly string[]): Promise<Date | undefined> {
    const { rows } = await this.db.run<{ next: number | null }>("timers.next", this.db.statements.nextTimer, [actions]);
    const next = rows[0]?.next;
    return next === null || next === undefined ? undefined : new Date(next);
  }

  async list(filter: TimerFilter = {}): Promise<StoredTimer[]> {
    const ids = filter.ids ? checkTimerIds(filter.ids) : null;
    const { rows } = await this.db.run<TimerRow>("timers.list", this.db.statements.listTimers, [
      filter.status ?? null,
      ids,
      filter.limit ?? null,
    ]);
    return rows.map((r) => ({
      ...scheduledOf(r),
      status: r.status,
      token: r.token,
      attempts: r.attempts,
      ...(r.claimed_by !== null && { claimedBy: r.claimed_by }),
      ...(r.claimed_until > 0 && { claimedUntil: new Date(r.claimed_until) }),
      ...(r.fired !== null && { fired: new Date(r.fired) }),
      ...(r.error !== null && { error: r.error }),
    }));
  }

  async count(now: Date): Promise<TimerCounts> {
    const { rows } = await this.db.run<TimerCounts>("timers.count", this.db.statements.countTimers, [
      checkNow(now).getTime(),
    ]);
    return { pending: Number(rows[0]?.pending ?? 0), overdue: Number(rows[0]?.overdue ?? 0) };
  }
}
