import { ValidationError } from "../core/errors.js";
import { ActorSchema, MAX_STREAM_LENGTH, NameSchema, StreamSchema } from "../core/schemas.js";
import { validate } from "../core/utils.js";
import type { Schemas } from "../types/action.js";
import type { Store } from "../types/ports.js";
import type { Registry } from "../types/reaction.js";
import type { Clock, ScheduledTimer, TimerRequest, TimerStore } from "../types/timers.js";

/** The prefix of the idempotency key a timer's action is committed under. */
export const TIMER_KEY = "timer:";

/** The idempotency key of a timer's action: a second run of the same timer commits nothing. */
export const timerKey = (id: string): string => `${TIMER_KEY}${id}`;

/** The store's timers, or an error saying the store keeps none. */
export function timersOf(log: Store, operation: string): TimerStore {
  if (log.timers) return log.timers;
  throw new Error(`${operation} needs a store that keeps timers; ${log.constructor?.name ?? "this store"} does not`);
}

/**
 * Checks a timer request against the app's registry, as `app.do` would check
 * the action, and makes it the timer the store keeps: the id, the action (one
 * of the app's), the stream and actor, the payload (valid for the action's
 * schema, checked now rather than when it fires), and the due time (`at`, or
 * `afterMillis` from the clock's now; exactly one).
 *
 * @throws {@link ValidationError} naming the action and the field that is wrong
 */
export function scheduled<A extends Schemas, K extends keyof A & string>(
  registry: Registry<any, any, A>,
  clock: Clock,
  request: TimerRequest<A, K>
): ScheduledTimer {
  const where = `timer "${String(request?.id)}"`;
  const fail = (path: string, message: string): never => {
    throw new ValidationError(where, request, [{ path, message }]);
  };
  if (request === null || typeof request !== "object") fail("", "must be an object");
  const id = validate(`id of ${where}`, request.id, NameSchema);
  if (id.length + TIMER_KEY.length > MAX_STREAM_LENGTH)
    fail("id", `must be at most ${MAX_STREAM_LENGTH - TIMER_KEY.length} characters`);
  const action = request.action;
  const state =
    typeof action === "string" && Object.hasOwn(registry.actions, action) ? registry.actions[action] : undefined;
  if (!state)
    fail("action", `unknown action "${String(action)}"; known actions: ${Object.keys(registry.actions).join(", ")}`);
  const target = request.target;
  if (target === null || typeof target !== "object") fail("target", "must be { stream, actor }");
  const stream = validate(`target of ${where}`, target.stream, StreamSchema);
  const actor = validate(`actor of ${where}`, target.actor, ActorSchema);
  validate(`payload of action "${action}" in ${where}`, request.payload, state!.actions[action]);
  const { at, afterMillis } = request;
  if ((at === undefined) === (afterMillis === undefined)) fail("", "give exactly one of at and afterMillis");
  let due: Date;
  if (at !== undefined) {
    if (!(at instanceof Date) || Number.isNaN(at.getTime())) fail("at", "must be a valid Date");
    due = at;
  } else {
    if (!Number.isSafeInteger(afterMillis) || afterMillis! < 0)
      fail("afterMillis", "must be a whole number of ms, at least 0");
    due = new Date(clock.now().getTime() + afterMillis!);
  }
  return { id, action, stream, actor: { id: actor.id, name: actor.name }, payload: request.payload ?? {}, due: due! };
}
