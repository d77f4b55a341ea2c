import type { ZodType, z } from "zod";
import { BuilderError } from "../core/errors.js";
import { versionOf } from "./snapshot-version.js";
import { checkPersonal } from "./personal.js";
import type { PersonalData } from "../types/personal.js";
import type { Target } from "../core/schemas.js";
import type { ActionTimers } from "../types/action-timers.js";
import type {
  ActionHandler,
  ActionHandlers,
  Emitted,
  ExactEmitted,
  GivenHandlers,
  Invariant,
  PatchHandlers,
  Schema,
  Schemas,
  Snapshot,
  State,
  Upcaster,
  Upcasters,
  ZodTypes,
} from "../types/action.js";

/**
 * The first step of {@link state}: `.init` says what a stream with no events
 * holds. Next: {@link StateEmitsStep}.
 *
 * @stable
 * @typeParam S - the state type, from the state's zod schema
 * @example
 * ```ts
 * const step: StateInitStep<{ count: number }> = state("Counter", z.object({ count: z.number() }));
 * const next = step.init(() => ({ count: 0 })); // → .emits
 * ```
 */
export type StateInitStep<S extends Schema> = {
  /**
   * Sets the state of a stream with no events yet.
   *
   * @param init - returns the initial state; called for every stream loaded without a snapshot
   * @returns the next step, {@link StateEmitsStep} (`.emits`)
   */
  init(init: () => Readonly<S>): StateEmitsStep<S>;
};

/**
 * The step after `.init`: `.emits` declares the events the state emits.
 * Next: {@link StatePatchStep}.
 *
 * @stable
 * @typeParam S - the state type
 * @example
 * ```ts
 * const step: StateEmitsStep<{ count: number }> = state("Counter", z.object({ count: z.number() }))
 *   .init(() => ({ count: 0 }));
 * const next = step.emits({ Incremented: z.object({ by: z.number() }) }); // → .patch
 * ```
 */
export type StateEmitsStep<S extends Schema> = {
  /**
   * Declares the events the state emits, with a zod schema for each one's data.
   *
   * Emitted data is parsed with the schema once, when the action commits it
   * — transforms and defaults run then — and the store keeps the schema's
   * output. Reading checks stored data against the schema's output side and
   * never runs its transforms again: a pipe (`.transform(fn).pipe(z.date())`)
   * or a codec is read by its output schema, a bare `.transform(fn)` as stored.
   *
   * So the types follow the schemas' two sides: action handlers return
   * each event's input (`z.input`: a field with a default may be left out,
   * a transformed one is given as the transform takes it), while patches,
   * reactions and projections read its output (`z.output`).
   *
   * @param events - one zod schema per event name; event data is parsed with it when committed and checked against its output side when read
   * @returns the next step, {@link StatePatchStep} (`.patch`), typed with these events
   */
  emits<Z extends Record<string, z.ZodType<Schema>>>(
    events: Z
  ): StatePatchStep<
    S,
    { [K in keyof Z]: z.output<Z[K]> },
    { [K in keyof Z]: z.input<Z[K]> extends Schema ? z.input<Z[K]> : Schema }
  >;
};

/**
 * The step after `.emits`: `.patch` says how each event changes the state.
 * Next: {@link StateBuilder}, where actions are added.
 *
 * @stable
 * @typeParam S - the state type
 * @typeParam E - the events declared with `.emits`, their data as the schemas output it
 * @typeParam EI - the same events' data as the schemas take it (default: `E`)
 * @example
 * ```ts
 * const step: StatePatchStep<{ count: number }, { Incremented: { by: number } }> =
 *   state("Counter", z.object({ count: z.number() }))
 *     .init(() => ({ count: 0 }))
 *     .emits({ Incremented: z.object({ by: z.number() }) });
 * const next = step.patch({ Incremented: (e, s) => ({ count: s.count + e.data.by }) }); // → .on
 * ```
 */
export type StatePatchStep<S extends Schema, E extends Schemas, EI extends Schemas = E> = {
  /**
   * Says how each event changes the state — one handler per event, all
   * required (a missing one does not compile).
   *
   * @param patch - one {@link PatchHandler} per event name, returning the part of the state that changes
   * @returns the next step, {@link StateBuilder} (`.on`, `.upcast`, `.snap`, `.build`)
   */
  patch(patch: PatchHandlers<S, E>): StateBuilder<S, E, {}, EI, {}>;
};

/**
 * The step after `.given(rules)`: the action's required `.emit` handler.
 * Next: back to {@link StateBuilder}.
 *
 * @stable
 * @typeParam S - the state type
 * @typeParam E - the events
 * @typeParam A - the actions so far, the new one included
 * @typeParam K - the new action
 * @typeParam EI - the events' data as their schemas take it (default: `E`)
 * @typeParam AI - the actions' payloads as their schemas take them (default: `A`)
 * @example
 * ```ts
 * const step: ActionEmitStep<{ open: boolean }, { Closed: {} }, { close: {} }, "close"> =
 *   state("Ticket", z.object({ open: z.boolean() }))
 *     .init(() => ({ open: true }))
 *     .emits({ Closed: ZodEmpty })
 *     .patch({ Closed: () => ({ open: false }) })
 *     .on("close", ZodEmpty)
 *     .given([{ description: "Ticket must be open", valid: (s) => s.open }]);
 * const next = step.emit(() => ["Closed", {}]); // → .on, .snap or .build
 * ```
 */
export type ActionEmitStep<
  S extends Schema,
  E extends Schemas,
  A extends Schemas,
  K extends keyof A,
  EI extends Schemas = E,
  AI extends Schemas = A,
> = {
  /**
   * Sets what the action emits, as {@link ActionBuilder.emit} does.
   *
   * @param handler - gets the validated payload, the current snapshot and the target; returns a `[name, data]` tuple, an array of them, or nothing
   * @returns the {@link StateBuilder}, with the action added
   */
  emit<R extends Emitted<EI> | Emitted<EI>[] | undefined>(
    handler: (
      action: Readonly<A[K]>,
      snapshot: Readonly<Snapshot<S, E>>,
      target: Target,
      timers: ActionTimers<AI>
    ) => R & ExactEmitted<R, EI>
  ): StateBuilder<S, E, A, EI, AI>;
};

/**
 * The step after `.snap(rule)`: `.build()` is all that is left.
 *
 * @stable
 * @typeParam S - the state type
 * @typeParam E - the events
 * @typeParam A - the actions
 * @typeParam EI - the events' data as their schemas take it (default: `E`)
 * @typeParam AI - the actions' payloads as their schemas take them (default: `A`)
 * @example
 * ```ts
 * const step: StateBuildStep<{ count: number }, { Incremented: { by: number } }, {}> =
 *   state("Counter", z.object({ count: z.number() }))
 *     .init(() => ({ count: 0 }))
 *     .emits({ Incremented: z.object({ by: z.number() }) })
 *     .patch({ Incremented: (e, s) => ({ count: s.count + e.data.by }) })
 *     .snap((s) => s.patches >= 50);
 * const Counter = step.build();
 * ```
 */
export type StateBuildStep<
  S extends Schema,
  E extends Schemas,
  A extends Schemas,
  EI extends Schemas = E,
  AI extends Schemas = A,
> = {
  /**
   * Returns the built state.
   *
   * @returns the {@link State}, ready for `act().with(...)`
   */
  build(): State<S, E, A, EI, AI>;
};

/**
 * The step after `.on(action, schema)`: optional invariants with `.given`,
 * then the required `.emit` handler. Next: back to {@link StateBuilder}.
 *
 * @stable
 * @typeParam S - the state type
 * @typeParam E - the events
 * @typeParam A - the actions so far, the new one included (their payloads as the schemas output them)
 * @typeParam K - the new action
 * @typeParam EI - the events' data as their schemas take it (default: `E`)
 * @typeParam AI - the actions' payloads as their schemas take them (default: `A`)
 * @sortStrategy source-order
 * @see [State management](/docs/concepts/state-management#actions) — explains actions and their invariants.
 * @example
 * ```ts
 * state("Ticket", z.object({ open: z.boolean() }))
 *   .init(() => ({ open: true }))
 *   .emits({ Closed: ZodEmpty })
 *   .patch({ Closed: () => ({ open: false }) })
 *   .on("close", ZodEmpty) // ← an ActionBuilder
 *   .given([{ description: "Ticket must be open", valid: (s) => s.open }])
 *   .emit(() => ["Closed", {}]);
 * ```
 */
export type ActionBuilder<
  S extends Schema,
  E extends Schemas,
  A extends Schemas,
  K extends keyof A,
  EI extends Schemas = E,
  AI extends Schemas = A,
> = {
  /**
   * Adds the invariants checked before the action runs; the first that
   * fails throws an {@link InvariantError} with its description.
   *
   * @param rules - the {@link Invariant}s, checked in order against the current state and the actor
   * @returns the next step, {@link ActionEmitStep} (`.emit`)
   */
  given(rules: Invariant<S>[]): ActionEmitStep<S, E, A, K, EI, AI>;
  /**
   * Sets what the action emits: a `[name, data]` tuple, an array of them, or nothing.
   *
   * The handler receives the payload as the action's schema outputs it
   * (parsed: defaults filled, transforms run) and returns each event's data
   * as the event's schema takes it (parsed when the action commits). Data
   * with a field the event's schema does not declare does not compile.
   *
   * @param handler - gets the validated payload, the current snapshot and the target; returns the events to commit
   * @returns the {@link StateBuilder}, with the action added
   */
  emit<R extends Emitted<EI> | Emitted<EI>[] | undefined>(
    handler: (
      action: Readonly<A[K]>,
      snapshot: Readonly<Snapshot<S, E>>,
      target: Target,
      timers: ActionTimers<AI>
    ) => R & ExactEmitted<R, EI>
  ): StateBuilder<S, E, A, EI, AI>;
};

/**
 * The step after `.patch`: add actions with `.on`, an optional `.snap` rule,
 * and `.build()` the {@link State}. `.on` leads to {@link ActionBuilder},
 * whose `.emit` comes back here; `.snap` leads to {@link StateBuildStep}.
 *
 * Every step returns a new builder; keep the result. A step never changes the
 * builder it was called on, so several states can branch from one base and
 * each gets only the actions added on its own branch.
 *
 * @stable
 * @typeParam S - the state type
 * @typeParam E - the events
 * @typeParam A - the actions so far, their payloads as the schemas output them
 * @typeParam EI - the events' data as their schemas take it (default: `E`)
 * @typeParam AI - the actions' payloads as their schemas take them (default: `A`)
 * @sortStrategy source-order
 * @see [State management](/docs/concepts/state-management#actions) — explains actions, invariants and snapshots.
 * @example
 * ```ts
 * const builder: StateBuilder<{ count: number }, { Incremented: { by: number } }, {}> =
 *   state("Counter", z.object({ count: z.number() }))
 *     .init(() => ({ count: 0 }))
 *     .emits({ Incremented: z.object({ by: z.number() }) })
 *     .patch({ Incremented: (e, s) => ({ count: s.count + e.data.by }) });
 * ```
 */
export type StateBuilder<
  S extends Schema,
  E extends Schemas,
  A extends Schemas,
  EI extends Schemas = E,
  AI extends Schemas = A,
> = {
  /**
   * Declares an action and its payload schema. The name must be new: a
   * duplicate throws (and is a compile error).
   *
   * @param action - the action's name, unique within the state (and within the app it joins)
   * @param schema - zod schema of the payload; `app.do` takes its input type and parses it, and the handler receives its output type
   * @returns the next step, {@link ActionBuilder} (`.given`, `.emit`)
   * @throws {@link BuilderError} when the state already has an action of that name
   */
  on<K extends string, Z extends z.ZodType<Schema>>(
    action: K extends keyof A ? never : K,
    schema: Z
  ): ActionBuilder<
    S,
    E,
    A & { [P in K]: z.output<Z> },
    K,
    EI,
    AI & { [P in K]: z.input<Z> extends Schema ? z.input<Z> : Schema }
  >;
  /**
   * Lists, per event, the older shapes its stored data may have and how each
   * becomes the current one (see {@link upcaster}). Events are decoded on
   * read: data that matches the current schema is used as is (with the
   * schema's defaults and dates); otherwise the first older shape it matches
   * is upcast; otherwise the load fails naming the stream, event and path.
   *
   * @param upcasts - per event name, the {@link Upcaster}s of its older shapes, tried in order
   * @returns the {@link StateBuilder}, with the upcasters added
   */
  upcast(upcasts: Upcasters<E>): StateBuilder<S, E, A, EI, AI>;
  /**
   * Marks event fields as personal data and says whose data they are (the
   * data subject: a string field of the event, or else its stream). Their
   * values are encrypted with a key per subject kept in the store
   * (`Store.keys`) before they are stored, and decrypted when read;
   * `app.forget(subject)` destroys the keys, and the fields then read as
   * {@link FORGOTTEN} — so each must accept that string (`z.string()` does;
   * see {@link forgettable}). Called again, it adds to the events marked.
   *
   * @param personal - per event name, its personal `fields` and optional `subject` field
   * @returns the {@link StateBuilder}, with the fields marked
   * @throws {@link BuilderError} naming the event and field when one is not the state's, does not accept
   *   {@link FORGOTTEN}, or the subject is not a string field of the event
   * @see [Personal data](/docs/guides/personal-data) — what is encrypted, forgetting, key rotation.
   * @experimental
   */
  personal(personal: PersonalData<E>): StateBuilder<S, E, A, EI, AI>;
  /**
   * Commits a snapshot of the state after an action whenever `rule` returns
   * true, so loads start there. Typical: `(s) => s.patches >= 50`.
   *
   * Snapshots are tied to the definition that wrote them: a change of the
   * state's schema — or of `version`, to bump when patch handlers change
   * what the state means — makes loads ignore the older snapshots and
   * rebuild from events (logged once).
   *
   * @param rule - gets the snapshot after an action (state, last event, `patches` since the last snapshot); true writes a snapshot
   * @param options - the snapshot version; omitted, 0
   * @returns the last step, {@link StateBuildStep} (`.build`)
   */
  snap(
    rule: (snapshot: Snapshot<S, E>) => boolean,
    options?: {
      /** Bump it when the state's meaning changes without its schema changing (default 0). */
      version?: number;
    }
  ): StateBuildStep<S, E, A, EI, AI>;
  /**
   * Returns the built state.
   *
   * @returns the {@link State}, ready for `act().with(...)`
   */
  build(): State<S, E, A, EI, AI>;
};

function builder<S extends Schema, E extends Schemas, A extends Schemas, EI extends Schemas, AI extends Schemas>(
  base: Omit<State<S, E, A, EI, AI>, "actions" | "on" | "given" | "snap" | "upcasts" | "version" | "personal">,
  actions: ZodTypes<A, AI>,
  on: ActionHandlers<S, E, A, EI>,
  given: GivenHandlers<S, A>,
  upcasts: Upcasters<E> = {},
  personal: PersonalData<E> = {}
): StateBuilder<S, E, A, EI, AI> {
  const build = (snap?: State<S, E, A, EI, AI>["snap"], version?: number): State<S, E, A, EI, AI> => ({
    ...base,
    actions,
    on,
    given,
    snap,
    upcasts,
    personal,
    version: versionOf(base.name, base.state, version),
  });
  return {
    upcast: (more) => builder<S, E, A, EI, AI>(base, actions, on, given, { ...upcasts, ...more }, personal),
    personal: (more) =>
      builder<S, E, A, EI, AI>(base, actions, on, given, upcasts, {
        ...personal,
        ...checkPersonal(base.name, base.events as Record<string, ZodType>, more),
      }),
    on(action, schema) {
      if (Object.hasOwn(actions, action))
        throw new BuilderError("state", "on", `Duplicate action "${String(action)}" in state "${base.name}"`);
      // The types of each step are checked by its signature; here the new action is only stored.
      const emit = (handler: ActionHandler<S, E, any, any, EI>, rules?: Invariant<S>[]) =>
        builder<S, E, any, EI, any>(
          base as never,
          { ...actions, [action]: schema },
          { ...on, [action]: handler },
          // A copy of the rules: changing the caller's array later must not change a built state.
          rules ? { ...given, [action]: [...rules] } : given,
          upcasts,
          personal
        ) as never;
      return {
        given: (rules) => ({ emit: (handler) => emit(handler, rules) }),
        emit: (handler) => emit(handler),
      };
    },
    snap: (rule, options) => ({ build: () => build(rule, options?.version) }),
    build: () => build(),
  };
}

/**
 * Starts building a state: the model of one kind of stream. Chain
 * `.init(() => initial)`, `.emits({ Event: zod })`, `.patch({ Event: handler })`
 * (one per event, or it does not compile), then `.on("action", zod)` with an
 * optional `.given([...])` and a required `.emit(...)` per action, an optional
 * `.snap(...)`, and `.build()`. Every step returns a new builder and leaves
 * the one it was called on unchanged: chain the calls and keep the result.
 *
 * ## The chain
 *
 * Each step's type says what you can call next, so the editor completes the
 * chain and a step out of order does not compile:
 *
 * 1. `state(name, schema)` returns a {@link StateInitStep}: call `.init(() => initial)`.
 * 2. {@link StateEmitsStep}: `.emits({ Event: schema })` declares the events.
 * 3. {@link StatePatchStep}: `.patch({ Event: handler })`, one handler per event.
 * 4. {@link StateBuilder}: `.on("action", schema)` adds an action and leads to
 *    step 5; `.upcast({...})` adds older event shapes and stays here;
 *    `.snap(rule)` leads to step 7; `.build()` returns the {@link State}.
 * 5. {@link ActionBuilder}: `.given([rules])` leads to step 6; `.emit(handler)`
 *    adds the action and goes back to step 4.
 * 6. {@link ActionEmitStep}: `.emit(handler)` adds the action and goes back to step 4.
 * 7. {@link StateBuildStep}: `.build()` returns the {@link State}.
 *
 * @stable
 * @param name - the state's name, used in errors, logs and snapshot keys (unique within an app)
 * @param schema - zod schema of the state
 * @returns the first step, {@link StateInitStep} (`.init`)
 * @see [State management](/docs/concepts/state-management#states) — explains each step of the chain.
 * @example
 * ```ts
 * import { z } from "zod";
 * import { state } from "@act-root/act";
 *
 * export const Counter = state("Counter", z.object({ count: z.number() }))
 *   .init(() => ({ count: 0 }))
 *   .emits({ Incremented: z.object({ by: z.number().int() }) })
 *   .patch({ Incremented: (event, state) => ({ count: state.count + event.data.by }) })
 *   .on("increment", z.object({ by: z.number().int().positive() }))
 *   .emit(({ by }) => ["Incremented", { by }])
 *   .build();
 * ```
 */
export function state<S extends Schema>(name: string, schema: z.ZodType<S>): StateInitStep<S> {
  return {
    init(init) {
      return {
        emits<Z extends Record<string, z.ZodType<Schema>>>(events: Z) {
          type E = { [K in keyof Z]: z.output<Z[K]> };
          type EI = { [K in keyof Z]: z.input<Z[K]> extends Schema ? z.input<Z[K]> : Schema };
          return {
            patch(patch: PatchHandlers<S, E>): StateBuilder<S, E, {}, EI, {}> {
              return builder<S, E, {}, EI, {}>(
                { name, state: schema, init, events: events as unknown as ZodTypes<E, EI>, patch },
                {},
                {},
                {}
              );
            },
          };
        },
      };
    },
  };
}
