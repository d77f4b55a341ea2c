/**
 * The checks every store applies to the inputs of its timers (see
 * `TimerStore`), so all refuse the same inputs with the same error.
 */
import { ValidationError } from "./errors.js";
import { ActorSchema, NameSchema, StreamSchema } from "./schemas.js";
import { validate } from "./utils.js";
import type { ScheduledTimer, TimerChanges, TimerClaim, TimerOutcome } from "../types/timers.js";

const fail = (what: string, value: unknown, path: string, message: string): never => {
  throw new ValidationError(what, value, [{ path, message }]);
};

/** A valid `Date` (an invalid one holds NaN). */
function checkDate(what: string, value: unknown, path = ""): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) fail(what, value, path, "must be a valid Date");
  return value as Date;
}

/** A whole number of at least `min`. */
function checkWhole(what: string, value: unknown, path: string, min: number): number {
  if (!Number.isSafeInteger(value) || (value as number) < min)
    fail(what, value, path, `must be a whole number (at least ${min})`);
  return value as number;
}

/**
 * Checks the timers of `TimerStore.schedule`: each id and action a name, the
 * stream a stream name, the actor an actor, the due time a valid date.
 *
 * @param timers - the timers to schedule
 * @throws {@link "act/src"!ValidationError} naming the bad field
 * @example
 * ```ts
 * checkScheduled([{ id: "t", action: "a", stream: "s", actor: { id: "u", name: "U" }, payload: {}, due: new Date() }]);
 * ```
 */
export function checkScheduled(timers: readonly ScheduledTimer[]): void {
  if (!Array.isArray(timers)) fail("timers", timers, "", "must be an array");
  for (const t of timers) {
    checkName("timer id", t?.id);
    checkName("timer action", t.action);
    validate("timer stream", t.stream, StreamSchema);
    validate("timer actor", t.actor, ActorSchema);
    checkDate("timer due time", t.due);
    if (t.correlation !== undefined) checkName("timer correlation", t.correlation);
  }
}

/**
 * Checks the timer writes of a commit (`InlineCommit.timers`): the timers to
 * schedule as {@link checkScheduled} does, the ids to cancel, and the time.
 *
 * @param changes - the timer writes
 * @returns the ids to cancel, without repeats
 * @throws {@link "act/src"!ValidationError} naming the bad field
 * @example
 * ```ts
 * checkTimerChanges({ schedule: [], cancel: ["t-1"], now: new Date() }); // ["t-1"]
 * ```
 */
export function checkTimerChanges(changes: TimerChanges): string[] {
  if (changes === null || typeof changes !== "object") fail("timer changes", changes, "", "must be an object");
  checkScheduled(changes.schedule);
  checkDate("timer changes", changes.now, "now");
  return checkTimerIds(changes.cancel);
}

/**
 * Checks a list of timer ids (`TimerStore.cancel`).
 *
 * @param ids - the ids
 * @returns the ids without repeats
 * @throws {@link "act/src"!ValidationError} naming the bad id
 * @example
 * ```ts
 * checkTimerIds(["t-1", "t-1"]); // ["t-1"]
 * ```
 */
export function checkTimerIds(ids: readonly string[]): string[] {
  if (!Array.isArray(ids)) fail("timer ids", ids, "", "must be an array");
  for (const id of ids) checkName("timer id", id);
  return [...new Set(ids)];
}

/**
 * Checks a `TimerStore.claim`: its time, claimant, length, limit and actions.
 *
 * @param claim - the claim
 * @throws {@link "act/src"!ValidationError} naming the bad field
 * @example
 * ```ts
 * checkTimerClaim({ now: new Date(), by: "p-1", millis: 1_000, limit: 10, actions: ["a"] });
 * ```
 */
export function checkTimerClaim(claim: TimerClaim): void {
  checkDate("timer claim", claim?.now, "now");
  checkName("timer claimant", claim.by);
  checkWhole("timer claim", claim.millis, "millis", 1);
  checkWhole("timer claim", claim.limit, "limit", 0);
  if (!Array.isArray(claim.actions)) fail("timer claim", claim.actions, "actions", "must be an array of action names");
  for (const action of claim.actions) checkName("timer action", action);
}

/**
 * Checks the outcomes of `TimerStore.settle`.
 *
 * @param outcomes - the outcomes
 * @throws {@link "act/src"!ValidationError} naming the bad field
 * @example
 * ```ts
 * checkTimerOutcomes([{ id: "t", by: "p-1", token: 1, at: new Date() }]);
 * ```
 */
export function checkTimerOutcomes(outcomes: readonly TimerOutcome[]): void {
  if (!Array.isArray(outcomes)) fail("timer outcomes", outcomes, "", "must be an array");
  for (const o of outcomes) {
    checkName("timer id", o?.id);
    checkName("timer claimant", o.by);
    checkWhole("timer outcome", o.token, "token", 0);
    checkDate("timer outcome", o.at, "at");
    if (o.retryAt !== undefined) checkDate("timer outcome", o.retryAt, "retryAt");
    if (o.error !== undefined && typeof o.error !== "string") fail("timer outcome", o.error, "error", "must be text");
  }
}

/**
 * Checks the time passed to `TimerStore.cancel` and `count`.
 *
 * @param now - the caller's time
 * @returns it
 * @throws {@link "act/src"!ValidationError} when it is not a valid date
 * @example
 * ```ts
 * checkNow(new Date());
 * ```
 */
export function checkNow(now: Date): Date {
  return checkDate("timer time", now);
}

/** A name with the rules of every name the stores keep. */
function checkName(what: string, value: unknown): string {
  return validate(what, value, NameSchema);
}
