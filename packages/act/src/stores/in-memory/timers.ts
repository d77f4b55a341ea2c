/**
 * Timers: scheduling, cancelling, claiming the due ones, recording how they
 * ended, and the listings of `next`, `list` and `count` (see `TimerStore`).
 * Each operation runs in one synchronous step, so two claims never interleave.
 */
import {
  checkNow,
  checkScheduled,
  checkTimerChanges,
  checkTimerClaim,
  checkTimerIds,
  checkTimerOutcomes,
} from "../../core/timer-inputs.js";
import { copyJson } from "../../core/json.js";
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
} from "../../types/timers.js";
import type { Database, TimerRow } from "./database.js";

/** Earliest due first, then by id: the order of claims and listings. */
const byDue = (a: TimerRow, b: TimerRow) => a.due - b.due || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The rows `keep` accepts, ordered by {@link byDue}, at most `limit` of them:
 * the earliest due of many pending timers without copying and sorting them
 * all (a claim of 100 among a million pending read every row into a new
 * array first, 126 ms and 8 MB a drain).
 */
function earliest(rows: Iterable<TimerRow>, keep: (t: TimerRow) => boolean, limit = Number.POSITIVE_INFINITY) {
  if (!Number.isFinite(limit)) return [...rows].filter(keep).sort(byDue);
  const first: TimerRow[] = [];
  if (limit <= 0) return first;
  for (const t of rows) {
    if (!keep(t) || (first.length === limit && byDue(t, first[limit - 1]) >= 0)) continue;
    let lo = 0;
    let hi = first.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (byDue(first[mid], t) <= 0) lo = mid + 1;
      else hi = mid;
    }
    first.splice(lo, 0, t);
    if (first.length > limit) first.pop();
  }
  return first;
}

/** What the store hands out of a row: what it was given, and dates. */
const scheduledOf = (t: TimerRow): ScheduledTimer => ({
  id: t.id,
  action: t.action,
  stream: t.stream,
  actor: { id: t.actor.id, name: t.actor.name },
  payload: t.payload,
  due: new Date(t.due),
  ...(t.correlation !== undefined && { correlation: t.correlation }),
});

/** The timers of one in-memory store. */
export class Timers implements TimerStore {
  constructor(private readonly db: Database) {}

  async schedule(timers: readonly ScheduledTimer[]): Promise<string[]> {
    checkScheduled(timers);
    return this.keep(timers);
  }

  async cancel(ids: readonly string[], now: Date): Promise<string[]> {
    return this.drop(checkTimerIds(ids), checkNow(now).getTime());
  }

  /**
   * The timer writes of a commit (`InlineCommit.timers`), checked, as one
   * synchronous step: the caller runs it right before appending the events,
   * with no await between, so both happen or neither does.
   *
   * @returns the step, to run when the events are appended
   */
  within(changes: TimerChanges): () => void {
    const cancel = checkTimerChanges(changes);
    const rows = this.rows(changes.schedule);
    const at = changes.now.getTime();
    return () => {
      this.add(rows);
      this.drop(cancel, at);
    };
  }

  /** Checked timers, their payloads copied (so a bad payload fails before anything is kept). */
  private rows(timers: readonly ScheduledTimer[]) {
    return timers.map((t) => ({ t, payload: copyJson(t.payload, "timer payload") }));
  }

  private keep(timers: readonly ScheduledTimer[]): string[] {
    return this.add(this.rows(timers));
  }

  private add(rows: { t: ScheduledTimer; payload: unknown }[]): string[] {
    const kept: string[] = [];
    for (const { t, payload } of rows) {
      if (this.db.timers.has(t.id)) continue;
      this.db.timers.set(t.id, {
        id: t.id,
        action: t.action,
        stream: t.stream,
        actor: { id: t.actor.id, name: t.actor.name },
        payload,
        due: t.due.getTime(),
        status: "pending",
        token: 0,
        attempts: 0,
        until: 0,
        ...(t.correlation !== undefined && { correlation: t.correlation }),
      });
      kept.push(t.id);
    }
    return kept;
  }

  private drop(ids: readonly string[], at: number): string[] {
    const cancelled: string[] = [];
    for (const id of ids) {
      const t = this.db.timers.get(id);
      if (t?.status !== "pending" || (t.by !== undefined && t.until > at)) continue;
      Object.assign(t, { status: "cancelled", by: undefined, until: 0, token: t.token + 1 });
      cancelled.push(id);
    }
    return cancelled;
  }

  async claim(claim: TimerClaim): Promise<ClaimedTimer[]> {
    checkTimerClaim(claim);
    const now = claim.now.getTime();
    const actions = new Set(claim.actions);
    const due = earliest(
      this.db.timers.values(),
      (t) => t.status === "pending" && t.due <= now && t.until <= now && actions.has(t.action),
      claim.limit
    );
    return due.map((t) => {
      Object.assign(t, { by: claim.by, until: now + claim.millis, token: t.token + 1, attempts: t.attempts + 1 });
      return { ...scheduledOf(t), token: t.token, attempts: t.attempts };
    });
  }

  async settle(outcomes: readonly TimerOutcome[]): Promise<string[]> {
    checkTimerOutcomes(outcomes);
    const settled: string[] = [];
    for (const o of outcomes) {
      const t = this.db.timers.get(o.id);
      if (t?.status !== "pending" || t.by !== o.by || t.token !== o.token) continue;
      t.by = undefined;
      t.error = o.error;
      if (o.retryAt) t.until = o.retryAt.getTime();
      else Object.assign(t, { status: o.error === undefined ? "fired" : "failed", until: 0, fired: o.at.getTime() });
      settled.push(o.id);
    }
    return settled;
  }

  async next(actions: readonly string[]): Promise<Date | undefined> {
    const owned = new Set(actions);
    let next = Number.POSITIVE_INFINITY;
    for (const t of this.db.timers.values())
      if (t.status === "pending" && owned.has(t.action)) next = Math.min(next, Math.max(t.due, t.until));
    return Number.isFinite(next) ? new Date(next) : undefined;
  }

  async list(filter: TimerFilter = {}): Promise<StoredTimer[]> {
    const ids = filter.ids && new Set(checkTimerIds(filter.ids));
    const rows = earliest(
      this.db.timers.values(),
      (t) => (!filter.status || t.status === filter.status) && (!ids || ids.has(t.id)),
      filter.limit
    );
    return rows.map((t) => ({
      ...scheduledOf(t),
      status: t.status,
      token: t.token,
      attempts: t.attempts,
      ...(t.by !== undefined && { claimedBy: t.by }),
      ...(t.until > 0 && { claimedUntil: new Date(t.until) }),
      ...(t.fired !== undefined && { fired: new Date(t.fired) }),
      ...(t.error !== undefined && { error: t.error }),
    }));
  }

  async count(now: Date): Promise<TimerCounts> {
    const at = checkNow(now).getTime();
    let pending = 0;
    let overdue = 0;
    for (const t of this.db.timers.values()) {
      if (t.status !== "pending") continue;
      pending++;
      if (t.due <= at) overdue++;
    }
    return { pending, overdue };
  }
}
