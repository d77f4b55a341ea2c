import { Act } from "./act.js";
import { BuilderError } from "./core/errors.js";
import { checkOptions, OptionSchemas } from "./core/inputs.js";
import { adopt } from "./core/ports.js";
import type { Projection } from "./builders/projection.js";
import { isProjection, withProjection } from "./projections/projection-registry.js";
import type { Schema, Schemas, State } from "./types/action.js";
import type { Store } from "./types/ports.js";
import type { Clock } from "./types/timers.js";
import type { Reaction, ReactionHandler, ReactionOptions, ReactionResolver, Registry } from "./types/reaction.js";
import { legacyAliases, reactionKey } from "./builders/reaction-names.js";
import { Tenants } from "./tenants/tenants.js";
import { strategyOf, type TenantStores } from "./tenants/tenant-stores.js";

/**
 * The step after `.on(event).do(handler)`: optionally say where the reaction
 * runs — `.to("stream")`, `.to({ target, source? })`,
 * `.to(event => ({ target, source? }))` — or `.void()` for nowhere; by
 * default it runs on the event's own stream. It is also an {@link ActBuilder}:
 * without `.to`/`.void`, go on with `.with`, `.on` or `.build`.
 *
 * @stable
 * @typeParam S - the state type of each action so far
 * @typeParam E - the events so far
 * @typeParam A - the actions so far, their payloads as `app.do` takes them (the schemas' input)
 * @typeParam K - the event the reaction handles
 * @see [Event sourcing](/docs/concepts/event-sourcing#reactions) — explains where a reaction runs.
 * @example
 * ```ts
 * act().with(Ticket)
 *   .on("TicketOpened")
 *   .do(async (event) => console.log(`assign ${event.data.title}`))
 *   .to((e) => ({ target: `assign-${e.stream}` }))
 *   .build();
 * ```
 */
export type ReactionStep<S extends Schemas, E extends Schemas, A extends Schemas, K extends keyof E> = ActBuilder<
  S,
  E,
  A
> & {
  /**
   * Runs the reaction on the stream a resolver picks per event, on a fixed
   * stream (`"audit"`), or on a fixed `{ target, source? }`.
   *
   * @param resolver - a {@link ReactionResolver} called per event, a stream name, or a fixed `{ target, source? }`
   * @returns the {@link ActBuilder}, with the reaction registered
   */
  to(
    resolver: ReactionResolver<E, K> | string | { readonly target: string; readonly source?: string }
  ): ActBuilder<S, E, A>;
  /**
   * Registers the reaction without a target stream: it never runs.
   *
   * @returns the {@link ActBuilder}, with the reaction registered
   */
  void(): ActBuilder<S, E, A>;
};

/**
 * The step after `.on(event)`: `.do(handler)` sets what the reaction does.
 * Next: {@link ReactionStep}.
 *
 * @stable
 * @typeParam S - the state type of each action so far
 * @typeParam E - the events so far
 * @typeParam A - the actions so far, their payloads as `app.do` takes them (the schemas' input)
 * @typeParam K - the event the reaction handles
 * @example
 * ```ts
 * const step = act().with(Counter).on("Incremented"); // a ReactionDoStep
 * const next = step.do(async (event) => console.log(event.data.by)); // → .to, .void, or on with the app
 * ```
 */
export type ReactionDoStep<S extends Schemas, E extends Schemas, A extends Schemas, K extends keyof E> = {
  /**
   * Sets the handler, with options (defaults `blockOnError: true`, `maxRetries: 3`).
   *
   * @param handler - a {@link ReactionHandler}: gets the committed event, the reaction stream and the app
   * @param options - {@link ReactionOptions} to change; omitted, the defaults
   * @returns the next step, {@link ReactionStep} (`.to`, `.void`, or any {@link ActBuilder} step)
   * @throws ValidationError naming an option out of range (see {@link OptionSchemas})
   */
  do(handler: ReactionHandler<E, K, A>, options?: Partial<ReactionOptions> & ReactionNaming): ReactionStep<S, E, A, K>;
};

/**
 * How a reaction is known in the store: its reaction streams record the name
 * `"<event>/<name>"`, and its progress on each stream is kept under it. The
 * name must stay the same from one release to the next; registering other
 * reactions or projections before it does not change it.
 *
 * @stable
 * @see [Deploying and upgrading](/docs/guides/deploying-and-upgrading#reaction-names) — explains when to name a reaction and how to rename one.
 * @example
 * ```ts
 * act().with(Counter)
 *   .on("Incremented")
 *   .do(async (event) => console.log(event.data.by), { name: "log-increment" })
 *   .build();
 * ```
 */
export type ReactionNaming = {
  /**
   * The reaction's name among the reactions to its event. Default: the
   * handler function's name, or `"reaction"` for an anonymous function. Two
   * reactions to one event cannot share a name. Name a reaction when its
   * function has no name or a bundler may rename functions (minifiers do,
   * unless told to keep names). Letters, digits and `_ . - : @ +`, up to 100
   * characters; `projection:` starts the names of projections only.
   */
  readonly name?: string;
  /**
   * The names it had before, to rename a reaction without losing its place:
   * streams that recorded an earlier name are still this reaction's, and
   * progress recorded under it counts. Stored names of releases that numbered
   * reactions by position (`"invoice#1"`) can be given here too; the
   * position-numbered name of the same function is recognised without it.
   */
  readonly renamedFrom?: string | readonly string[];
};

/**
 * What `build` takes: the store the app uses. Without one, the app uses the
 * process-wide {@link store} port, whatever adapter it holds at each use.
 *
 * @stable
 * @see [Configuration](/docs/concepts/configuration#one-store-per-app) — when to bind an app to its store.
 * @example
 * ```ts
 * import { SqliteStore } from "@act-root/act-sqlite";
 *
 * const options: BuildOptions = { store: new SqliteStore({ filename: "app.db" }) };
 * const app = act().with(Counter).build(options);
 * ```
 */
export type BuildOptions = {
  /**
   * The store this app reads and writes: its actions, loads and queries,
   * its drains, consumers, projections and operator commands all go to it,
   * and to no other. Apps with different stores run side by side in one
   * process (a read model in memory beside a SQLite or PostgreSQL app, two
   * databases) without seeing each other's events. Seed it before use;
   * {@link disposeAndExit} disposes it after the app's consumer stopped, as
   * it does the store port's adapter.
   */
  readonly store?: Store;
  /**
   * Where the app reads the time for its timers: when one scheduled
   * `afterMillis` is due, and which are due at a drain (default: the system
   * clock). Tests pass the testing kit's `testClock()` to move time by hand.
   * @experimental
   */
  readonly clock?: Clock;
};

/**
 * The app builder returned by {@link act}: register states with `.with`,
 * reactions with `.on(event).do(handler)`, then `.build()` the {@link Act}.
 *
 * Every step returns a new builder; keep the result. A step never changes
 * the builder it was called on, nor an app already built from it, so two
 * apps built from one base share nothing added after it — and a step whose
 * result is dropped does nothing (`build()` of a builder without states
 * throws to say so).
 *
 * @stable
 * @typeParam S - the state type of each action so far
 * @typeParam E - the events so far
 * @typeParam A - the actions so far, their payloads as `app.do` takes them (the schemas' input)
 * @sortStrategy source-order
 * @see [Event sourcing](/docs/concepts/event-sourcing#reactions) — explains how reactions run.
 * @example
 * ```ts
 * const app = act()
 *   .with(Counter)
 *   .on("Incremented").do(async (event) => console.log(event.data.by))
 *   .build();
 * ```
 */
export type ActBuilder<S extends Schemas, E extends Schemas, A extends Schemas> = {
  /**
   * Registers a state: its actions and events join the app's types. A state
   * added twice counts once; an action or event name owned by another state throws.
   *
   * @param state - a built {@link State} (the end of a `state(...)` chain)
   * @returns the {@link ActBuilder}, with the state's actions and events added
   * @throws {@link BuilderError} for a state builder instead of a built state, a second state with the same name, or an action or event another state owns
   */
  with<SX extends Schema, EX extends Schemas, AX extends Schemas, EIX extends Schemas, AIX extends Schemas>(
    state: State<SX, EX, AX, EIX, AIX>
  ): ActBuilder<S & { [K in keyof AX]: SX }, E & EX, A & AIX>;
  /**
   * Registers a projection (built with `projection(name)`): it runs with the app's
   * drains — or, built with `{ inline: true }`, inside each commit. Every event it handles must be emitted by a state registered
   * before, and its name must be unique in the app.
   *
   * @param projection - a built {@link Projection}
   * @returns the {@link ActBuilder}, with the projection registered
   */
  with<PE extends Schemas, Tx>(projection: Projection<PE, Tx>): ActBuilder<S, E, A>;
  /**
   * Starts a reaction to the event `event` (a name this app's states emit).
   *
   * @param event - the event name; a state registered before with `.with` must emit it
   * @returns the next step, {@link ReactionDoStep} (`.do`)
   * @throws {@link BuilderError} when no state registered so far emits `event`
   */
  on<K extends keyof E & string>(event: K): ReactionDoStep<S, E, A, K>;
  /**
   * Returns the app, bound to the store given in `options` or, without one,
   * to the process-wide {@link store} port.
   *
   * @param options - the app's own store (see {@link BuildOptions}); omitted, the store port's
   * @returns the {@link Act}, ready for `do`, `load`, `query` and `drain`
   * @throws {@link BuilderError} when no state was registered, or `store` is not a store
   * @example
   * ```ts
   * import { PostgresStore } from "@act-root/act-pg";
   *
   * const app = act().with(Counter).build({ store: new PostgresStore({ database: "app" }) });
   * await app.store.seed();
   * ```
   */
  build(options?: BuildOptions): Act<S, E, A>;
  /**
   * Returns the app once per tenant: {@link Tenants}, whose `app(tenant)` is
   * this app bound to the tenant's own store, made by `options.store`.
   *
   * @param options - where each tenant's data lives (see {@link TenantsOptions})
   * @returns the {@link Tenants}: `add`, `app`, `remove`, `start`
   * @throws {@link BuilderError} when no state was registered, or `store` is neither a function nor a strategy
   * @see [Multi-tenancy](/docs/guides/multi-tenancy) — strategies, isolation and the tenants' consumer.
   * @experimental
   * @example
   * ```ts
   * import { sqliteTenants } from "@act-root/act-sqlite";
   *
   * const tenants = act().with(Counter).buildTenants({ store: sqliteTenants({ folder: "./data" }) });
   * const acme = await tenants.add("acme"); // ./data/acme.db, seeded
   * ```
   */
  buildTenants(options: TenantsOptions): Tenants<S, E, A>;
};

/**
 * What `buildTenants` takes: where each tenant's data lives, and the clock
 * of every tenant's app.
 *
 * @experimental
 * @example
 * ```ts
 * const options: TenantsOptions = { store: (tenant) => new SqliteStore({ filename: `./data/${tenant}.db` }) };
 * const tenants = act().with(Counter).buildTenants(options);
 * ```
 */
export type TenantsOptions = {
  /**
   * A strategy ({@link TenantStores}: `sqliteTenants`, `postgresSchemaTenants`,
   * `postgresDatabaseTenants`), or a function from a tenant id (already
   * checked) to a new store of that tenant's own.
   */
  readonly store: TenantStores | ((tenant: string) => Store);
  /** Where every tenant's app reads the time for its timers (default: the system clock). */
  readonly clock?: Clock;
};

const defaults: ReactionOptions = { blockOnError: true, maxRetries: 3 };

/** Whether `value` has the calls an app makes on its store (a typo or a missing `new` fails at build, not at the first action). */
function isStore(value: unknown): value is Store {
  const candidate = value as Record<string, unknown> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    ["commit", "query", "poll", "lease", "ack", "dispose"].every((call) => typeof candidate[call] === "function")
  );
}

/** Where a reaction runs: a resolver, one stream's name, or one fixed `{ target, source? }`. */
type Route<E extends Schemas, K extends keyof E> =
  | ReactionResolver<E, K>
  | string
  | { readonly target: string; readonly source?: string };

/** Every form of `.to(...)` as a resolver function. */
function resolverOf<E extends Schemas, K extends keyof E>(route: Route<E, K>): ReactionResolver<E, K> {
  if (typeof route === "function") return route;
  const fixed = typeof route === "string" ? { target: route } : { ...route };
  return () => fixed;
}

/**
 * One step of the builder. Every step returns a new builder and leaves the
 * one it was called on untouched — registries are copied on write — so two
 * apps built from one base never share a reaction added to only one of them.
 */
function builder<S extends Schemas, E extends Schemas, A extends Schemas>(
  registry: Registry<S, E, A>,
  states: ReadonlySet<State<any, any, any>>
): ActBuilder<S, E, A> {
  return {
    with(state: State<any, any, any> | Projection<any, any>): any {
      if (isProjection(state)) return builder(withProjection(registry, state), states);
      // Plain JavaScript can pass the state's builder instead of the state: say so, not "cannot read ... of undefined".
      if (typeof state?.name !== "string" || !state.actions || !state.events || !state.patch)
        throw new BuilderError("act", "with", "act().with() takes a built state: end the state's chain with .build()");
      if (states.has(state)) return builder(registry as never, states);
      const twin = [...states].find((s) => s.name === state.name);
      if (twin)
        throw new BuilderError(
          "act",
          "with",
          `Another state named "${state.name}" is already registered: state names must be unique in an app, since they identify its snapshots`
        );
      const actions: Record<string, State<any, any, any>> = { ...registry.actions };
      const schemas: Record<string, unknown> = { ...registry.schemas };
      const events: Record<string, unknown> = { ...registry.events };
      for (const name of Object.keys(state.actions)) {
        if (Object.hasOwn(actions, name))
          throw new BuilderError(
            "act",
            "with",
            `Action "${name}" of state "${state.name}" is already handled by state "${actions[name].name}"`
          );
        actions[name] = state;
        schemas[name] = state.actions[name];
      }
      const owners = new Map([...states].flatMap((s) => Object.keys(s.events).map((e) => [e, s.name] as const)));
      for (const name of Object.keys(state.events)) {
        if (owners.has(name))
          throw new BuilderError(
            "act",
            "with",
            `Event "${name}" of state "${state.name}" is already emitted by state "${owners.get(name)}"`
          );
        events[name] = {
          schema: state.events[name],
          upcasts: state.upcasts[name],
          reactions: new Map(),
          ...(state.personal?.[name] && { personal: state.personal[name] }),
        };
      }
      return builder({ ...registry, actions, schemas, events } as never, new Set([...states, state]));
    },
    on(event) {
      if (!Object.hasOwn(registry.events, event))
        throw new BuilderError(
          "act",
          "on",
          `No state registered so far emits "${event}": register the state that emits it with .with(State) before .on("${event}")`
        );
      return {
        do(handler, given) {
          const { name, renamedFrom, ...options } = given ?? {};
          checkOptions("reaction", options, OptionSchemas.reaction);
          const register = registry.events[event];
          const { key, aliases } = reactionKey(event, register.reactions, handler, name, renamedFrom);
          // One key per registration; `.to`/`.void` choose the resolver stored under it.
          const registered = (resolver: ReactionResolver<E, typeof event>) => {
            const reactions = new Map(register.reactions);
            reactions.set(key, { handler, resolver, options: { ...defaults, ...options }, aliases } as Reaction<
              E,
              typeof event,
              A
            >);
            return builder(
              { ...registry, events: { ...registry.events, [event]: { ...register, reactions } } },
              states
            );
          };
          const self = registered((e) => ({ target: e.stream, source: e.stream }));
          return {
            ...self,
            to: (route) => registered(resolverOf(route)),
            void: () => registered(() => undefined),
          };
        },
      };
    },
    build(options?: BuildOptions) {
      if (!states.size)
        throw new BuilderError(
          "act",
          "build",
          "act().build() has no states: register a state with .with(State) and chain the calls, as in act().with(State).build() — each step returns a new builder and leaves the one it was called on unchanged, so keep the result"
        );
      const bound = options?.store;
      if (bound !== undefined && !isStore(bound))
        throw new BuilderError(
          "act",
          "build",
          "build({ store }) needs a store (an object with commit, query, poll, lease and ack, such as InMemoryStore, SqliteStore or PostgresStore); leave store out to use the store() port"
        );
      const clock = options?.clock;
      if (clock !== undefined && typeof clock?.now !== "function")
        throw new BuilderError("act", "build", "build({ clock }) needs an object with a now() method returning a Date");
      if (bound) adopt(bound);
      return new Act(legacyAliases(registry), bound, clock);
    },
    buildTenants(options: TenantsOptions) {
      const strategy = strategyOf(options?.store);
      const clock = options.clock;
      // Checked now, not at the first tenant: a builder without states fails here.
      const built = builder(registry, states);
      if (!states.size) built.build();
      return new Tenants<S, E, A>((bound) => built.build({ store: bound, clock }), strategy, clock);
    },
  };
}

/**
 * Starts building an app. Register states with `.with(State)` and reactions
 * with `.on("Event").do(handler)`, then `.build()`. Action and event names
 * are typed end to end: a typo does not compile, and `app.do` infers each
 * action's payload.
 *
 * ## The chain
 *
 * Each step's type says what you can call next:
 *
 * 1. `act()` returns an empty {@link ActBuilder}: `.with(State)` registers a
 *    state and stays here; `.on("Event")` leads to step 2; `.build()`
 *    returns the {@link Act}.
 * 2. {@link ReactionDoStep}: `.do(handler, options?)` leads to step 3.
 * 3. {@link ReactionStep}: `.to(...)` or `.void()` says where the reaction
 *    runs and goes back to step 1; without them it runs on the event's own
 *    stream, and every step 1 call (`.with`, `.on`, `.build`) is available.
 *
 * @stable
 * @returns an empty {@link ActBuilder}
 * @see [Event sourcing](/docs/concepts/event-sourcing#reactions) — explains how reactions run.
 * @example
 * ```ts
 * import { act } from "@act-root/act";
 *
 * const app = act()
 *   .with(Counter)
 *   .on("Incremented")
 *   .do(async (event, stream, app) => {
 *     // Count every increment of other counters on "audit" — but not audit's own, which would loop.
 *     await app.do("increment", { stream, actor: { id: "bot", name: "bot" } }, { by: 1 }, { reactingTo: event });
 *   })
 *   .to((event) => (event.stream === "audit" ? undefined : { target: "audit" }))
 *   .build();
 * ```
 */
export function act(): ActBuilder<{}, {}, {}> {
  return builder<{}, {}, {}>({ actions: {}, schemas: {}, events: {} } as Registry<{}, {}, {}>, new Set());
}
