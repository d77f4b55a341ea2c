import type { Actor } from "../core/schemas.js";
import type { Schemas } from "./action.js";

/**
 * Where an app reads the time: when a timer scheduled `afterMillis` is due,
 * and which timers are due at a drain. `build({ clock })` sets it; the
 * default reads the system clock. The testing kit's `testClock` is one that
 * a test moves forward by hand.
 *
 * @experimental
 * @see [Workflows and timers](/docs/guides/workflows-and-timers) — timers, deadlines and the clock.
 * @example
 * ```ts
 * const clock: Clock = { now: () => new Date() };
 * const app = act().with(Counter).build({ clock });
 * ```
 */
export type Clock = {
  /** The current time. */
  now(): Date;
};

/**
 * What `app.schedule` takes: an action of the app to run later, on a stream,
 * as an actor, with a payload checked against the action's schema when it is
 * scheduled — at a time (`at`) or after a duration (`afterMillis`), exactly
 * one of the two.
 *
 * @experimental
 * @typeParam A - the app's actions, their payloads as `app.do` takes them
 * @typeParam K - the action to run
 * @see [Workflows and timers](/docs/guides/workflows-and-timers) — deadlines and reminders.
 * @example
 * ```ts
 * const reminder: TimerRequest<{ remind: { note: string } }, "remind"> = {
 *   id: "remind-t-1",
 *   action: "remind",
 *   target: { stream: "t-1", actor: { id: "bot", name: "Bot" } },
 *   payload: { note: "call back" },
 *   afterMillis: 60_000,
 * };
 * ```
 */
export type TimerRequest<A extends Schemas, K extends keyof A & string> = {
  /**
   * Names the timer: `app.cancel(id)` cancels it, and the action it runs is
   * committed under an idempotency key made of it. An id is used once:
   * scheduling an id the store already has (pending, fired or cancelled)
   * changes nothing, so a reaction that schedules and runs again does not
   * schedule twice. Same rules as a stream name.
   */
  readonly id: string;
  /** The action to run, one of the app's. */
  readonly action: K;
  /** The stream the action goes to and the actor it runs as. */
  readonly target: {
    /** The stream name. */
    readonly stream: string;
    /** Who the action runs as. */
    readonly actor: Actor;
  };
  /** The action's payload, checked against its schema when scheduled. */
  readonly payload: Readonly<A[K]>;
  /** When to run it. */
  readonly at?: Date;
  /** Or: how long from now (the app's clock), in ms — a whole number, at least 0. */
  readonly afterMillis?: number;
};

/**
 * A timer as `TimerStore.schedule` takes it: the action to run, where, as
 * whom, and when.
 *
 * @experimental
 * @example
 * ```ts
 * const due: ScheduledTimer = {
 *   id: "escalate-t-1",
 *   action: "escalate",
 *   stream: "t-1",
 *   actor: { id: "bot", name: "Bot" },
 *   payload: {},
 *   due: new Date("2026-01-01T04:00:00Z"),
 * };
 * ```
 */
export type ScheduledTimer = {
  /** The timer's id, unique in the store. */
  readonly id: string;
  /** The action's name. */
  readonly action: string;
  /** The stream the action goes to. */
  readonly stream: string;
  /** Who the action runs as. */
  readonly actor: Actor;
  /** The action's payload (JSON). */
  readonly payload: unknown;
  /** When it is due. */
  readonly due: Date;
  /**
   * The correlation id its action's events get: a timer an action scheduled
   * carries that action's, so the deadline's outcome correlates with the
   * request that set it. Absent, the fired action starts a correlation of its own.
   */
  readonly correlation?: string;
};

/**
 * A timer as the store keeps it: what `TimerStore.list` returns.
 *
 * @experimental
 * @example
 * ```ts
 * const [first]: StoredTimer[] = await app.store.timers!.list({ status: "pending", limit: 1 });
 * ```
 */
export type StoredTimer = ScheduledTimer & {
  /** `"pending"` until it fires (`"fired"`), fails for good (`"failed"`) or is cancelled (`"cancelled"`). */
  readonly status: "pending" | "fired" | "failed" | "cancelled";
  /** The generation of its claim: every claim and cancel moves it on. */
  readonly token: number;
  /** How many times it was claimed. */
  readonly attempts: number;
  /** The process holding its claim, while the claim lasts. */
  readonly claimedBy?: string;
  /** When the claim (or the wait before the next attempt) ends. */
  readonly claimedUntil?: Date;
  /** When it fired or failed, by the clock of the app that fired it: lateness is `fired − due`. */
  readonly fired?: Date;
  /** Why the last attempt failed. */
  readonly error?: string;
};

/**
 * A due timer `TimerStore.claim` handed to one process, with the token the
 * outcome must carry.
 *
 * @experimental
 * @example
 * ```ts
 * const claimed: ClaimedTimer[] = await app.store.timers!.claim({ now: new Date(), by: "p-1", millis: 10_000, limit: 10, actions: ["escalate"] });
 * ```
 */
export type ClaimedTimer = ScheduledTimer & {
  /** The claim's generation; the outcome is recorded only with it. */
  readonly token: number;
  /** How many times it was claimed, this claim included. */
  readonly attempts: number;
};

/**
 * What `TimerStore.claim` takes: the caller's clock, who claims, for how
 * long, how many, and which actions the caller can run.
 *
 * @experimental
 * @example
 * ```ts
 * const claim: TimerClaim = { now: new Date(), by: "p-1", millis: 10_000, limit: 10, actions: ["escalate"] };
 * ```
 */
export type TimerClaim = {
  /** The caller's time: timers due at or before it are claimed, and claims that ended by it are free. */
  readonly now: Date;
  /** Who claims (the drainer's id). */
  readonly by: string;
  /** How long the claim lasts from `now`, in ms. */
  readonly millis: number;
  /** At most this many timers, the earliest due first. */
  readonly limit: number;
  /** The actions the caller can run: a timer whose action is not among them is never claimed. */
  readonly actions: readonly string[];
};

/**
 * How a claimed timer ended: fired, failed for good, or failed and to be
 * tried again at `retryAt`. Recorded only while `by` holds the claim with
 * `token`.
 *
 * @experimental
 * @example
 * ```ts
 * const fired: TimerOutcome = { id: "escalate-t-1", by: "p-1", token: 1, at: new Date() };
 * ```
 */
export type TimerOutcome = {
  /** The timer's id. */
  readonly id: string;
  /** The claimant. */
  readonly by: string;
  /** The token the claim returned. */
  readonly token: number;
  /** When the attempt ended, by the caller's clock. */
  readonly at: Date;
  /** Why the attempt failed; absent when the timer fired. */
  readonly error?: string;
  /** With `error`: when to try again (the timer stays pending); absent, it failed for good. */
  readonly retryAt?: Date;
};

/**
 * Which timers `TimerStore.list` returns. Every field is optional.
 *
 * @experimental
 * @example
 * ```ts
 * const filter: TimerFilter = { status: "pending", limit: 100 };
 * ```
 */
export type TimerFilter = {
  /** Only timers in this status. */
  readonly status?: StoredTimer["status"];
  /** Only these ids. */
  readonly ids?: readonly string[];
  /** At most this many, the earliest due first. */
  readonly limit?: number;
};

/**
 * The timers of a store: the part of the {@link Store} port that keeps
 * scheduled actions and hands the due ones to one process at a time. Times
 * are the caller's (an app's {@link Clock}), so a test's clock decides what
 * is due and when a claim ends.
 *
 * @experimental
 * @see [Workflows and timers](/docs/guides/workflows-and-timers) — how timers fire exactly once.
 * @example
 * ```ts
 * const timers: TimerStore | undefined = store().timers;
 * await timers?.schedule([{ id: "t", action: "escalate", stream: "s", actor, payload: {}, due: new Date() }]);
 * ```
 */
export interface TimerStore {
  /**
   * Keeps new timers, pending. An id the store already has, in any status,
   * is left as it is.
   *
   * @param timers - the timers to keep
   * @returns the ids kept now (not those the store had already)
   */
  schedule(timers: readonly ScheduledTimer[]): Promise<string[]>;
  /**
   * Cancels pending timers that no one holds a claim on at `now`: they never
   * fire. The token moves on.
   *
   * @param ids - the timers to cancel
   * @param now - the caller's time, to tell a live claim from one that ended
   * @returns the ids cancelled (not those that fired, failed, were cancelled before, are claimed or unknown)
   */
  cancel(ids: readonly string[], now: Date): Promise<string[]>;
  /**
   * Claims pending timers due at or before `claim.now`, whose action is in
   * `claim.actions` and that no one holds a live claim on, the earliest due
   * first (then by id): each gets `claim.by` until `now + millis`, a new
   * token and one more attempt. Two callers never get the same timer while
   * its claim lasts.
   *
   * @param claim - the caller, its clock, the claim's length, the limit and the actions it can run
   * @returns the timers claimed, the earliest due first
   */
  claim(claim: TimerClaim): Promise<ClaimedTimer[]>;
  /**
   * Records how claimed timers ended — fired, failed, or to be tried again at
   * `retryAt` — and releases their claims, each only where `by` still holds
   * it with `token` (a claim that ended and was taken by another, or a
   * cancelled timer, refuses it).
   *
   * @param outcomes - one per timer
   * @returns the ids whose outcome was recorded
   */
  settle(outcomes: readonly TimerOutcome[]): Promise<string[]>;
  /**
   * When the next pending timer of `actions` is due or its claim ends,
   * whichever comes first for it: when a consumer should look again.
   *
   * @param actions - the actions the caller can run
   * @returns the earliest such time, or `undefined` when no timer of those actions is pending
   */
  next(actions: readonly string[]): Promise<Date | undefined>;
  /**
   * Lists timers, the earliest due first (then by id).
   *
   * @param filter - which timers; omitted, all of them
   */
  list(filter?: TimerFilter): Promise<StoredTimer[]>;
  /**
   * Counts the pending timers, and those of them due at or before `now`.
   *
   * @param now - the caller's time
   */
  count(now: Date): Promise<TimerCounts>;
}

/**
 * How many timers are pending, and how many of them are overdue: what
 * `TimerStore.count` and, in `app.stats()`, `timers` report.
 *
 * @experimental
 * @example
 * ```ts
 * const { pending, overdue }: TimerCounts = (await app.stats()).timers;
 * ```
 */
export type TimerCounts = {
  /** Timers that have not fired, failed or been cancelled. */
  readonly pending: number;
  /** Pending timers due at or before now: a consumer should be firing them. */
  readonly overdue: number;
};

/**
 * A timer a drain fired (or that failed for good): what `drain()` reports in `fired`.
 *
 * @experimental
 * @example
 * ```ts
 * const { fired = [] } = await app.drain();
 * for (const t of fired) console.log(t.id, t.at.getTime() - t.due.getTime(), "ms late");
 * ```
 */
export type FiredTimer = {
  /** The timer's id. */
  readonly id: string;
  /** The action it ran. */
  readonly action: string;
  /** The stream the action went to. */
  readonly stream: string;
  /** When it was due. */
  readonly due: Date;
  /** When its action completed (or failed), by the app's clock. */
  readonly at: Date;
  /** Why the action failed for good (an invariant refused it, or its attempts ran out); absent when it fired. */
  readonly error?: string;
};

/**
 * The timers in `app.stats()`: pending and overdue timers in the store (by
 * the app's clock; 0 on a store without timers), and how late the latest
 * timers this app fired were.
 *
 * @experimental
 * @example
 * ```ts
 * const { pending, overdue, lateness }: TimerStats = (await app.stats()).timers;
 * ```
 */
export type TimerStats = TimerCounts & {
  /** Fired minus due time of the latest timers this app fired, in ms (the latest 1,024 at most). */
  readonly lateness: {
    /** How many timers the figures cover. */
    readonly count: number;
    /** Median. */
    readonly p50: number;
    /** 99th percentile. */
    readonly p99: number;
    /** Latest. */
    readonly max: number;
  };
};

/**
 * The timer writes that go with a commit (`InlineCommit.timers`): timers to
 * keep and timers to cancel, written in the commit's transaction — with the
 * events, or not at all. A store that keeps timers and commits inline writes
 * them; the app sends them when an action handler schedules or cancels.
 *
 * @experimental
 * @example
 * ```ts
 * const changes: TimerChanges = { schedule: [], cancel: ["escalate-t-1"], now: new Date() };
 * ```
 */
export type TimerChanges = {
  /** Timers to keep, as `TimerStore.schedule` keeps them (an id the store has is left as it is). */
  readonly schedule: readonly ScheduledTimer[];
  /** Timers to cancel, as `TimerStore.cancel` cancels them (a claimed one is not). */
  readonly cancel: readonly string[];
  /** The caller's time, to tell a live claim from one that ended. */
  readonly now: Date;
};
