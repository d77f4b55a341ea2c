import { TimerFiring, type TimerRun } from "./fire.js";
import { scheduled, timersOf } from "./schedule.js";
import { checkTimerIds } from "../core/timer-inputs.js";
import type { Schemas } from "../types/action.js";
import type { Store } from "../types/ports.js";
import type { Registry } from "../types/reaction.js";
import type { Clock, FiredTimer, ScheduledTimer, TimerRequest, TimerStats } from "../types/timers.js";

/** The system clock: the default of every app. */
export const systemClock: Clock = { now: () => new Date() };

/**
 * An app's timers, wired once per app: scheduling and cancelling through its
 * store, firing the due ones from its drains (see {@link TimerFiring}), and
 * their figures for `app.stats()`.
 */
export class AppTimers<A extends Schemas> {
  private readonly firing: TimerFiring;
  /**
   * What the app lends its actions' handlers: the check of the timers they schedule, the clock, and the wake-up
   * of its consumer once their timer changes are written.
   */
  readonly checks: {
    readonly check: (request: TimerRequest<Schemas, string>) => ScheduledTimer;
    readonly clock: Clock;
    readonly written: () => void;
  };

  /**
   * @param registry - the app's actions: the ones a timer may run, and their schemas
   * @param run - runs the actions the timers fire
   * @param by - the app's drainer id, marking its claims
   * @param clock - the app's clock
   * @param wake - wakes the app's consumer, if one runs: it waits for the next due timer it knew of, so a
   *   timer due sooner, or a cancel of the one it waits for, must make it look again
   */
  constructor(
    private readonly registry: Registry<any, any, A>,
    run: TimerRun,
    by: string,
    readonly clock: Clock,
    private readonly wake: () => void = () => {}
  ) {
    this.firing = new TimerFiring(run, Object.keys(registry.actions), by, clock);
    this.checks = {
      check: (request) => scheduled(registry, clock, request as TimerRequest<A, keyof A & string>),
      clock,
      written: wake,
    };
  }

  /** Checks the request and keeps the timer; whether it is new (an id the store has is left as it is). */
  async schedule<K extends keyof A & string>(log: Store, request: TimerRequest<A, K>): Promise<boolean> {
    const timer = scheduled(this.registry, this.clock, request);
    const [kept] = await timersOf(log, "app.schedule").schedule([timer]);
    if (kept !== undefined) this.wake();
    return kept !== undefined;
  }

  /** Cancels pending timers no one is firing; the ids cancelled. */
  async cancel(log: Store, ids: string[]): Promise<string[]> {
    const cancelled = await timersOf(log, "app.cancel").cancel(checkTimerIds(ids), this.clock.now());
    if (cancelled.length) this.wake();
    return cancelled;
  }

  /** Fires the due timers (none on a store without timers). */
  fire(log: Store, leaseMillis: number): Promise<FiredTimer[]> {
    return this.firing.fire(log, leaseMillis);
  }

  /** Ms until the next pending timer is due (0 when it is), or undefined when none is pending. */
  async wait(log: Store): Promise<number | undefined> {
    const next = await this.firing.next(log);
    return next && Math.max(0, next.getTime() - this.clock.now().getTime());
  }

  /** Pending and overdue timers, and the lateness of those fired here. */
  async stats(log: Store): Promise<TimerStats> {
    const counts = log.timers ? await log.timers.count(this.clock.now()) : { pending: 0, overdue: 0 };
    return { pending: counts.pending, overdue: counts.overdue, lateness: this.firing.stats() };
  }
}
