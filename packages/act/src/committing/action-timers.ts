import type { Target } from "../core/schemas.js";
import type { Schemas } from "../types/action.js";
import type { Store } from "../types/ports.js";
import type { ActionTimer, ActionTimers } from "../types/action-timers.js";
import type { Clock, ScheduledTimer, TimerChanges, TimerRequest } from "../types/timers.js";

/**
 * What the app lends an action for its handler's timers: the check of a
 * request against the app's actions (the one `app.schedule` makes) and the
 * app's clock.
 */
export type TimerChecks = {
  /** Checks a request and makes it the timer the store keeps. */
  readonly check: (request: TimerRequest<Schemas, string>) => ScheduledTimer;
  /** The app's clock: `afterMillis` counts from it, and a cancel tells live claims by it. */
  readonly clock: Clock;
  /**
   * Told once a handler's timer changes are written (with its events or on
   * their own): the app's running consumer waits for the next due timer it
   * knew of, and a timer due sooner — or a cancel of the one it waits for —
   * would otherwise go unnoticed until its next poll.
   */
  readonly written?: () => void;
};

/** The timers one run of a handler asked for, and the context that collects them. */
export type HandlerTimers = {
  /** The handler's fourth argument. */
  readonly context: ActionTimers<Schemas>;
  /** The timers scheduled, checked. */
  readonly schedule: ScheduledTimer[];
  /** The ids cancelled, without repeats. */
  readonly cancel: string[];
};

/**
 * The `schedule` and `cancel` one run of an action's handler gets. Each
 * request is checked when it is made, so a bad one throws inside the
 * handler and nothing is committed; the timers are written later, with the
 * events (see {@link changesOf}). Without `checks` (an app that lends none)
 * the handler may not schedule.
 *
 * @param action - the action whose handler runs, for errors
 * @param target - the action's target: a timer's default stream and actor
 * @param checks - the app's check and clock
 */
export function handlerTimers(action: string, target: Target, checks: TimerChecks | undefined): HandlerTimers {
  const schedule: ScheduledTimer[] = [];
  const cancel: string[] = [];
  const context: ActionTimers<Schemas> = {
    schedule: <K extends string>(timer: ActionTimer<Schemas, K>) => {
      if (!checks) throw new Error(`action "${action}" scheduled a timer, and this app cannot check it`);
      const request = timer?.target ? timer : { ...timer, target: { stream: target.stream, actor: target.actor } };
      schedule.push(checks.check(request as TimerRequest<Schemas, string>));
    },
    cancel: (...ids: string[]) => {
      for (const id of ids) if (!cancel.includes(id)) cancel.push(id);
    },
  };
  return { context, schedule, cancel };
}

/**
 * The timer writes of a handler's run, each scheduled timer carrying the
 * correlation id of the action's events; undefined when it asked for none.
 */
export function changesOf(
  timers: HandlerTimers,
  correlation: string,
  checks: TimerChecks | undefined
): TimerChanges | undefined {
  if (!timers.schedule.length && !timers.cancel.length) return undefined;
  return {
    schedule: timers.schedule.map((t) => ({ ...t, correlation })),
    cancel: timers.cancel,
    now: checks?.clock.now() ?? new Date(),
  };
}

/**
 * Writes the timer changes of an action that emitted no events: there is no
 * commit to write them with, so the store's timers take them directly.
 */
export async function writeTimers(log: Store, action: string, changes: TimerChanges): Promise<void> {
  const timers = log.timers;
  if (!timers)
    throw new Error(
      `action "${action}" scheduled or cancelled timers, and ${log.constructor?.name ?? "this store"} keeps none`
    );
  if (changes.schedule.length) await timers.schedule(changes.schedule);
  if (changes.cancel.length) await timers.cancel(changes.cancel, changes.now);
}
