import { ValidationError } from "../core/errors.js";
import type { Clock } from "../types/timers.js";

/**
 * A clock a test moves by hand: see {@link testClock}.
 *
 * @experimental
 * @example
 * ```ts
 * const clock: TestClock = testClock("2026-01-01T09:00:00Z");
 * clock.advance(30 * 60_000); // 09:30
 * ```
 */
export type TestClock = Clock & {
  /**
   * Moves the time forward.
   *
   * @param millis - how far, in ms (a whole number, at least 0)
   * @returns the new time
   */
  advance(millis: number): Date;
  /**
   * Moves the time to `time`, which must not be before the current one (time does not go back for timers).
   *
   * @param time - the new time
   * @returns it
   */
  set(time: Date | string): Date;
};

/**
 * A clock that stands still until the test moves it, for testing timers
 * without waiting: build the app with it (`build({ clock })`), schedule,
 * `advance` past the due time, and {@link settle} — its drains fire the
 * timers due by this clock, then the reactions to what they committed.
 *
 * @experimental
 * @param start - the time it starts at (default 2026-01-01T00:00:00Z)
 * @returns the clock
 * @throws {@link "act/src"!ValidationError} for an invalid start time
 * @example
 * ```ts
 * const clock = testClock();
 * const app = act().with(Counter).build({ clock });
 * await app.schedule({ id: "later", action: "increment", target: { stream: "c-1", actor }, payload: { by: 1 }, afterMillis: 60_000 });
 * clock.advance(60_000);
 * await settle(app); // the timer fired
 * ```
 */
export function testClock(start: Date | string = "2026-01-01T00:00:00.000Z"): TestClock {
  let now = time("start", start);
  return {
    now: () => new Date(now),
    advance(millis: number) {
      if (!Number.isSafeInteger(millis) || millis < 0)
        throw new ValidationError("clock advance", millis, [
          { path: "", message: "must be a whole number of ms, at least 0" },
        ]);
      now += millis;
      return new Date(now);
    },
    set(to: Date | string) {
      const next = time("time", to);
      if (next < now)
        throw new ValidationError("clock time", to, [
          { path: "", message: `must not be before the clock's time, ${new Date(now).toISOString()}` },
        ]);
      now = next;
      return new Date(now);
    },
  };
}

/** Epoch ms of a date or ISO text. */
function time(what: string, value: Date | string): number {
  const ms = value instanceof Date ? value.getTime() : typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms))
    throw new ValidationError(`clock ${what}`, value, [{ path: "", message: "must be a valid Date or ISO date text" }]);
  return ms;
}
