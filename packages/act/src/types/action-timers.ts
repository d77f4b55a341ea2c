import type { Actor } from "../core/schemas.js";

// The action maps below are written out as `Schemas` is (action.ts imports this file, so it cannot import that).

/**
 * A timer an action handler asks for (see {@link ActionTimers}): a
 * {@link TimerRequest} whose target defaults to the action's own stream and
 * actor.
 *
 * @experimental
 * @typeParam A - the actions whose payload types are known (the state's, so far)
 * @typeParam K - the action to run: one of `A` is typed, any other name is checked against the app when scheduled
 * @example
 * ```ts
 * const escalation: ActionTimer<{ escalate: { reason: string } }, "escalate"> = {
 *   id: "escalate-t-1",
 *   action: "escalate",
 *   payload: { reason: "no answer" },
 *   afterMillis: 4 * 3_600_000,
 * };
 * ```
 */
export type ActionTimer<A extends Record<string, Record<string, any>>, K extends string> = {
  /** Names the timer, as in {@link TimerRequest}: used once, `cancel` names it. */
  readonly id: string;
  /** The action to run, one of the app's. */
  readonly action: K;
  /** The stream the action goes to and the actor it runs as; omitted, the scheduling action's own. */
  readonly target?: {
    /** The stream name. */
    readonly stream: string;
    /** Who the action runs as. */
    readonly actor: Actor;
  };
  /** The action's payload, checked against the app's action when scheduled. */
  readonly payload: Readonly<K extends keyof A ? A[K] : Record<string, any>>;
  /** When to run it. */
  readonly at?: Date;
  /** Or: how long from now (the app's clock), in ms — a whole number, at least 0. */
  readonly afterMillis?: number;
};

/**
 * What an action handler gets as its fourth argument: `schedule` and
 * `cancel`, whose timers commit with the action's events in one transaction
 * — a deadline the action sets is kept exactly when its events are, and a
 * deadline it cancels stays cancelled exactly when they commit. A timer
 * scheduled here carries the action's correlation id. The payload is
 * checked against the app's action when `schedule` is called, so a bad one
 * fails the action before anything is committed.
 *
 * An action that emits no events still keeps its timer changes (written on
 * their own, there being nothing to commit them with). Needs a store with
 * timers that commits inline (the in-memory store, `SqliteStore`,
 * `PostgresStore`).
 *
 * @experimental
 * @typeParam A - the actions whose payload types are known (the state's, so far)
 * @see [Workflows and timers](/docs/guides/workflows-and-timers) — deadlines set by actions.
 * @example
 * ```ts
 * const Ticket = state("Ticket", z.object({ open: z.boolean() }))
 *   .init(() => ({ open: false }))
 *   .emits({ Escalated: z.object({}), Opened: z.object({}) })
 *   .patch({ Escalated: () => ({}), Opened: () => ({ open: true }) })
 *   .on("escalate", z.object({}))
 *   .emit(() => ["Escalated", {}])
 *   .on("open", z.object({}))
 *   .emit((_, __, { stream }, { schedule }) => {
 *     schedule({ id: `escalate-${stream}`, action: "escalate", payload: {}, afterMillis: 4 * 3_600_000 });
 *     return ["Opened", {}];
 *   })
 *   .build();
 * ```
 */
export type ActionTimers<A extends Record<string, Record<string, any>>> = {
  /**
   * Schedules a timer with the action's events. An id the store already has is left as it is.
   *
   * @param timer - its id, the action, payload, `at` or `afterMillis`, and optionally a target
   * @throws {@link ValidationError} naming the action and the field that is wrong
   */
  schedule<K extends string>(timer: ActionTimer<A, K>): void;
  /**
   * Cancels pending timers with the action's events: they never fire — unless
   * a drain is firing one at that moment.
   *
   * @param ids - the timers' ids
   */
  cancel(...ids: string[]): void;
};
