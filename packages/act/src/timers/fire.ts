import { IdempotencyKeyReusedError, InvariantError, ValidationError } from "../core/errors.js";
import { logger } from "../core/ports.js";
import { timerKey } from "./schedule.js";
import type { Target } from "../core/schemas.js";
import type { Store } from "../types/ports.js";
import type { ClaimedTimer, Clock, FiredTimer, TimerOutcome } from "../types/timers.js";

/** How many lateness figures `stats` keeps. */
const LATENESS_SAMPLES = 1_024;
/** Claims per drain, the earliest due first; a consumer drains again at once while due timers are left. */
export const TIMER_LIMIT = 100;
/** Attempts before a timer whose action keeps failing (a store error, a conflict) fails for good. */
export const TIMER_ATTEMPTS = 5;
/** The first wait before a failed timer is tried again, in ms; it doubles with each attempt. */
const RETRY_BASE_MILLIS = 1_000;

/**
 * Runs a timer's action through the app, as `app.do` would, its events
 * correlated with `correlation` when the timer carries one.
 */
export type TimerRun = (action: string, target: Target, payload: unknown, correlation?: string) => Promise<unknown>;

/**
 * Fires an app's due timers from its drains: claims them in the store (the
 * earliest due first, only actions the app has), runs each action through
 * the app under an idempotency key made of the timer's id, then records the
 * outcome with the claim's token.
 *
 * Why each step: the claim makes one process at a time own a timer; the key
 * makes a second run of the same timer — after a crash between the commit
 * and the outcome, or a claim that ran out — return the first run's events
 * instead of committing again (the key is bound to the request, and the
 * request is the timer's, so it matches); the token refuses the outcome of a
 * claim that ran out and was taken by another. Together: the action is
 * committed once per timer, across processes and restarts.
 *
 * An action the model refuses (an invariant — a deadline whose case was
 * closed meanwhile — or invalid input) fails the timer at once: running it
 * again would be refused again. Any other failure is tried again with
 * backoff, up to {@link TIMER_ATTEMPTS} claims.
 */
export class TimerFiring {
  private readonly lateness: number[] = [];
  private latenessAt = 0;

  /**
   * @param run - runs the actions
   * @param actions - the app's actions: it claims only timers of these
   * @param by - the app's drainer id, marking its claims
   * @param clock - the app's clock
   */
  constructor(
    private readonly run: TimerRun,
    private readonly actions: readonly string[],
    private readonly by: string,
    private readonly clock: Clock
  ) {}

  /** Fires up to `limit` due timers, in due order; returns what each did. */
  async fire(log: Store, leaseMillis: number, limit = TIMER_LIMIT): Promise<FiredTimer[]> {
    const timers = log.timers;
    if (!timers || !this.actions.length) return [];
    const claimed = await timers.claim({
      now: this.clock.now(),
      by: this.by,
      millis: leaseMillis,
      limit,
      actions: this.actions,
    });
    const fired: FiredTimer[] = [];
    for (const timer of claimed) {
      const outcome = await this.attempt(timer);
      const [settled] = await timers.settle([outcome]);
      if (settled === undefined) {
        logger.warn(`timer "${timer.id}": its claim was taken or it was cancelled before its outcome was recorded`);
        continue;
      }
      if (outcome.retryAt) continue;
      if (!outcome.error) this.late(outcome.at.getTime() - timer.due.getTime());
      fired.push({
        id: timer.id,
        action: timer.action,
        stream: timer.stream,
        due: timer.due,
        at: outcome.at,
        ...(outcome.error !== undefined && { error: outcome.error }),
      });
    }
    return fired;
  }

  /** When the next pending timer of the app's actions is due (or its claim ends), if any. */
  async next(log: Store): Promise<Date | undefined> {
    if (!log.timers || !this.actions.length) return undefined;
    return log.timers.next(this.actions);
  }

  /** Fired minus due time of the latest timers fired here: count, p50, p99 and max, in ms. */
  stats(): { count: number; p50: number; p99: number; max: number } {
    const sorted = [...this.lateness].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
    return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? 0 };
  }

  private late(millis: number): void {
    this.lateness[this.latenessAt] = Math.max(0, millis);
    this.latenessAt = (this.latenessAt + 1) % LATENESS_SAMPLES;
  }

  /** Runs one timer's action; the outcome to record. */
  private async attempt(timer: ClaimedTimer): Promise<TimerOutcome> {
    const { id, token } = timer;
    try {
      await this.run(
        timer.action,
        { stream: timer.stream, actor: timer.actor, idempotencyKey: timerKey(id) },
        timer.payload,
        timer.correlation
      );
      return { id, by: this.by, token, at: this.clock.now() };
    } catch (error) {
      const at = this.clock.now();
      const message = error instanceof Error ? error.message : String(error);
      const refused =
        error instanceof InvariantError ||
        error instanceof ValidationError ||
        error instanceof IdempotencyKeyReusedError;
      if (refused || timer.attempts >= TIMER_ATTEMPTS) {
        logger.warn(error, `timer "${id}" failed: action "${timer.action}" on stream "${timer.stream}"`);
        return { id, by: this.by, token, at, error: message };
      }
      logger.warn(error, `timer "${id}" failed (attempt ${timer.attempts}); it is tried again`);
      const retryAt = new Date(at.getTime() + RETRY_BASE_MILLIS * 2 ** (timer.attempts - 1));
      return { id, by: this.by, token, at, error: message, retryAt };
    }
  }
}
