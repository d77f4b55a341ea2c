import type { CommittedOf, Schemas, Snapshot } from "./action.js";
import type { Target } from "../core/schemas.js";
import type { TimerRequest } from "./timers.js";

/**
 * The options of `app.do(action, target, payload, options)` (and of the
 * `app` a reaction handler gets): what the call is a reaction to, and
 * whether to trust its input.
 *
 * The stream's own conditions — `expectedVersion`, `idempotencyKey` — stay
 * in the {@link Target}: they say which state of the stream the action is
 * for, not how to run it.
 *
 * @stable
 * @example
 * ```ts
 * const onOpened: ReactionHandler<Events, "TicketOpened", Actions> = async (event, _stream, app) => {
 *   const options: DoOptions = { reactingTo: event };
 *   await app.do("assign", { stream: event.stream, actor: bot }, { agent: "ada" }, options);
 * };
 * ```
 */
export type DoOptions = {
  /**
   * The event a reaction is handling: the action keeps its correlation id
   * and records it as the cause, so the whole chain can be followed
   * (`app.settled`, `query({ correlation })`).
   */
  readonly reactingTo?: CommittedOf<Schemas>;
  /**
   * Skip the zod validation of the payload and of the events the handler
   * emits (default false). For trusted input only — a payload already
   * validated at the edge, a replay of stored data: bad data then reaches
   * the log unchecked.
   */
  readonly skipValidation?: boolean;
};

/**
 * The options of `app.load(State, stream, options)`: a point in the stream's
 * history to load instead of its latest state, and a callback for every
 * state on the way there.
 *
 * @typeParam SX - the state's data
 * @typeParam EX - the state's events
 * @stable
 * @example
 * ```ts
 * const before = await app.load(Counter, "c-1", { at: { version: 2 } });
 * const steps: number[] = [];
 * await app.load(Counter, "c-1", { onSnapshot: (snap) => steps.push(snap.state.count) });
 * ```
 */
export type LoadOptions<SX extends Schemas[string], EX extends Schemas> = {
  /**
   * A point in the stream's history — after event `{ id }`, after stream
   * version `{ version }`, or as of `{ time }` — to load the state as it was
   * then (default: now).
   */
  readonly at?: PointInTime;
  /**
   * Called with the snapshot after each event folded.
   *
   * @param snapshot - the state after the event, with the event
   */
  readonly onSnapshot?: (snapshot: Snapshot<SX, EX>) => void;
};

/**
 * A point in a stream's history, for `app.load(State, stream, { at })`:
 * after the event with a global id, after a stream version, or as of a
 * moment in time (events created at or before it). Exactly one of the three.
 *
 * @see [Changing your model](/docs/concepts/changing-your-model#reading-a-stream-as-it-was) — shows reading a stream as it was.
 * @stable
 * @example
 * ```ts
 * const atVersion: PointInTime = { version: 3 };
 * const asOf: PointInTime = { time: new Date("2026-01-01T00:00:00Z") };
 * ```
 */
export type PointInTime =
  | {
      /** After the event with this global position. */
      id: number;
    }
  | {
      /** After this stream version. */
      version: number;
    }
  | {
      /** As of this moment: events created at or before it. */
      time: Date;
    };

/**
 * The options of `app.projected(projection, after, options)`.
 *
 * @stable
 * @example
 * ```ts
 * const options: ProjectedOptions = { timeoutMillis: 1_000 };
 * ```
 */
export type ProjectedOptions = {
  /** How long to wait at most, in ms (default 5,000). */
  readonly timeoutMillis?: number;
};

/**
 * What a reaction handler gets as its third argument: the app's `do`, so it
 * can ask for actions — pass the event as `reactingTo` to keep the correlation —
 * and its `schedule` and `cancel`, for timers.
 *
 * @typeParam A - the actions of the app, their payloads as `do` takes them (the schemas' input)
 * @stable
 * @example
 * ```ts
 * const handler: ReactionHandler<Events, "TicketOpened", Actions> = async (event, stream, app) => {
 *   await app.do("assign", { stream: event.stream, actor: bot }, { agent: "ada" }, { reactingTo: event });
 * };
 * ```
 */
export type Dispatcher<A extends Schemas> = {
  /**
   * Handles an action, like {@link Act.do}.
   *
   * @param action - the action name
   * @param target - the stream, the actor and an optional expected version or idempotency key
   * @param payload - the action payload (type inferred from the action)
   * @param options - `reactingTo`: the event the reaction is handling, to keep its correlation id and
   *   record it as the cause; `skipValidation`: trusted input only (see {@link DoOptions})
   * @returns one snapshot per committed event, or `[current]` when nothing was emitted
   */
  do<K extends keyof A & string>(
    action: K,
    target: Target,
    payload: Readonly<A[K]>,
    options?: DoOptions
  ): Promise<Snapshot<any, any>[]>;
  /**
   * The call shape of earlier releases, with positional `reactingTo` and
   * `skipValidation`. Warns once per process.
   *
   * @deprecated Pass them in the options: `app.do(action, target, payload, { reactingTo, skipValidation })`.
   * @param action - the action name
   * @param target - the stream and the actor
   * @param payload - the action payload
   * @param reactingTo - the event the reaction is handling
   * @param skipValidation - skip zod validation (trusted input only)
   * @returns what the options form returns
   */
  do<K extends keyof A & string>(
    action: K,
    target: Target,
    payload: Readonly<A[K]>,
    reactingTo: CommittedOf<Schemas> | undefined,
    skipValidation?: boolean
  ): Promise<Snapshot<any, any>[]>;
  /**
   * Schedules an action to run later, like {@link Act.schedule}: a reaction
   * sets a deadline or a reminder. The timer's `id` makes a second run of the
   * reaction schedule nothing more.
   *
   * @experimental
   * @param timer - its id, the action, target, payload, and `at` or `afterMillis`
   * @returns false when the store already has a timer with this id
   */
  schedule<K extends keyof A & string>(timer: TimerRequest<A, K>): Promise<boolean>;
  /**
   * Cancels pending timers, like {@link Act.cancel}: a reaction to the event
   * a deadline waited for.
   *
   * @experimental
   * @param ids - the timers' ids
   * @returns the ids cancelled
   */
  cancel(...ids: string[]): Promise<string[]>;
};

/**
 * What a read of the log (`app.query`) saw: the first and last events read
 * and how many there were.
 *
 * @stable
 * @example
 * ```ts
 * const describe = (read: LogRead<Schemas>) => `${read.count} events, the last #${read.last?.id}`;
 * console.log(describe(await app.query({ stream: "c-1" })));
 * ```
 */
export type LogRead<E extends Schemas> = {
  /** The first event read. */
  first?: CommittedOf<E>;
  /** The last event read. */
  last?: CommittedOf<E>;
  /** How many events were read. */
  count: number;
};
