/**
 * The options of `http(app, options)`, checked once when the API is built:
 * a missing `authenticate` hook, an action or a read without an `authorize`
 * rule, an action whose state has no stream route, or a limit out of range
 * is a build error naming what to fix — never a route that is quietly open.
 */
import type { Act, Schemas, State } from "@act-root/act";
import type { z } from "zod";
import type { Authenticate } from "./auth.js";
import { Lifecycle } from "./lifecycle.js";
import { type Limits, limitsOf } from "./limits.js";
import type { ActionRoute, ReadRoute, StreamRoute } from "./routes/types.js";

/**
 * How `?wait=reactions` waits for the reactions an action caused.
 *
 * @experimental
 * @example
 * ```ts
 * const wait: WaitOptions = { timeoutMillis: 1_000, maxWaiting: 50 };
 * ```
 */
export type WaitOptions = {
  /** How long one request waits at most before answering 202, in ms (default 2,000; at most 30,000). */
  readonly timeoutMillis?: number;
  /** How many requests may wait at once; past it a request answers 202 at once (default 100). */
  readonly maxWaiting?: number;
};

/**
 * How the event streams (server-sent events) are served.
 *
 * @experimental
 * @example
 * ```ts
 * const events: EventsOptions = { maxClients: 500, pollMillis: 500 };
 * ```
 */
export type EventsOptions = {
  /** How many event streams may be open at once; past it a new one gets 503 (default 100). */
  readonly maxClients?: number;
  /** The most events read from the store per round for one client (default 100). */
  readonly batch?: number;
  /** How often to look for events committed by other processes, in ms (default 1,000). */
  readonly pollMillis?: number;
  /** How often to send a comment that keeps idle connections open through proxies, in ms (default 15,000). */
  readonly heartbeatMillis?: number;
};

/**
 * The title and version an OpenAPI document gives its API.
 *
 * @experimental
 * @example
 * ```ts
 * const info: ApiInfo = { title: "WolfDesk", version: "1.0.0" };
 * ```
 */
export type ApiInfo = {
  /** The API's name. */
  readonly title: string;
  /** The API's version (not the package's). */
  readonly version: string;
};

/**
 * What `http(app, options)` takes: how to find the caller, which actions,
 * streams and reads to serve and who may use each, and the limits. Typed
 * from the app: `actions` takes only the app's action names, and each
 * rule gets that action's payload and state.
 *
 * @typeParam S - the state of each action, by action name
 * @typeParam A - the payload of each action, by action name
 * @experimental
 * @example
 * ```ts
 * const options: HttpOptions<{ increment: { count: number } }, { increment: { by: number } }> = {
 *   authenticate: bearerTokens([["a-long-random-service-token", actor]]),
 *   actions: { increment: { authorize: ({ payload }) => payload.by <= 10 } },
 *   streams: [stream(Counter, { authorize: () => true })],
 * };
 * ```
 */
export type HttpOptions<S extends Schemas, A extends Schemas> = {
  /** Finds the caller of each request (required; the actor never comes from the body). */
  readonly authenticate: Authenticate;
  /** The actions to serve, each with its rule; actions not listed are not served. */
  readonly actions: { readonly [K in keyof A & string]?: ActionRoute<A[K], S[K]> };
  /** How the streams of each state are addressed and read; every served action's state needs one. */
  readonly streams: readonly StreamRoute<any>[];
  /** Read endpoints by name, e.g. over a projection's read model (build each with `read`). */
  readonly reads?: Readonly<Record<string, ReadRoute<z.ZodObject, z.ZodType>>>;
  /** Body and field limits (see {@link Limits}). */
  readonly limits?: Limits;
  /** How `?wait=reactions` waits (see {@link WaitOptions}). */
  readonly wait?: WaitOptions;
  /** How event streams are served (see {@link EventsOptions}). */
  readonly events?: EventsOptions;
  /** The OpenAPI document's title and version (default: `"Act API"`, `"1.0.0"`). */
  readonly info?: ApiInfo;
  /**
   * Where an unexpected error is logged (default `console.error`); the client gets a generic 500.
   *
   * @param error - what was thrown
   * @param request - the request it was thrown for
   */
  readonly log?: (error: unknown, request: Request) => void;
};

/** An action as it is served: its route, state and payload schema. */
export type ServedAction = {
  readonly name: string;
  readonly route: ActionRoute<any, any>;
  readonly state: State<any, any, any, any, any>;
  readonly schema: z.ZodType;
  readonly streams: ServedState;
};

/** A state as it is served: its stream names and read rule. */
export type ServedState = {
  readonly state: State<any, any, any, any, any>;
  readonly stream: (id: string) => string;
  readonly authorize: StreamRoute<any>["authorize"];
};

/** Everything the routes need, checked. */
export type Settings = {
  readonly app: Act<any, any, any>;
  readonly authenticate: Authenticate;
  readonly actions: ReadonlyMap<string, ServedAction>;
  readonly states: ReadonlyMap<string, ServedState>;
  readonly reads: ReadonlyMap<string, ReadRoute<z.ZodObject, z.ZodType>>;
  readonly limits: Required<Limits>;
  readonly wait: Required<WaitOptions>;
  readonly events: Required<EventsOptions>;
  readonly info: ApiInfo;
  readonly log: (error: unknown, request: Request) => void;
  readonly lifecycle: Lifecycle;
  /** Requests waiting for reactions now. */
  waiting: number;
};

const fail = (message: string): never => {
  throw new TypeError(`act-http: ${message}`);
};

function whole(value: number | undefined, fallback: number, name: string, max = Number.MAX_SAFE_INTEGER): number {
  const n = value ?? fallback;
  if (!Number.isSafeInteger(n) || n < 1 || n > max)
    fail(`${name} must be a whole number from 1 to ${max}, got ${String(n)}`);
  return n;
}

/** Own keys only, so an option object's prototype never adds a route. */
const own = <T>(record: Readonly<Record<string, T>> | undefined): [string, T][] =>
  record ? Object.keys(record).map((k) => [k, record[k]!]) : [];

/** Checks the options against the app and resolves the defaults. */
export function settingsOf(app: Act<any, any, any>, options: HttpOptions<any, any>): Settings {
  if (!options || typeof options.authenticate !== "function")
    fail("an authenticate hook is required: it finds the actor of each request (see bearerTokens)");
  const states = new Map<string, ServedState>();
  for (const route of options.streams ?? []) {
    if (typeof route?.authorize !== "function")
      fail(`the stream route of state "${route?.state?.name}" needs an authorize rule`);
    if (states.has(route.state.name)) fail(`state "${route.state.name}" has two stream routes`);
    states.set(route.state.name, {
      state: route.state,
      stream: route.stream ?? ((id) => id),
      authorize: route.authorize,
    });
  }
  const actions = new Map<string, ServedAction>();
  for (const [name, route] of own<ActionRoute<any, any> | undefined>(options.actions)) {
    if (!route) continue;
    if (!Object.hasOwn(app.registry.actions, name)) fail(`"${name}" is not an action of the app`);
    if (typeof route.authorize !== "function") fail(`action "${name}" needs an authorize rule`);
    const state = app.registry.actions[name] as State<any, any, any, any, any>;
    const streams = states.get(state.name);
    if (!streams || streams.state !== state)
      fail(
        `action "${name}" is served, but its state "${state.name}" has no stream route: add stream(${state.name}, { ... })`
      );
    actions.set(name, { name, route, state, schema: state.actions[name] as z.ZodType, streams: streams! });
  }
  const reads = new Map<string, ReadRoute<z.ZodObject, z.ZodType>>();
  for (const [name, route] of own(options.reads)) {
    if (!/^[A-Za-z][\w-]{0,63}$/.test(name)) fail(`read "${name}" needs a name of letters, digits, - and _`);
    if (typeof route?.authorize !== "function" || typeof route.read !== "function")
      fail(`read "${name}" needs an authorize rule and a read function`);
    const { projection } = route;
    if (projection !== undefined && (typeof projection?.stream !== "string" || !Array.isArray(projection.events)))
      fail(`read "${name}" names a projection that is not one: pass what projection(...).build() returns`);
    if (projection?.options.local)
      fail(
        `read "${name}" names projection "${projection.name}", which is local: its position lives in the process that registers it, not in the store, so it cannot be served live; leave out \`projection\`, or keep the projection in the store`
      );
    reads.set(name, route);
  }
  return {
    app,
    authenticate: options.authenticate,
    actions,
    states,
    reads,
    limits: limitsOf(options.limits),
    wait: {
      timeoutMillis: whole(options.wait?.timeoutMillis, 2_000, "wait.timeoutMillis", 30_000),
      maxWaiting: whole(options.wait?.maxWaiting, 100, "wait.maxWaiting"),
    },
    events: {
      maxClients: whole(options.events?.maxClients, 100, "events.maxClients"),
      batch: whole(options.events?.batch, 100, "events.batch", 10_000),
      pollMillis: whole(options.events?.pollMillis, 1_000, "events.pollMillis"),
      heartbeatMillis: whole(options.events?.heartbeatMillis, 15_000, "events.heartbeatMillis"),
    },
    info: options.info ?? { title: "Act API", version: "1.0.0" },
    log: options.log ?? ((error) => console.error(error)),
    lifecycle: new Lifecycle(),
    waiting: 0,
  };
}
