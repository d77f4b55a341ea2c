/**
 * What an app declares to put its actions, streams and reads on HTTP, and
 * what each route's `authorize` rule is told about a request. Every route
 * has a rule: a route without one is a build error, not an open door.
 */
import type { Actor, Projection, State } from "@act-root/act";
import type { z } from "zod";

/** May be awaited. */
type Maybe<T> = T | Promise<T>;

/**
 * A stream's state and version, as an action's rule loads it.
 *
 * @typeParam S - the state
 * @experimental
 * @example
 * ```ts
 * const loaded: Loaded<{ count: number }> = { state: { count: 2 }, version: 1 };
 * ```
 */
export type Loaded<S> = {
  /** The stream's current state (`init()` when it has no events). */
  readonly state: Readonly<S>;
  /** The stream's version (-1 when it has no events). */
  readonly version: number;
};

/**
 * What an action's `authorize` rule gets: who asks, for which stream, with
 * which (validated) payload, and a way to load the stream's current state
 * when the rule depends on it (loaded only if called).
 *
 * @typeParam P - the action's payload
 * @typeParam S - the state of the action's stream
 * @experimental
 * @example
 * ```ts
 * const rule = async ({ actor, load }: ActionRequest<{ by: number }, { count: number }>) =>
 *   actor.id.startsWith("admin:") || (await load()).state.count < 10;
 * ```
 */
export type ActionRequest<P, S> = {
  /** Who asks, from the `authenticate` hook. */
  readonly actor: Actor;
  /** The id from the URL. */
  readonly id: string;
  /** The stream it names (see {@link StreamRoute.stream}). */
  readonly stream: string;
  /** The payload, validated by the action's schema. */
  readonly payload: P;
  /** Loads the stream's current state and version (once, on the first call). */
  readonly load: () => Promise<Loaded<S>>;
};

/**
 * How an action is served: `POST /streams/{State}/{id}/{action}`, its body
 * the action's payload. Only the actions an app lists are served.
 *
 * @typeParam P - the action's payload
 * @typeParam S - the state of the action's stream
 * @experimental
 * @example
 * ```ts
 * const route: ActionRoute<{ by: number }, { count: number }> = { authorize: ({ actor }) => actor.id !== "guest" };
 * ```
 */
export type ActionRoute<P, S> = {
  /**
   * Whether this caller may ask for this action on this stream: false answers 403.
   *
   * @param request - the caller, the stream, the validated payload and a loader of the stream's state
   */
  readonly authorize: (request: ActionRequest<P, S>) => Maybe<boolean>;
  /** One line for the OpenAPI document. */
  readonly summary?: string;
};

/**
 * What a stream's read rule gets: who asks, and the stream's state as it is.
 *
 * @typeParam S - the state
 * @experimental
 * @example
 * ```ts
 * const mine = ({ actor, state }: StreamRequest<{ owner: string }>) => state.owner === actor.id;
 * ```
 */
export type StreamRequest<S> = {
  /** Who asks, from the `authenticate` hook. */
  readonly actor: Actor;
  /** The id from the URL. */
  readonly id: string;
  /** The stream it names. */
  readonly stream: string;
  /** The stream's current state (`init()` when it has no events). */
  readonly state: Readonly<S>;
  /** The stream's version (-1 when it has no events). */
  readonly version: number;
};

/**
 * How the streams of one state are addressed and read: `GET
 * /streams/{State}/{id}` answers the state and its version, `GET
 * /streams/{State}/{id}/events` its events as they are committed
 * (server-sent events). Build it with {@link stream}.
 *
 * @typeParam S - the state
 * @experimental
 * @example
 * ```ts
 * const tickets: StreamRoute<{ owner: string }> = {
 *   state: Counter as any,
 *   stream: (id) => `ticket-${id}`,
 *   authorize: ({ actor, state }) => state.owner === actor.id,
 * };
 * ```
 */
export type StreamRoute<S> = {
  /** The state the streams hold. */
  readonly state: State<any, any, any, any, any>;
  /**
   * The stream of an id from the URL (default: the id itself).
   *
   * @param id - the id from the URL
   */
  readonly stream?: (id: string) => string;
  /**
   * Whether this caller may read this stream, its state and its events: false answers 403.
   *
   * @param request - the caller, the stream and its state and version
   */
  readonly authorize: (request: StreamRequest<S>) => Maybe<boolean>;
};

/**
 * What a read's `authorize` rule gets: who asks, and the parsed query.
 *
 * @typeParam Q - the parsed query
 * @experimental
 * @example
 * ```ts
 * const onlySmall = ({ query }: ReadRequest<{ limit: number }>) => query.limit <= 20;
 * ```
 */
export type ReadRequest<Q> = {
  /** Who asks, from the `authenticate` hook. */
  readonly actor: Actor;
  /** The query string, parsed by the read's `query` schema. */
  readonly query: Q;
};

/**
 * A read endpoint, `GET /reads/{name}?…`: its query string parsed by
 * `query` (a zod object; use `z.coerce` for numbers — query values are
 * strings), its answer described by `answer` (only the fields it lists are
 * sent), served by `read` — usually a query of a projection's read model.
 * Build it with {@link read}.
 *
 * @typeParam Q - the query's schema
 * @typeParam R - the answer's schema
 * @experimental
 * @example
 * ```ts
 * const route: ReadRoute<z.ZodObject<{}>, z.ZodArray<z.ZodString>> = {
 *   query: z.object({}), answer: z.array(z.string()),
 *   authorize: () => true, read: () => ["a", "b"],
 * };
 * ```
 */
export type ReadRoute<Q extends z.ZodObject, R extends z.ZodType> = {
  /** The query string's schema. */
  readonly query: Q;
  /** The answer's schema: for the OpenAPI document, and to strip fields it does not list. */
  readonly answer: R;
  /**
   * Whether this caller may run this read with this query: false answers 403.
   *
   * @param request - the caller and the parsed query
   */
  readonly authorize: (request: ReadRequest<z.output<Q>>) => Maybe<boolean>;
  /**
   * Answers the query.
   *
   * @param query - the query string, parsed by the `query` schema
   * @param actor - who asks
   */
  readonly read: (query: z.output<Q>, actor: Actor) => Maybe<z.input<R>>;
  /** One line for the OpenAPI document. */
  readonly summary?: string;
  /**
   * The projection whose read model `read` queries. Given, the read is also
   * served live at `GET /reads/{name}/changes` (server-sent events): the
   * answer at once, then again each time the projection has applied new
   * events and the answer differs. An asynchronous projection kept in the
   * store (not `local`) or an inline one.
   */
  readonly projection?: Projection<any, any>;
};

/**
 * Declares how the streams of a state are addressed and who may read them,
 * typed from the state.
 *
 * @param state - the state (as passed to `act().with(...)`)
 * @param route - the stream name of an id, and the read rule
 * @returns the route, for `http(app, { streams: [...] })`
 * @experimental
 * @example
 * ```ts
 * const counters = stream(Counter, { stream: (id) => `counter-${id}`, authorize: ({ state }) => state.count >= 0 });
 * ```
 */
export function stream<S extends Record<string, any>>(
  state: State<S, any, any, any, any>,
  route: Omit<StreamRoute<S>, "state">
): StreamRoute<S> {
  return { ...route, state };
}

/**
 * Declares a read endpoint, typed from its schemas: `authorize` and `read`
 * get the parsed query, and `read` must return what `answer` describes.
 *
 * @param route - the query and answer schemas, the rule and the reader
 * @returns the route, for `http(app, { reads: { name: route } })`
 * @experimental
 * @example
 * ```ts
 * const open = read({
 *   query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) }),
 *   answer: z.array(z.object({ id: z.string() })),
 *   authorize: ({ actor }) => actor.id.startsWith("agent:"),
 *   read: ({ limit }) => [{ id: "t-1" }].slice(0, limit),
 * });
 * ```
 */
export function read<Q extends z.ZodObject, R extends z.ZodType>(route: ReadRoute<Q, R>): ReadRoute<Q, R> {
  return route;
}
