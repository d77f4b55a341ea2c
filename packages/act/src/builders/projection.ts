import { checkOptions, OptionSchemas } from "../core/inputs.js";
import type { Schema, Schemas, State } from "../types/action.js";
import type { Projection, ProjectionBatchHandler, ProjectionHandler, ProjectionOptions } from "../types/projection.js";

export type { Projection, ProjectionBatchHandler, ProjectionHandler, ProjectionOptions };

/**
 * The projection builder returned by {@link projection}: `.with(State)` brings
 * a state's events into the handlers' types, `.on(event, handler)` adds a
 * handler per event — or `.batch(events, handler)` one handler for them all —
 * and `.build()` returns the {@link Projection}. Every step returns a new builder.
 *
 * @stable
 * @typeParam E - the events of the states added so far
 * @typeParam H - the events handled so far
 * @typeParam Tx - the transaction handle handlers get
 * @example
 * ```ts
 * const builder: ProjectionBuilder<{}, {}, undefined> = projection("OpenTickets");
 * ```
 */
export type ProjectionBuilder<E extends Schemas, H extends Schemas, Tx> = {
  /**
   * Brings a state's events into the handlers' types.
   *
   * @param state - a built {@link State}
   * @returns the builder, with the state's events known
   */
  with<SX extends Schema, EX extends Schemas, AX extends Schemas>(
    state: State<SX, EX, AX, any, any>
  ): ProjectionBuilder<E & EX, H, Tx>;
  /**
   * Handles one event.
   *
   * @param event - the event's name (a state added with `.with` emits it)
   * @param handler - applies it to the read model
   * @returns the builder, with the handler added
   */
  on<K extends keyof E & string>(
    event: K,
    handler: ProjectionHandler<E, K, Tx>
  ): ProjectionBuilder<E, H & { [P in K]: E[K] }, Tx>;
  /**
   * Handles `events` with one handler that receives each drain's events at
   * once, in log order.
   *
   * @param events - the events' names
   * @param handler - applies them to the read model
   * @returns the last step, with only `.build()`
   */
  batch<K extends keyof E & string>(
    events: readonly K[],
    handler: ProjectionBatchHandler<Pick<E, K>, Tx>
  ): {
    /**
     * Returns the batched projection.
     *
     * @returns the {@link Projection}
     */
    build(): Projection<Pick<E, K>, Tx>;
  };
  /**
   * Returns the projection.
   *
   * @returns the {@link Projection}
   * @throws Error when no handler was added
   */
  build(): Projection<H, Tx>;
};

const defaults: ProjectionOptions = { maxRetries: 3, version: 1 };

/** The reaction stream of a projection's version. */
function streamOf(name: string, version: number): string {
  return version === 1 ? `projection:${name}` : `projection:${name}:v${version}`;
}

/** The projection the builder has so far; throws when it handles nothing. */
function make<E extends Schemas, Tx>(
  name: string,
  options: ProjectionOptions,
  events: string[],
  handlers: Record<string, ProjectionHandler<any, any, Tx>>,
  batch?: ProjectionBatchHandler<any, Tx>
): Projection<E, Tx> {
  if (!events.length)
    throw new Error(
      `projection("${name}") handles no event: add one with .on("Event", handler) or .batch(["Event"], handler) before .build()`
    );
  return Object.freeze({
    name,
    stream: streamOf(name, options.version),
    events: Object.freeze([...events]) as never,
    handlers: Object.freeze({ ...handlers }),
    batch,
    options,
  });
}

function builder<E extends Schemas, H extends Schemas, Tx>(
  name: string,
  options: ProjectionOptions,
  events: string[],
  handlers: Record<string, ProjectionHandler<any, any, Tx>>
): ProjectionBuilder<E, H, Tx> {
  return {
    with: () => builder(name, options, events, handlers),
    on(event, handler) {
      if (events.includes(event))
        throw new Error(`projection("${name}") already handles "${event}": one handler per event`);
      return builder(name, options, [...events, event], { ...handlers, [event]: handler });
    },
    batch(batched, handler) {
      if (events.length)
        throw new Error(`projection("${name}") mixes .on and .batch: a projection has one kind of handler`);
      if (new Set(batched).size !== batched.length) throw new Error(`projection("${name}").batch lists an event twice`);
      return { build: () => make(name, options, [...batched], {}, handler as never) };
    },
    build: () => make(name, options, events, handlers),
  };
}

/**
 * Starts a projection: a read model kept up to date from the events, added
 * to an app with `act().with(projection)`. It runs with the app's drains
 * (`app.start()`, `app.drain()`); `app.projected(...)` waits until it has
 * caught up with an action's events. With `{ inline: true }` it runs inside
 * the transaction that commits an action's events instead (the `inline`
 * option of {@link ProjectionOptions}).
 *
 * @stable
 * @typeParam Tx - the transaction handle the store passes handlers: `pg.PoolClient` for
 *   `PostgresStore`, the `Connection` for `SqliteStore`, `undefined` (the default) elsewhere
 * @param name - unique in the app; with the version, it names the projection's position
 * @param options - {@link ProjectionOptions} to change; omitted, the defaults
 * @returns an empty {@link ProjectionBuilder}
 * @throws ValidationError naming an option out of range
 * @see [Read models and projections](/docs/guides/projections) — the guide.
 * @example
 * ```ts
 * // With PostgresStore: projection<pg.PoolClient>(...), and write with `client.query(...)`.
 * const open = new Map<string, string>();
 * const OpenTickets = projection("OpenTickets")
 *   .with(Ticket)
 *   .on("TicketOpened", (event) => {
 *     open.set(event.stream, event.data.title);
 *   })
 *   .on("Closed", (event) => {
 *     open.delete(event.stream);
 *   })
 *   .build();
 * ```
 */
export function projection<Tx = undefined>(
  name: string,
  options: Partial<ProjectionOptions> = {}
): ProjectionBuilder<{}, {}, Tx> {
  if (typeof name !== "string" || !name.length || name.includes(":"))
    throw new Error(`projection(name) takes a non-empty name without ":", got ${JSON.stringify(name)}`);
  checkOptions("projection", options, OptionSchemas.projection);
  if (options.inline && options.local)
    throw new Error(
      `projection("${name}") is both inline and local: an inline projection runs inside each commit and has no position, a local one keeps its position in the process; choose one`
    );
  return builder(name, { ...defaults, ...options }, [], {});
}
