import type { z } from "zod";
import type { Actor, CommittedMeta, Target } from "../core/schemas.js";
import type { PersonalData } from "./personal.js";
import type { ActionTimers } from "./action-timers.js";

/**
 * A plain object: the shape of a state, an action payload or an event's data.
 *
 * @stable
 * @example
 * ```ts
 * const counter: Schema = { count: 0, tags: ["a"] };
 * ```
 */
export type Schema = Record<string, any>;

/**
 * Named payload shapes: event names to event data, or action names to action payloads.
 *
 * @stable
 * @example
 * ```ts
 * type Events = { Incremented: { by: number }; Reset: {} };
 * ```
 */
export type Schemas = Record<string, Schema>;

/**
 * The type of an empty payload (matches {@link ZodEmpty}).
 *
 * @stable
 * @example
 * ```ts
 * const none: EmptySchema = {};
 * ```
 */
export type EmptySchema = Record<string, never>;

/**
 * One zod schema per name: how a state declares its events or actions. Each
 * schema parses its input type (`I`, what is passed in) to its output type
 * (`T`, what is stored and handed on); they differ only where the schema has
 * a transform, a default or a coercion.
 *
 * @stable
 * @typeParam T - names to payload types, as the schemas output them
 * @typeParam I - names to payload types, as the schemas take them (default: `T`)
 * @example
 * ```ts
 * const events: ZodTypes<{ Incremented: { by: number } }> = {
 *   Incremented: z.object({ by: z.number() }),
 * };
 * const actions: ZodTypes<{ increment: { by: number } }, { increment: { by?: number } }> = {
 *   increment: z.object({ by: z.number().default(1) }),
 * };
 * ```
 */
export type ZodTypes<T extends Schemas, I extends Schemas = T> = {
  [K in keyof T]: z.ZodType<T[K], K extends keyof I ? I[K] : unknown>;
};

/**
 * An event before it is committed: its name and data.
 *
 * @stable
 * @typeParam E - the event schemas
 * @typeParam K - the event name
 * @example
 * ```ts
 * const m: Message<{ Incremented: { by: number } }, "Incremented"> = { name: "Incremented", data: { by: 1 } };
 * ```
 */
export type Message<E extends Schemas, K extends keyof E> = {
  /** Event name. */
  readonly name: K;
  /** Event data, validated against the event's schema. */
  readonly data: Readonly<E[K]>;
};

/**
 * What an action handler returns for one event: a `[name, data]` tuple.
 *
 * @stable
 * @typeParam E - the event schemas
 * @example
 * ```ts
 * const e: Emitted<{ Incremented: { by: number } }> = ["Incremented", { by: 1 }];
 * ```
 */
export type Emitted<E extends Schemas> = {
  [K in keyof E]: readonly [K, Readonly<E[K]>];
}[keyof E];

/**
 * What an emit handler returned (`R`: one `[name, data]` tuple or an array of
 * them), with each event's data held to the fields its schema declares: a
 * field the schema does not know is typed `never`, so it does not compile.
 * Object literals lose that check once they are returned from a function;
 * `.emit(handler)` restores it by asking for `R & ExactEmitted<R, E>`.
 *
 * @stable
 * @typeParam R - what the handler returned
 * @typeParam E - the event data each event takes
 * @example
 * ```ts
 * type Events = { Incremented: { by: number } };
 * const ok: ExactEmitted<readonly ["Incremented", { by: number }], Events> = ["Incremented", { by: 1 }];
 * // @ts-expect-error "extra" is not a field of Incremented
 * const bad: ExactEmitted<readonly ["Incremented", { by: number; extra: number }], Events> = ["Incremented", { by: 1, extra: 2 }];
 * ```
 */
export type ExactEmitted<R, E extends Schemas> = R extends readonly [infer K extends keyof E, infer D]
  ? // The keys of every member of the data's type (a union's plain `keyof` keeps only the shared ones).
    readonly [
      K,
      D & { [P in Exclude<keyof D, E[K] extends infer T ? (T extends unknown ? keyof T : never) : never>]: never },
    ]
  : R extends readonly (infer T)[]
    ? readonly ExactEmitted<T, E>[]
    : R;

/**
 * A committed event of name `K`: its message plus what the store added
 * (`id`, `stream`, `version`, `created`, `meta`).
 *
 * @stable
 * @typeParam E - the event schemas
 * @typeParam K - the event name
 * @see [Event sourcing](/docs/concepts/event-sourcing#anatomy-of-a-committed-event) — explains each field.
 * @example
 * ```ts
 * function show(e: Committed<{ Incremented: { by: number } }, "Incremented">) {
 *   return `${e.stream}@${e.version}: +${e.data.by}`;
 * }
 * ```
 */
export type Committed<E extends Schemas, K extends keyof E> = Message<E, K> & Readonly<CommittedMeta>;

/**
 * Any committed event of `E`: the union of {@link Committed} over every event name,
 * so `switch (event.name)` narrows `event.data`.
 *
 * @stable
 * @typeParam E - the event schemas
 * @example
 * ```ts
 * type Events = { Incremented: { by: number }; Reset: {} };
 * function apply(e: CommittedOf<Events>) {
 *   if (e.name === "Incremented") return e.data.by; // narrowed
 *   return 0;
 * }
 * ```
 */
export type CommittedOf<E extends Schemas> = {
  [K in keyof E]: Committed<E, K>;
}[keyof E];

/**
 * A deep partial of a state: what a patch handler returns. Nested plain
 * objects are merged; a key set to `undefined` or `null` is removed; arrays
 * and other values replace. See {@link patch}.
 *
 * @stable
 * @typeParam T - the state type
 * @example
 * ```ts
 * const p: Patch<{ user: { name: string; age: number } }> = { user: { age: 37 } };
 * ```
 */
export type Patch<T> = {
  [K in keyof T]?: T[K] extends Schema
    ? T[K] extends readonly unknown[] | Date | Map<any, any> | Set<any>
      ? T[K] | null
      : Patch<T[K]> | null
    : T[K] | null;
};

/**
 * Folds one committed event into the state by returning the part that changes.
 *
 * @stable
 * @typeParam S - the state type
 * @typeParam E - the event schemas
 * @typeParam K - the event name
 * @param event - the committed event, with its data, stream, version and metadata
 * @param state - the state before this event (do not mutate it)
 * @see [State management](/docs/concepts/state-management#patches) — explains patches.
 * @example
 * ```ts
 * const onIncremented: PatchHandler<{ count: number }, { Incremented: { by: number } }, "Incremented"> =
 *   (event, state) => ({ count: state.count + event.data.by });
 * ```
 */
export type PatchHandler<S extends Schema, E extends Schemas, K extends keyof E> = (
  event: Committed<E, K>,
  state: Readonly<S>
) => Readonly<Patch<S>>;

/**
 * One {@link PatchHandler} for every event a state emits — a missing one is a
 * compile error.
 *
 * @stable
 * @example
 * ```ts
 * const patches: PatchHandlers<{ count: number }, { Incremented: { by: number } }> = {
 *   Incremented: (e, s) => ({ count: s.count + e.data.by }),
 * };
 * ```
 */
export type PatchHandlers<S extends Schema, E extends Schemas> = {
  [K in keyof E]: PatchHandler<S, E, K>;
};

/**
 * The state of a stream as `load` and `do` return it: the folded state, the
 * last event read or written, how many patches were applied since the last
 * snapshot, and how many snapshots were read or written.
 *
 * @stable
 * @typeParam S - the state type
 * @typeParam E - the event schemas
 * @see [State management](/docs/concepts/state-management#loading-state) — explains how state is loaded.
 * @example
 * ```ts
 * const [snap] = await app.do("increment", target, { by: 1 });
 * console.log(snap.state.count, snap.event?.version, snap.patches, snap.snaps);
 * ```
 */
export type Snapshot<S extends Schema, E extends Schemas> = {
  /** The state after the event. */
  readonly state: S;
  /** The last event folded into `state` (undefined for a stream that has none). */
  readonly event?: CommittedOf<E>;
  /** Events folded since the last snapshot (or since the start of the stream). */
  readonly patches: number;
  /** Snapshots read by the load plus those written since. */
  readonly snaps: number;
};

/**
 * A business rule checked before an action runs. When `valid` returns false
 * the action fails with an {@link InvariantError} carrying `description`.
 *
 * @stable
 * @typeParam S - the state type
 * @see [State management](/docs/concepts/state-management#invariants) — explains invariants.
 * @example
 * ```ts
 * const mustBeOpen: Invariant<{ status: string }> = {
 *   description: "Ticket must be open",
 *   valid: (state) => state.status === "open",
 * };
 * ```
 */
export type Invariant<S extends Schema> = {
  /** Says, in words a user can read, what must hold. */
  description: string;
  /**
   * Returns true when the rule holds for this state and actor.
   *
   * @param state - the stream's current state
   * @param actor - who asks for the action (the target's actor)
   */
  valid: (state: Readonly<S>, actor?: Actor) => boolean;
};

/**
 * The invariants of each action, by action name.
 *
 * @stable
 * @example
 * ```ts
 * const given: GivenHandlers<{ status: string }, { close: {} }> = {
 *   close: [{ description: "Ticket must be open", valid: (s) => s.status === "open" }],
 * };
 * ```
 */
export type GivenHandlers<S extends Schema, A extends Schemas> = {
  [K in keyof A]?: Invariant<S>[];
};

/**
 * Decides what an action does: receives the validated payload, the current
 * snapshot and the target, and returns the events to commit (one tuple, an
 * array of tuples, or nothing).
 *
 * The payload is the action schema's output (zod has parsed it: defaults
 * filled, transforms run); the event data returned is the event schema's
 * input, parsed by zod when the action commits it.
 *
 * @stable
 * @typeParam S - the state type
 * @typeParam E - the event schemas (their output: what is stored)
 * @typeParam A - the action schemas (their output: what the handler receives)
 * @typeParam K - the action
 * @typeParam EI - the event schemas' input: what the handler returns (default: `E`)
 * @param action - the validated action payload
 * @param snapshot - the stream's current state, with the last event and the patch and snapshot counts
 * @param target - the stream, the actor and the options the action was called with
 * @param timers - `schedule` and `cancel`: timers that commit with the events (see {@link ActionTimers})
 * @see [State management](/docs/concepts/state-management#actions) — explains actions.
 * @example
 * ```ts
 * const increment: ActionHandler<{ count: number }, { Incremented: { by: number } }, { increment: { by: number } }, "increment"> =
 *   ({ by }) => ["Incremented", { by }];
 * ```
 */
export type ActionHandler<
  S extends Schema,
  E extends Schemas,
  A extends Schemas,
  K extends keyof A,
  EI extends Schemas = E,
> = (
  action: Readonly<A[K]>,
  snapshot: Readonly<Snapshot<S, E>>,
  target: Target,
  timers: ActionTimers<A>
) => Emitted<EI> | Emitted<EI>[] | undefined;

/**
 * One {@link ActionHandler} per action name.
 *
 * @stable
 * @typeParam EI - the event schemas' input, what the handlers return (default: `E`)
 * @example
 * ```ts
 * const on: ActionHandlers<{ count: number }, { Incremented: { by: number } }, { increment: { by: number } }> = {
 *   increment: ({ by }) => ["Incremented", { by }],
 * };
 * ```
 */
export type ActionHandlers<S extends Schema, E extends Schemas, A extends Schemas, EI extends Schemas = E> = {
  [K in keyof A]: ActionHandler<S, E, A, K, EI>;
};

/**
 * The zod schema of a state's own shape.
 *
 * @stable
 * @example
 * ```ts
 * const Counter: StateSchema<{ count: number }> = z.object({ count: z.number() });
 * ```
 */
export type StateSchema<S extends Schema> = z.ZodType<S>;

/**
 * Every zod schema a state declares: its own shape, its events and its actions.
 *
 * @stable
 * @typeParam S - the state type
 * @typeParam E - the events' data, as their schemas output it
 * @typeParam A - the actions' payloads, as their schemas output them
 * @typeParam EI - the events' data, as their schemas take it (default: `E`)
 * @typeParam AI - the actions' payloads, as their schemas take them (default: `A`)
 * @example
 * ```ts
 * const schemas: StateSchemas<{ count: number }, { Incremented: { by: number } }, { increment: { by: number } }> = {
 *   state: z.object({ count: z.number() }),
 *   events: { Incremented: z.object({ by: z.number() }) },
 *   actions: { increment: z.object({ by: z.number() }) },
 * };
 * ```
 */
export type StateSchemas<
  S extends Schema,
  E extends Schemas,
  A extends Schemas,
  EI extends Schemas = E,
  AI extends Schemas = A,
> = {
  /** Schema of the state. */
  readonly state: StateSchema<S>;
  /** Schema of each event's data. */
  readonly events: ZodTypes<E, EI>;
  /** Schema of each action's payload. */
  readonly actions: ZodTypes<A, AI>;
};

/**
 * An older shape of an event and how to turn it into the current one. Build
 * it with {@link upcaster}, which infers the old shape from its schema; list
 * them per event with `state(...).upcast({ Event: [...] })`.
 *
 * @stable
 * @typeParam T - the event's current data type
 * @see [Changing your model](/docs/concepts/changing-your-model#renaming-a-field-an-upcaster) — walks through an upcaster.
 * @example
 * ```ts
 * const fromV1: Upcaster<{ title: string; priority: string }> = upcaster(
 *   z.object({ title: z.string() }),
 *   (v1) => ({ ...v1, priority: "normal" })
 * );
 * ```
 */
export type Upcaster<T> = {
  /** The older shape. */
  readonly schema: z.ZodType;
  /**
   * Turns data of the older shape into the current one.
   *
   * @param old - the stored data, parsed by `schema`
   */
  readonly to: (old: any) => T;
};

/**
 * The {@link Upcaster}s of a state's events, by event name, tried in order
 * when stored data no longer matches the event's current schema.
 *
 * @stable
 * @example
 * ```ts
 * const upcasts: Upcasters<{ Opened: { title: string; priority: string } }> = {
 *   Opened: [upcaster(z.object({ title: z.string() }), (v1) => ({ ...v1, priority: "normal" }))],
 * };
 * ```
 */
export type Upcasters<E extends Schemas> = { readonly [K in keyof E]?: ReadonlyArray<Upcaster<E[K]>> };

/**
 * A built state: its name, schemas, initial value, patch handlers, action
 * handlers, invariants and snapshot rule. Built with {@link state}; registered
 * with `act().with(...)`.
 *
 * @stable
 * @typeParam S - the state type
 * @typeParam E - the events' data, as their schemas output it (what patches, reactions and projections read)
 * @typeParam A - the actions' payloads, as their schemas output them (what action handlers receive)
 * @typeParam EI - the events' data, as their schemas take it (what action handlers return; default: `E`)
 * @typeParam AI - the actions' payloads, as their schemas take them (what `app.do` takes; default: `A`)
 * @see [State management](/docs/concepts/state-management#states) — explains states.
 * @example
 * ```ts
 * const Counter: State<{ count: number }, { Incremented: { by: number } }, { increment: { by: number } }> =
 *   state("Counter", z.object({ count: z.number() }))
 *     .init(() => ({ count: 0 }))
 *     .emits({ Incremented: z.object({ by: z.number() }) })
 *     .patch({ Incremented: (e, s) => ({ count: s.count + e.data.by }) })
 *     .on("increment", z.object({ by: z.number() }))
 *     .emit(({ by }) => ["Incremented", { by }])
 *     .build();
 * ```
 */
export type State<
  S extends Schema,
  E extends Schemas,
  A extends Schemas,
  EI extends Schemas = E,
  AI extends Schemas = A,
> = StateSchemas<S, E, A, EI, AI> & {
  /** Name of the state (used in errors and logs). */
  readonly name: string;
  /** Returns the state of a stream that has no events. */
  readonly init: () => Readonly<S>;
  /** How each event changes the state. */
  readonly patch: PatchHandlers<S, E>;
  /** What each action emits. */
  readonly on: ActionHandlers<S, E, A, EI>;
  /** Invariants checked before each action. */
  readonly given: GivenHandlers<S, A>;
  /** When it returns true after a commit, a snapshot of the state is committed. */
  readonly snap?: (snapshot: Snapshot<S, E>) => boolean;
  /** How older shapes of its events become the current ones. */
  readonly upcasts: Upcasters<E>;
  /** The personal fields of its events, and whose data they are (see `StateBuilder.personal`). */
  readonly personal?: PersonalData<E>;
  /**
   * Identifies this definition in the snapshots it writes: its name, a hash
   * of its state schema and the `version` given to `.snap`. Loads ignore
   * snapshots written under another one and rebuild from events.
   */
  readonly version: string;
};

/**
 * The committed event type of event `K` of a built state — handy for typing
 * reaction handlers declared away from the builder.
 *
 * @stable
 * @typeParam T - a built state (`typeof MyState`)
 * @typeParam K - one of its event names
 * @example
 * ```ts
 * async function notify(event: AsCommitted<typeof Ticket, "TicketOpened">) {
 *   console.log(event.data.title, event.stream);
 * }
 * ```
 */
export type AsCommitted<T extends State<any, any, any, any, any>, K extends keyof T["events"]> =
  T extends State<any, infer E, any, any, any> ? (K extends keyof E ? Committed<E, K> : never) : never;
