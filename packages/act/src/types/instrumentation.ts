import type { Committed, CommittedOf, Schemas, Snapshot } from "./action.js";
import type { Drain, DrainOptions, ReactionOptions } from "./reaction.js";
import type { Store } from "./ports.js";
import type { FiredTimer } from "./timers.js";
import type { Target, TraceContext } from "../core/schemas.js";

/**
 * What an {@link Observer} learns when an action starts.
 *
 * @experimental
 * @see [Observability](/docs/guides/observability#the-hooks-under-it) — explains the hooks.
 * @example
 * ```ts
 * const info: ActionInfo = { state: "Counter", action: "increment", target };
 * ```
 */
export type ActionInfo = {
  /** The state that handles the action. */
  readonly state: string;
  /** The action's name. */
  readonly action: string;
  /** The stream, actor, and optional expected version or idempotency key, as the caller passed them. */
  readonly target: Target;
  /** The event a reaction was handling when it asked for the action. */
  readonly reactingTo?: CommittedOf<Schemas>;
  /** The app's store, which the action reads and commits to (always set by an app). */
  readonly store?: Store;
};

/**
 * What an action came to, as an {@link Observer} sees it: what `do`
 * returns, and whether it committed events (false when the handler
 * emitted nothing or an idempotency key replayed an earlier outcome).
 *
 * @experimental
 * @example
 * ```ts
 * const outcome: ActionOutcome = { result: [], committed: false };
 * ```
 */
export type ActionOutcome = {
  /** What `do` returns: one snapshot per committed event (plus one for a snapshot written), or the current one. */
  readonly result: Snapshot<any, any>[];
  /** Whether events were committed. */
  readonly committed: boolean;
};

/**
 * What an {@link Observer} learns when a stream is loaded.
 *
 * @experimental
 * @example
 * ```ts
 * const info: LoadInfo = { state: "Counter", stream: "c-1" };
 * ```
 */
export type LoadInfo = {
  /** The state the stream is folded with. */
  readonly state: string;
  /** The stream read. */
  readonly stream: string;
  /** The store it is read from: the app's (always set by an app). */
  readonly store?: Store;
};

/**
 * What an {@link Observer} learns when a drain starts: the drain's options,
 * as passed, and the app's store it drains.
 *
 * @experimental
 * @example
 * ```ts
 * const info: DrainInfo = { streamLimit: 10, eventLimit: 10 };
 * ```
 */
export type DrainInfo = DrainOptions & {
  /** The app's store, which the drain polls, leases and reads (always set by an app). */
  readonly store?: Store;
};

/**
 * What an {@link Observer} learns when a reaction handler is about to run.
 *
 * @experimental
 * @example
 * ```ts
 * const info: ReactionInfo = {
 *   reaction: "Opened/notify", event, stream: "inbox", attempt: 1,
 *   options: { blockOnError: true, maxRetries: 3 },
 * };
 * ```
 */
export type ReactionInfo = {
  /** The reaction's name, `"<event>/<reaction key>"`, the same in every app that registers it. */
  readonly reaction: string;
  /** The event it handles (decoded when it decodes). */
  readonly event: Committed<Schemas, string>;
  /** The reaction stream it runs on (its resolver's target). */
  readonly stream: string;
  /** 1 for the first run on this event, then 2, 3… for the retries. */
  readonly attempt: number;
  /** Its options: a failed attempt past `maxRetries` blocks the stream or, without `blockOnError`, skips the event. */
  readonly options: ReactionOptions;
  /** The app's store, whose reaction stream it runs on (always set by an app's drain). */
  readonly store?: Store;
};

/**
 * What an {@link Observer} learns when a projection is about to apply a
 * batch of events (an asynchronous projection's drain; inline projections
 * run inside their action's commit and have no batch of their own).
 *
 * @experimental
 * @example
 * ```ts
 * const info: ProjectionInfo = {
 *   projection: "OpenTickets", stream: "projection:OpenTickets", events: [event], attempt: 1,
 *   options: { blockOnError: true, maxRetries: 3 },
 * };
 * ```
 */
export type ProjectionInfo = {
  /** The projection's name. */
  readonly projection: string;
  /** Its reaction stream, `projection:<name>` (`:v<version>` past version 1), as `app.stats()` and blocks name it. */
  readonly stream: string;
  /** The batch's events, in log order (decoded when they decode). */
  readonly events: readonly Committed<Schemas, string>[];
  /** 1 for the first run of the batch, then 2, 3… for the retries of the event it failed on. */
  readonly attempt: number;
  /** Its options: a failed attempt past `maxRetries` blocks the projection's stream. */
  readonly options: ReactionOptions;
  /** The app's store, whose events it projects (always set by an app). */
  readonly store?: Store;
};

/**
 * Hooks an app calls around its work, so tracing and metrics can be added
 * without the core depending on any of them. Install one with
 * {@link observe}; `@act-root/act-otel` is the OpenTelemetry one. Every hook
 * is optional. A wrapping hook must call `run` exactly once and return (or
 * throw) what it returns (or throws); it may do work before and after, such
 * as starting a span and making it current while `run` runs.
 *
 * Without an observer, none of this runs: the app calls its work directly.
 *
 * @experimental
 * @see [Observability](/docs/guides/observability#the-hooks-under-it) — explains the hooks and the OpenTelemetry package.
 * @example
 * ```ts
 * const timing: Observer = {
 *   async action(info, run) {
 *     const start = performance.now();
 *     try {
 *       return await run();
 *     } finally {
 *       console.log(info.action, performance.now() - start);
 *     }
 *   },
 * };
 * const stop = observe(timing);
 * ```
 */
export type Observer = {
  /**
   * Around `app.do`: from the payload's validation to the snapshots returned (or the error thrown).
   *
   * @param info - the state, the action and its target, and the event a reaction handles
   * @param run - handles the action; call it once and return (or throw) what it does
   */
  action?(info: ActionInfo, run: () => Promise<ActionOutcome>): Promise<ActionOutcome>;
  /**
   * Around every rebuild of a stream's state: `app.load`, and the reads an action makes.
   *
   * @param info - the state and the stream
   * @param run - rebuilds the state; call it once and return (or throw) what it does
   */
  load?(info: LoadInfo, run: () => Promise<Snapshot<any, any>>): Promise<Snapshot<any, any>>;
  /**
   * Around a drain's poll, leases, reads, reactions and acknowledgements (`app.drain`, and each drain of `app.start`).
   *
   * @param info - the drain's options, as passed, and the app's store
   * @param run - drains; call it once and return (or throw) what it does
   */
  drain?(info: DrainInfo, run: () => Promise<Drain<any>>): Promise<Drain<any>>;
  /**
   * Around one run of one reaction handler on one event.
   *
   * @param info - the reaction, the event, the reaction stream, the attempt and the reaction's options
   * @param run - runs the handler; call it once and return (or throw) what it does
   */
  reaction?(info: ReactionInfo, run: () => Promise<unknown>): Promise<unknown>;
  /**
   * Around one run of a projection on a batch of events: its handlers and
   * the store call that records its position (in one transaction where the
   * store has one). `run` resolves with whether the position moved — false
   * when the store refused it because the stream was reset, unblocked or
   * taken over meanwhile — and rejects with the handler's failure, which is
   * then retried, or blocks the projection past `maxRetries`.
   *
   * @param info - the projection, its stream, the batch's events, the attempt and the options
   * @param run - applies the batch; call it once and return (or throw) what it does
   */
  projection?(info: ProjectionInfo, run: () => Promise<boolean>): Promise<boolean>;
  /**
   * After a drain fired a timer, or the timer failed for good: which action
   * it ran, when it was due and when it ran (lateness is `at − due`). Called
   * once per timer, after its outcome is recorded; what it throws is ignored.
   *
   * @experimental
   * @param timer - the timer, as `drain()` reports it in `fired`
   * @param store - the store of the app whose drain fired it
   */
  fired?(timer: FiredTimer, store?: Store): void;
  /**
   * The trace context to keep in the metadata of the events an action is
   * about to commit (`EventMeta.trace`); called while the `action` hook's
   * `run` runs. `undefined` keeps none.
   */
  trace?(): TraceContext | undefined;
};
