import { SnapshotCache } from "./committing/cache.js";
import { settings } from "./core/config.js";
import { Consumer } from "./reactions/consumer.js";
import { route } from "./reactions/correlate.js";
import { ownedNames } from "./builders/reaction-names.js";
import { Discovery } from "./reactions/discovery.js";
import { BACKLOG_MILLIS, Drainer } from "./reactions/drain.js";
import { action } from "./committing/event-sourcing.js";
import { decode, load, loadAt } from "./committing/load.js";
import { deprecated } from "./core/deprecated.js";
import { doOptions, loadOptions, projectedOptions } from "./legacy-calls.js";
import { checkOptions, OptionSchemas } from "./core/inputs.js";
import { around } from "./instrumentation/instrumentation.js";
import { LocalProjections } from "./projections/local-projection.js";
import { logger, onDispose, store as storePort } from "./core/ports.js";
import { waitProjected } from "./projections/projected.js";
import type { Projection } from "./builders/projection.js";
import { type RebuildOptions, type RebuildProgress, rebuild } from "./projections/rebuild.js";
import { chainOf, type SettledOptions, waitSettled } from "./reactions/settled.js";
import { build_tracer } from "./instrumentation/tracer.js";
import type { CommittedOf, Schema, Schemas, Snapshot, State } from "./types/action.js";
import type { Dispatcher, DoOptions, LoadOptions, PointInTime, ProjectedOptions } from "./types/app.js";
import { ValidationError } from "./core/errors.js";
import type { ReactionStats, ReactionStream, Store } from "./types/ports.js";
import type {
  BlockedLease,
  ConsumerOptions,
  CorrelationOptions,
  Drain,
  DrainOptions,
  Lease,
  Registry,
} from "./types/reaction.js";
import { type Query, QuerySchema, type Target } from "./core/schemas.js";
import { uuid, validate } from "./core/utils.js";

/** Events per correlation pass, and passes per drain at most. */
const CORRELATION_PAGE = 1_000;
const CORRELATION_PAGES = 10;

/**
 * The lifecycle events an {@link Act} app emits, each with the payload its
 * listeners receive: subscribe with {@link Act.on}, unsubscribe with
 * {@link Act.off}. Listeners run synchronously, in the order they were added;
 * one that throws is logged and the others still run.
 *
 * @stable
 * @typeParam S - the state type of each action, by action name
 * @typeParam E - the event schemas
 * @see [Reactions in production](/docs/concepts/reactions-in-production#monitoring) — shows what to watch in production.
 * @example
 * ```ts
 * const onBlocked = (leases: Lifecycle<{}, {}>["blocked"]) =>
 *   leases.forEach(({ stream, error }) => console.error(stream, error));
 * app.on("blocked", onBlocked);
 * ```
 */
export type Lifecycle<S extends Schemas, E extends Schemas> = {
  /**
   * After `do` committed events: one snapshot per committed event (plus one
   * for a snapshot written). Not emitted when the action emitted nothing or
   * an idempotency key made it commit nothing.
   */
  committed: Snapshot<S[keyof S], E>[];
  /** After a drain moved reaction watermarks: the leases it acknowledged. */
  acked: Lease[];
  /** After a drain blocked reaction streams: the leases, each with its error. */
  blocked: BlockedLease[];
};

/**
 * An app: the states and reactions registered with {@link act}, bound to its
 * store — the one passed to `build({ store })`, or else the process-wide
 * {@link store} port. Everything the app does (actions, loads, queries,
 * drains, projections, operator commands, stats) goes to that store. It handles actions (`do`), rebuilds state (`load`),
 * reads the log (`query`), runs reactions (`drain`, `correlate`) and tells
 * listeners what happened (`on("committed" | "acked" | "blocked")`).
 *
 * @stable
 * @typeParam S - the state type of each action, by action name
 * @typeParam E - the event schemas
 * @typeParam A - the actions' payloads, as `do` takes them (the schemas' input)
 * @see [Event sourcing](/docs/concepts/event-sourcing) — explains actions, the log and draining.
 * @example
 * ```ts
 * const app = act().with(Counter).build();
 * const actor = { id: "u-1", name: "Ada" };
 * const [snap] = await app.do("increment", { stream: "c-1", actor }, { by: 2 });
 * console.log(snap.state.count); // 2
 * ```
 */
export class Act<S extends Schemas, E extends Schemas, A extends Schemas> implements Dispatcher<A> {
  /** Identifies this app's drainer in leases. */
  private readonly id = uuid();
  private readonly listeners = new Map<keyof Lifecycle<S, E>, Set<(payload: any) => void>>();
  /** How far the resolvers have registered reaction streams, per reaction, shared through the store. */
  private readonly discovery: Discovery;
  /** Whether the last drain's discovery stopped short of the end of the log (the consumer then drains again at once). */
  private behind = false;
  private correlations?: ReturnType<typeof setInterval>;
  private readonly tracer = build_tracer(settings().logLevel);
  /** Latest snapshot per stream, so actions read only new events. */
  private readonly cache = new SnapshotCache();
  /** Runs the reactions. */
  private readonly drainer: Drainer<E>;
  /** The local projections, caught up in this process by each drain. */
  private readonly locals: LocalProjections;
  /** The running consumer started by {@link Act.start}, and how to undo its hooks. */
  private consumer?: { consumer: Consumer; detach: () => void };

  /**
   * @param registry - the states, schemas and reactions (built by {@link act})
   * @param bound - the app's own store; without it, the {@link store} port's store at each use
   */
  constructor(
    public readonly registry: Registry<S, E, A>,
    private readonly bound?: Store
  ) {
    const log = () => this.store;
    this.drainer = new Drainer(
      registry.events,
      this as Dispatcher<Schemas>,
      this.id,
      this.tracer,
      (acked, blocked) => this.announce(acked, blocked),
      log
    );
    this.discovery = new Discovery(registry.events as never, this.id, this.drainer.routes, log, this.drainer.backfill);
    this.locals = new LocalProjections(registry.local ?? [], registry.events);
  }

  /**
   * The store this app uses: the one it was built with (`build({ store })`),
   * or else the {@link store} port's — read at each use, so an app built
   * before the port was given its adapter uses that adapter.
   *
   * @example
   * ```ts
   * const app = act().with(Counter).build({ store: new InMemoryStore() });
   * await app.store.seed();
   * ```
   */
  get store(): Store {
    return this.bound ?? storePort();
  }

  /** Tells listeners what a drain acknowledged and blocked. */
  private announce(acked: Lease[], blocked: BlockedLease[]) {
    if (acked.length) this.emit("acked", acked);
    if (blocked.length) this.emit("blocked", blocked);
  }

  /**
   * Listens to a lifecycle event. The listener gets the event's payload, as
   * {@link Lifecycle} lists them:
   *
   * - `"committed"`: {@link Snapshot}`[]` — after `do` committed events, one per event;
   * - `"acked"`: {@link Lease}`[]` — after a drain acknowledged reaction streams;
   * - `"blocked"`: {@link BlockedLease}`[]` — after a drain blocked reaction streams.
   *
   * @param event - `"committed"`, `"acked"` or `"blocked"`
   * @param listener - called with the event's payload ({@link Lifecycle}`[event]`) each time it happens
   * @returns the app, to chain more calls
   * @example
   * ```ts
   * app.on("committed", (snapshots) => console.log(snapshots.length));
   * ```
   */
  on<K extends keyof Lifecycle<S, E>>(event: K, listener: (payload: Lifecycle<S, E>[K]) => void): this {
    const set = this.listeners.get(event) ?? new Set();
    set.add(listener);
    this.listeners.set(event, set);
    return this;
  }

  /**
   * Stops listening: removes a listener added with {@link Act.on}.
   *
   * @param event - the lifecycle event it listens to
   * @param listener - the same function that was passed to `on`
   * @returns the app, to chain more calls
   * @example
   * ```ts
   * app.off("committed", onCommitted);
   * ```
   */
  off<K extends keyof Lifecycle<S, E>>(event: K, listener: (payload: Lifecycle<S, E>[K]) => void): this {
    this.listeners.get(event)?.delete(listener);
    return this;
  }

  private emit<K extends keyof Lifecycle<S, E>>(event: K, payload: Lifecycle<S, E>[K]) {
    for (const listener of this.listeners.get(event) ?? []) {
      try {
        listener(payload);
      } catch (error) {
        logger.error(error, `"${String(event)}" listener threw`);
      }
    }
  }

  /**
   * Handles an action: validates the payload, loads the stream, checks the
   * invariants, runs the handler, validates and commits the events it emits,
   * and writes a snapshot when the state's `.snap` rule says so.
   *
   * The app keeps the latest snapshot of recently used streams. Without an
   * `expectedVersion`, an action on such a stream does not read it first: the
   * commit's version check proves the snapshot current, and if another writer
   * moved the stream (a conflict, or a rule or handler that declined) the
   * action runs once more on the events committed since. With an
   * `expectedVersion`, the stream is read and that version is enforced.
   *
   * @param name - the action name
   * @param target - the stream and the actor, with an optional `expectedVersion` or `idempotencyKey` (see {@link Target})
   * @param payload - the action payload (type inferred from the action)
   * @param options - `reactingTo`: the event a reaction is handling, to keep its correlation;
   *   `skipValidation`: trusted input only (see {@link DoOptions})
   * @returns one snapshot per committed event (plus one for a snapshot written), or `[current]` when nothing was emitted
   * @throws {@link ValidationError} for an unknown action, a bad target, payload or event data
   * @throws {@link InvariantError} when an invariant fails
   * @throws {@link ConcurrencyError} when the stream moved since it was loaded (or is not at `expectedVersion`)
   * @example
   * ```ts
   * const [snap] = await app.do("increment", { stream: "c-1", actor }, { by: 1 });
   * await app.do("increment", { stream: "c-1", actor }, { by: 1 }, { skipValidation: true });
   * ```
   */
  async do<K extends keyof A & string>(
    name: K,
    target: Target,
    payload: Readonly<A[K]>,
    options?: DoOptions
  ): Promise<Snapshot<S[K & keyof S], E>[]>;
  /**
   * The call shape of earlier releases: the event a reaction handles and
   * `skipValidation` as positional arguments. Warns once per process.
   *
   * @deprecated Pass them in the options: `app.do(name, target, payload, { reactingTo, skipValidation })`.
   * @param name - the action name
   * @param target - the stream and the actor
   * @param payload - the action payload
   * @param reactingTo - the event a reaction is handling
   * @param skipValidation - skip zod validation (trusted input only)
   * @returns what the options form returns
   * @example
   * ```ts
   * await app.do("increment", { stream: "c-1", actor }, { by: 1 }, { reactingTo: event });
   * ```
   */
  async do<K extends keyof A & string>(
    name: K,
    target: Target,
    payload: Readonly<A[K]>,
    reactingTo: CommittedOf<Schemas> | undefined,
    skipValidation?: boolean
  ): Promise<Snapshot<S[K & keyof S], E>[]>;
  async do<K extends keyof A & string>(
    name: K,
    target: Target,
    payload: Readonly<A[K]>,
    ...rest: unknown[]
  ): Promise<Snapshot<S[K & keyof S], E>[]> {
    const { reactingTo, skipValidation = false } = doOptions(rest[0], rest[1], 3 + rest.length);
    // Own properties only: "constructor" or "toString" are not actions of any app.
    const me = Object.hasOwn(this.registry.actions, name) ? this.registry.actions[name] : undefined;
    if (!me)
      throw new ValidationError("action", name, [
        {
          path: "",
          message: `unknown action "${String(name)}"; known actions: ${Object.keys(this.registry.actions).join(", ")}`,
        },
      ]);
    // One store for the whole action, even if the store port changes meanwhile.
    const log = this.store;
    const { result, committed } = await around(
      "action",
      { state: me.name, action: name, target, reactingTo, store: log },
      () =>
        action({
          state: me,
          name,
          target,
          payload,
          reactingTo,
          skipValidation,
          cache: this.cache,
          store: log,
          inline: this.registry.inline,
        })
    );
    if (committed) this.emit("committed", result as never);
    return result as Snapshot<S[K & keyof S], E>[];
  }

  /**
   * Rebuilds a stream's state from its latest snapshot and the events after
   * it — or, given `at`, the state as it was at that point of its history:
   * after event `{ id }`, after stream version `{ version }`, or as of
   * `{ time }` (events created at or before it), starting from a snapshot at
   * or before that point.
   *
   * @param state - the state to fold with
   * @param stream - the stream name
   * @param options - `at`: a point in the stream's history (default: now); `onSnapshot`: called
   *   with the snapshot after each event (see {@link LoadOptions})
   * @returns the snapshot (`init()` for an empty stream or a point before its first event)
   * @throws {@link ValidationError} when `at` does not name exactly one of `id`, `version` or `time`
   * @example
   * ```ts
   * const { state, event } = await app.load(Counter, "c-1");
   * const before = await app.load(Counter, "c-1", { at: { version: 2 } });
   * const lastMonth = await app.load(Counter, "c-1", { at: { time: new Date("2026-10-01") } });
   * ```
   */
  async load<SX extends Schema, EX extends Schemas, AX extends Schemas>(
    state: State<SX, EX, AX, any, any>,
    stream: string,
    options?: LoadOptions<SX, EX>
  ): Promise<Snapshot<SX, EX>>;
  /**
   * The call shape of earlier releases: the callback and the point in time
   * as positional arguments. Warns once per process.
   *
   * @deprecated Pass them in the options: `app.load(State, stream, { at, onSnapshot })`.
   * @param state - the state to fold with
   * @param stream - the stream name
   * @param callback - called with the snapshot after each event
   * @param at - a point in the stream's history
   * @returns what the options form returns
   * @example
   * ```ts
   * const before = await app.load(Counter, "c-1", { at: { version: 2 } });
   * ```
   */
  async load<SX extends Schema, EX extends Schemas, AX extends Schemas>(
    state: State<SX, EX, AX, any, any>,
    stream: string,
    callback: ((snapshot: Snapshot<SX, EX>) => void) | undefined,
    at?: PointInTime
  ): Promise<Snapshot<SX, EX>>;
  async load<SX extends Schema, EX extends Schemas, AX extends Schemas>(
    state: State<SX, EX, AX, any, any>,
    stream: string,
    ...rest: unknown[]
  ): Promise<Snapshot<SX, EX>> {
    const { at, onSnapshot } = loadOptions<LoadOptions<SX, EX>>(rest[0], rest[1], 2 + rest.length);
    const log = this.store;
    return at ? loadAt(state, stream, at, onSnapshot, log) : load(state, stream, onSnapshot, undefined, log);
  }

  /**
   * Reads the log: calls `callback` for each matching event and returns the
   * first and last events and the count.
   *
   * @param query - filters (see {@link Query})
   * @param callback - called for each event
   * @throws {@link ValidationError} for a malformed query
   * @example
   * ```ts
   * const { count, last } = await app.query({ stream: "c-1" });
   * ```
   */
  async query(
    query: Query,
    callback?: (event: CommittedOf<E>) => void
  ): Promise<{
    /** The first event read. */
    first?: CommittedOf<E>;
    /** The last event read. */
    last?: CommittedOf<E>;
    /** How many events were read. */
    count: number;
  }> {
    let first: CommittedOf<E> | undefined;
    let last: CommittedOf<E> | undefined;
    const count = await this.store.query<E>(
      (stored) => {
        const register = Object.hasOwn(this.registry.events, stored.name)
          ? this.registry.events[stored.name]
          : undefined;
        let event = stored;
        try {
          event = decode(register?.schema, register?.upcasts, stored);
        } catch {
          // Reading the log never fails on one event: it comes as stored.
        }
        first ??= event as CommittedOf<E>;
        last = event as CommittedOf<E>;
        callback?.(event as CommittedOf<E>);
      },
      validate("query", query, QuerySchema)
    );
    return { first, last, count };
  }

  /**
   * Reads the log into an array. Mind `limit` on large logs.
   *
   * @param query - filters (see {@link Query})
   * @example
   * ```ts
   * const events = await app.queryArray({ stream: "c-1", backward: true, limit: 5 });
   * ```
   */
  async queryArray(query: Query): Promise<CommittedOf<E>[]> {
    const events: CommittedOf<E>[] = [];
    await this.query(query, (event) => events.push(event));
    return events;
  }

  /**
   * The name of earlier releases for {@link Act.queryArray}. Warns once per process.
   *
   * @deprecated Use `app.queryArray(query)`.
   * @param query - filters (see {@link Query})
   * @example
   * ```ts
   * const events = await app.queryArray({ stream: "c-1" });
   * ```
   */
  async query_array(query: Query): Promise<CommittedOf<E>[]> {
    deprecated("app.query_array", "use app.queryArray(query)");
    return this.queryArray(query);
  }

  /**
   * Runs the reaction resolvers over events not seen yet and registers the
   * streams they target, so `drain` finds them. `drain` calls it first; call
   * it yourself (or {@link Act.start_correlations}) to discover streams sooner.
   *
   * Without a query it continues from where correlation stopped for each
   * reaction, as the store records it for every process (see
   * `Store.discovered`): a page of 1,000 events to bring the most advanced
   * reactions to the head of the log, and a page for reactions still behind
   * (a reaction the store has never seen starts at the beginning of the log).
   * With a query it reads exactly those events for every reaction; such a
   * pass moves the recorded positions only when it left no event out (no
   * filter, not backward) and started at or before them.
   *
   * @param query - which events to scan (default: the next page of each reaction's discovery)
   * @returns the registered streams, the last event id scanned, and whether discovery is still behind the log
   * @example
   * ```ts
   * const { leased, lastId, behind } = await app.correlate();
   * ```
   */
  async correlate(query?: Query): Promise<{
    /** The reaction streams registered (new or already known). */
    leased: Lease[];
    /** Id of the last event scanned. */
    lastId: number;
    /**
     * The name of earlier releases for `lastId`; reading it warns once per process.
     *
     * @deprecated Use `lastId`.
     */
    readonly last_id: number;
    /**
     * Whether there may be more to read: without a query, some reaction's
     * discovery has not reached the end of the log yet (call again, or
     * drain); with a query, the pass read as many events as its `limit`.
     */
    behind: boolean;
  }> {
    const { leased, last_id, behind } = query
      ? await this.discovery.pass(query)
      : await this.discovery.step(1, CORRELATION_PAGE);
    if (leased.length) this.tracer.correlated(leased);
    const result = { leased, lastId: last_id, behind } as {
      leased: Lease[];
      lastId: number;
      last_id: number;
      behind: boolean;
    };
    // Not enumerable: it is not part of the result, only a way to read it the old way.
    return Object.defineProperty(result, "last_id", {
      get: () => {
        deprecated("app.correlate().last_id", "read lastId");
        return last_id;
      },
    });
  }

  /** The lowest discovery position of the app's reactions in the current store (-1 before they were read). */
  private correlated(): number {
    return this.discovery.lowest();
  }

  /**
   * Calls {@link Act.correlate} every `intervalMillis` ms until
   * {@link Act.stopCorrelations}.
   *
   * @param options - which events each run scans (`query`, default: events after the last one
   *   scanned), how often (`intervalMillis`, default 10,000) and what to call with the streams
   *   each run registered (`onCorrelated`; see {@link CorrelationOptions})
   * @returns false when correlations were already running
   * @throws {@link ValidationError} when `intervalMillis` is not a whole number of ms, at least 1
   * @example
   * ```ts
   * app.startCorrelations({ intervalMillis: 1_000, onCorrelated: (leased) => console.log(leased.length) });
   * ```
   */
  startCorrelations(options: CorrelationOptions = {}): boolean {
    const {
      query = {},
      intervalMillis: frequency = 10_000,
      onCorrelated: callback,
    } = checkOptions("correlation", options, OptionSchemas.correlation);
    if (this.correlations) return false;
    const { limit = 1000, ...rest } = query;
    // Without filters or a start, the shared discovery; otherwise passes over
    // the query from the app's lowest position, as asked.
    const shared = Object.values(rest).every((value) => value === undefined);
    this.correlations = setInterval(() => {
      (shared
        ? this.discovery.step(1, limit)
        : this.correlate({ ...rest, after: Math.max(this.correlated(), rest.after ?? -1), limit })
      )
        .then(({ leased }) => leased.length && callback?.(leased))
        .catch((error) => logger.error(error, "correlation failed"));
    }, frequency);
    (this.correlations as { unref?: () => void }).unref?.();
    return true;
  }

  /**
   * The call of earlier releases for {@link Act.startCorrelations}, with
   * positional arguments. Warns once per process.
   *
   * @deprecated Use `app.startCorrelations({ query, intervalMillis, onCorrelated })`.
   * @param query - passed to correlate
   * @param frequency - interval in ms (default 10,000)
   * @param callback - called with the streams registered by each run
   * @returns false when correlations were already running
   * @example
   * ```ts
   * app.startCorrelations({ intervalMillis: 1_000 });
   * ```
   */
  start_correlations(query?: Query, frequency?: number, callback?: (leased: Lease[]) => void): boolean {
    deprecated(
      "app.start_correlations(query, frequency, callback)",
      "use app.startCorrelations({ query, intervalMillis, onCorrelated })"
    );
    return this.startCorrelations({ query, intervalMillis: frequency, onCorrelated: callback });
  }

  /**
   * Stops the timer started by {@link Act.startCorrelations}.
   *
   * @example
   * ```ts
   * app.stopCorrelations();
   * ```
   */
  stopCorrelations(): void {
    clearInterval(this.correlations);
    this.correlations = undefined;
  }

  /**
   * The name of earlier releases for {@link Act.stopCorrelations}. Warns once per process.
   *
   * @deprecated Use `app.stopCorrelations()`.
   * @example
   * ```ts
   * app.stopCorrelations();
   * ```
   */
  stop_correlations(): void {
    deprecated("app.stop_correlations", "use app.stopCorrelations()");
    this.stopCorrelations();
  }

  /**
   * Runs pending reactions once: registers new reaction streams (see
   * {@link Act.correlate}), polls the streams with events after their
   * watermark (half the most lagging, half the most leading), leases them at
   * the polled watermark (the store refuses a stream another drainer moved
   * since), reads their next events — by id, in one read, the events this
   * app's correlation found reacting into them (otherwise one read of the
   * log serves every stream without a source) — and runs each event's
   * reactions in order. A stream with a backlog goes on past `eventLimit`
   * while the drain is younger than `backlogMillis` (see {@link DrainOptions});
   * a reaction still behind the log (a new one backfilling) is discovered
   * further while the drain handles, within the same allowance.
   *
   * Each stream's lease is renewed while its handlers run, so no other
   * drainer takes it meanwhile. Progress is recorded per event and reaction:
   * a reaction that succeeded is never run again for that event, one that
   * failed is retried after a backoff (`retryBaseMillis`, doubling up to
   * `retryMaxMillis`), and once an event still fails after `maxRetries`
   * retries the stream is blocked (or, with `blockOnError: false`, that
   * reaction skips the event). `acked` lists only streams that made
   * progress. One drain runs at a time per app; a stream whose handlers
   * outlive `leaseMillis` finishes in the background and reports through the
   * `"acked"` and `"blocked"` events.
   *
   * @param options - stream and event limits, lease length
   * @returns what was fetched, leased, acknowledged (moved forward) and blocked
   * @throws {@link ValidationError} naming an option that is not a whole number in range (see {@link OptionSchemas})
   * @throws the store's error when it cannot poll, lease or read (leases taken are released first)
   * @example
   * ```ts
   * let drained;
   * do drained = await app.drain(); while (drained.acked.length);
   * ```
   */
  async drain(options: DrainOptions = {}): Promise<Drain<E>> {
    checkOptions("drain", options, OptionSchemas.drain);
    const run = () => around("drain", { ...options, store: this.store }, () => this.drainer.drain(options));
    // Continue discovery where the store says it stopped, per reaction: the
    // most advanced reactions to the head of the log first, so new work is
    // found at once; pages for reactions still behind (a new one backfills)
    // are read while the drain handles it — as long as it handles, or the
    // backlog's allowance if that is longer — so they delay new work little.
    const lead = await this.discovery.lead(CORRELATION_PAGES, CORRELATION_PAGE);
    if (lead.leased.length) this.tracer.correlated(lead.leased);
    let handling = true;
    const until = Date.now() + (options.backlogMillis ?? BACKLOG_MILLIS);
    const handled = run().finally(() => {
      handling = false;
    });
    const lagging = this.discovery.lag(CORRELATION_PAGES, CORRELATION_PAGE, () => handling || Date.now() < until);
    const [drain, caught] = await Promise.allSettled([handled, lagging]);
    if (drain.status === "rejected") throw drain.reason;
    if (caught.status === "rejected") throw caught.reason;
    const lag = caught.value;
    if (lag.leased.length) this.tracer.correlated(lag.leased);
    this.behind = lead.behind || lag.behind;
    let drained = drain.value;
    // Streams the backlog's pages registered meanwhile are work this drain
    // found: one that handled nothing else handles them, so a loop that
    // drains while something is acknowledged does not stop before them.
    if (!drained.acked.length && !drained.blocked.length && lag.leased.length) drained = await run();
    if (this.locals.projections.length) await this.locals.catchUp(this.store);
    return drained;
  }

  /**
   * Starts running reactions continuously in this process: it drains right
   * after a commit made here, when the store reports a commit made elsewhere
   * (`PostgresStore` listens for them), and otherwise on a poll that backs off
   * to `pollMillis` while idle — polling alone finds all work, wake-ups only
   * make it sooner. A commit of events none of the app's reactions handles
   * (a reaction's own output, say) wakes nothing, when the store names the
   * events it reports; and a drain runs again at once only when it took as
   * many streams or events as it may (or, on a store without wake-ups,
   * whenever it did work), otherwise the loop waits for a wake-up or its
   * next poll. A failing drain (a store that is down) is logged and
   * retried; it never stops the loop. {@link disposeAndExit} (and so SIGTERM
   * once {@link dispose} was called) stops it before the store is closed.
   *
   * @param options - drain options, `pollMillis` (default 1,000) and `graceMillis` (default 5,000)
   * @returns false when it was already running
   * @throws {@link ValidationError} naming an option that is not a whole number in range (see {@link OptionSchemas})
   * @example
   * ```ts
   * app.start();
   * // … later, at shutdown:
   * await app.stop();
   * ```
   */
  start(options: ConsumerOptions = {}): boolean {
    checkOptions("start", options, OptionSchemas.consumer);
    if (this.consumer) return false;
    const log = this.store;
    const consumer = new Consumer(
      () => this.drain(options),
      () => this.drainer.working.size > 0,
      options,
      log.subscribe !== undefined,
      () => this.behind
    );
    // A commit whose events no reaction of this app handles (a reaction's own
    // output, typically) gives it nothing to do: waking for it would cost a
    // drain that finds nothing — two store calls per handled event, and
    // under load they delay the next real work. Unnamed wake-ups always wake.
    const reacts = (name: string) => (this.registry.events[name]?.reactions.size ?? 0) > 0;
    const wake = (names?: readonly string[]) => {
      if (!names || names.some(reacts)) consumer.wake();
    };
    // A store with wake-ups tells of this app's commits too (at once, in
    // this process); listening to both would wake the loop twice per commit,
    // and the second, arriving mid-drain, would cost one more drain.
    const committed = (snapshots: Snapshot<S[keyof S], E>[]) =>
      wake(snapshots.flatMap(({ event }) => (event ? [event.name as string] : [])));
    let unsubscribe: (() => void) | undefined;
    if (log.subscribe) unsubscribe = log.subscribe(wake);
    else this.on("committed", committed);
    const undispose = onDispose(() => this.stop());
    this.consumer = {
      consumer,
      detach: () => {
        this.off("committed", committed);
        unsubscribe?.();
        undispose();
      },
    };
    return consumer.start();
  }

  /**
   * Stops the consumer started by {@link Act.start}: no new drain starts, the
   * one in progress finishes, and handlers still running get up to
   * `graceMillis` to settle so their progress is recorded and their leases
   * released — another process can take over at once.
   *
   * @example
   * ```ts
   * process.once("SIGINT", () => void app.stop());
   * ```
   */
  async stop(): Promise<void> {
    const running = this.consumer;
    if (!running) return;
    this.consumer = undefined;
    running.detach();
    await running.consumer.stop();
  }

  /**
   * Waits until a projection has processed the events an action committed —
   * read-your-writes for an asynchronous read model: pass what `app.do(...)`
   * returned (or an event id), then read the model. Returns at once when
   * none of those events is one the projection handles, and always for an
   * inline projection (its writes committed with the events). A consumer must be
   * running (`app.start()` in this process or another); this only waits. For
   * a local projection (`{ local: true }`) it waits for this process's copy,
   * which this app's own drains fill.
   *
   * @param projection - a projection registered with `act().with(projection)`
   * @param after - the snapshots `do` returned, or the id of the last event to wait for
   * @param options - how long to wait at most (`timeoutMillis`, default 5,000; see {@link ProjectedOptions})
   * @throws Error naming the projection and the event when it is blocked, or not there within `timeoutMillis`
   * @see [Read models and projections](/docs/guides/projections#read-your-writes) — read-your-writes in an HTTP handler.
   * @example
   * ```ts
   * const Totals = projection("Totals").with(Counter).on("Incremented", () => {}).build();
   * const snapshots = await app.do("increment", { stream: "c-1", actor }, { by: 1 });
   * await app.projected(Totals, snapshots);
   * await app.projected(Totals, snapshots, { timeoutMillis: 1_000 });
   * ```
   */
  async projected(
    projection: Projection<any, any>,
    after: readonly Snapshot<any, any>[] | number,
    options?: ProjectedOptions
  ): Promise<void>;
  /**
   * The call shape of earlier releases: the timeout as a positional number. Warns once per process.
   *
   * @deprecated Pass it in the options: `app.projected(projection, after, { timeoutMillis })`.
   * @param projection - a registered projection
   * @param after - the snapshots `do` returned, or an event id
   * @param timeoutMillis - how long to wait at most, in ms
   * @example
   * ```ts
   * const Totals = projection("Totals").with(Counter).on("Incremented", () => {}).build();
   * await app.projected(Totals, 42, { timeoutMillis: 1_000 });
   * ```
   */
  async projected(
    projection: Projection<any, any>,
    after: readonly Snapshot<any, any>[] | number,
    timeoutMillis: number
  ): Promise<void>;
  async projected(
    projection: Projection<any, any>,
    after: readonly Snapshot<any, any>[] | number,
    options?: ProjectedOptions | number
  ): Promise<void> {
    const { timeoutMillis = 5_000 } = checkOptions("projected", projectedOptions(options), OptionSchemas.projected);
    return waitProjected(this, this.store, projection, after, timeoutMillis, this.locals);
  }

  /**
   * Waits until the reactions of one causal chain have run — read-your-writes
   * after reactions, e.g. before an HTTP handler answers: pass what
   * `app.do(...)` returned (or the chain's correlation id). Every event of
   * the chain is routed with this app's reactions, and the wait ends when
   * each reaction stream it reacts into has handled it. The chain grows while
   * it runs — a reaction's action commits events with the same correlation
   * that may react further — so it is followed until every event of it is
   * handled and no new one appeared. Events no reaction of this app handles
   * (or that a reaction's `since` or a resolver returning `undefined` leaves
   * out) need no waiting; it returns at once when nothing reacts.
   *
   * Only the watermarks of the chain's own streams are read, when a drain of
   * this app acknowledges or blocks one of them and otherwise at most every
   * 200 ms: a backlog on other streams does not hold it up, though an older
   * backlog on a stream the chain shares is waited for (each stream handles
   * its events in order). A consumer must be running (`app.start()` here or
   * in another process); this only waits. Reactions of other apps on the
   * same store are not followed.
   *
   * @param chain - the snapshots `do` returned (their events' `meta.correlation`), or a correlation id
   * @param options - how long to wait at most (`timeoutMillis`, default 5,000; see {@link SettledOptions})
   * @throws {@link ValidationError} for an empty or malformed correlation id or a bad timeout
   * @throws {@link NotSettledError} with `reason` `"blocked"` at once when a stream of the chain is
   *   blocked before its events, or `"pending"` when they were not all handled within `timeoutMillis`;
   *   `pending` lists the streams behind and by how much
   * @see [Reactions in production](/docs/concepts/reactions-in-production#waiting-for-a-chain) — when to wait for reactions, and how.
   * @example
   * ```ts
   * app.start();
   * const snapshots = await app.do("increment", { stream: "c-1", actor }, { by: 1 });
   * await app.settled(snapshots); // its reactions, and what they caused, have run
   * const correlation = snapshots[0].event!.meta.correlation;
   * await app.settled(correlation, { timeoutMillis: 1_000 });
   * ```
   */
  async settled(chain: readonly Snapshot<any, any>[] | string, options?: SettledOptions): Promise<void> {
    const { timeoutMillis = 5_000 } = checkOptions("settled", options, OptionSchemas.settled);
    return waitSettled(this, this.store, this.registry.events, chainOf(chain), timeoutMillis);
  }

  /**
   * Rebuilds a read model without downtime: register its new version (the
   * same projection with `version` raised, writing a new table) beside the
   * old one and call this. The new version projects from the beginning of
   * the log (or its `since`) with the app's consumers while the old one
   * keeps serving; this reports progress, waits until the new version has
   * projected every event it handles that was in the log when the call
   * started, and then runs `switchOver` — replace the view readers query in
   * one transaction, say — so readers move from the complete old model to
   * the complete new one at once. A consumer must be running (`app.start()`
   * here or in another process); this only watches. For a plain rebuild in
   * development, empty the table and `reset` the projection's stream. An
   * inline projection has no position to rebuild and is refused: rebuild its
   * read model with the same handlers as an asynchronous projection under a
   * new version. A local projection is refused too: every process rebuilds
   * it from the log when it starts.
   *
   * @param projection - the new version, registered with `act().with(projection)`
   * @param options - progress reporting, a timeout and the switch-over (see {@link RebuildOptions})
   * @returns the final progress, with `done: true`
   * @throws {@link ValidationError} naming an option out of range
   * @throws Error naming the projection when it is blocked, not caught up within `timeoutMillis`, inline or local
   * @see [Read models and projections](/docs/guides/projections#rebuilds) — rebuilds step by step.
   * @example
   * ```ts
   * const TotalsV2 = projection("Totals", { version: 2 }).with(Counter).on("Incremented", () => {}).build();
   * let serving = "totals_v1";
   * await app.rebuild(TotalsV2, {
   *   onProgress: ({ projected, total }) => console.log(`${projected}/${total}`),
   *   switchOver: () => {
   *     serving = "totals_v2"; // in SQL: replace the view readers query, in one statement
   *   },
   * });
   * ```
   */
  async rebuild(projection: Projection<any, any>, options?: RebuildOptions): Promise<RebuildProgress> {
    return rebuild(this.store, projection, checkOptions("rebuild", options, OptionSchemas.rebuild));
  }

  /**
   * Lists blocked reaction streams, with the error that blocked each one and
   * the watermark it will resume from.
   *
   * @example
   * ```ts
   * for (const { stream, at, error } of await app.blocked()) console.error(stream, at, error);
   * ```
   */
  async blocked(): Promise<ReactionStream[]> {
    return this.store.reactions({ blocked: true });
  }

  /**
   * Unblocks reaction streams: each resumes at its watermark — the event that
   * failed is tried again — with its retries reset. Fix the cause first. A
   * drain that leased the stream before can record nothing on it any more.
   *
   * @param streams - the reaction streams
   * @returns the streams that were blocked and are not any more
   * @example
   * ```ts
   * await app.unblock("audit");
   * ```
   */
  async unblock(...streams: string[]): Promise<string[]> {
    const unblocked = await this.store.unblock(streams);
    this.drainer.revoke(unblocked);
    this.consumer?.consumer.wake();
    return unblocked;
  }

  /**
   * Replays reaction streams from the start of the log: their watermarks go
   * back to the beginning, unblocked, so every reaction targeting them runs
   * again — e.g. to rebuild a read model (clear it first; handlers must cope
   * with seeing each event again). The reset wins over drains in flight: a
   * handler already running finishes, but its drain records nothing over the
   * reset; this app starts no further handler on the old lease, and a drain
   * of another process stops at its next lease renewal (within a third of
   * `leaseMillis`).
   *
   * @param streams - the reaction streams
   * @returns the streams reset
   * @example
   * ```ts
   * await app.reset("report-projection");
   * ```
   */
  async reset(...streams: string[]): Promise<string[]> {
    const reset = await this.store.reset(streams);
    this.drainer.revoke(reset);
    this.consumer?.consumer.wake();
    return reset;
  }

  /**
   * How the reactions are doing: per reaction stream its watermark, lag,
   * retries and blocked state; and the commit-to-handled latency of the
   * latest reactions this app ran. A stream's lag counts the events it still
   * has to handle — events after its watermark that one of this app's
   * reactions routes to it. A stream with nothing to do reads 0, however many
   * unrelated events were committed since it last moved. `missing` lists
   * the reactions a stream carries that this app lacks (the stream is left
   * to an app that has them). `discovery` says, per reaction, how far
   * correlation has registered its streams and whether it is still behind
   * the log — a reaction added in a new release is, until its backfill
   * reaches the end, and the events it has not discovered yet are in no
   * stream's `lag`.
   *
   * It costs four reads whatever the number of streams: the reaction
   * streams, the discovery positions, the log's last event, and one read of
   * the log shared by every stream with work — the events
   * this app reacts to, up to `lagLimit` of them, from the lowest watermark
   * with work on. A stream whose work lies beyond that read counts what the
   * read saw of it, and at least 1. Streams whose events this app's own
   * correlation found (an app that drains) are counted exactly from what it
   * remembers, without that read. Each event read costs its transfer and
   * its resolvers, so a larger `lagLimit` buys exact counts further behind
   * at that price.
   *
   * @param lagLimit - how many events the shared read of the log looks at (default 1,000)
   * @example
   * ```ts
   * const { streams, latency } = await app.stats();
   * console.log(streams.filter((s) => s.lag > 100), latency.p99);
   * ```
   */
  async stats(lagLimit = 1_000): Promise<ReactionStats> {
    const log = this.store;
    const reactions = await log.reactions();
    const lags = await this.lags(log, reactions, lagLimit);
    const owned = new Set(ownedNames(this.registry.events));
    // Object.assign, not a spread followed by new keys: with thousands of
    // streams of differing shapes (optional fields) the spread took longer
    // than the reads.
    const streams = reactions.map((r) =>
      Object.assign({}, r, { lag: lags.get(r.stream) ?? 0, missing: r.reactions.filter((n) => !owned.has(n)) })
    );
    let last = -1;
    await log.query(
      (e) => {
        last = e.id;
      },
      { backward: true, limit: 1 }
    );
    const discovery = (await this.discovery.report()).map(({ reaction, at }) => ({ reaction, at, behind: at < last }));
    return { streams, discovery, latency: this.drainer.latency() };
  }

  /**
   * The lag of every stream with work (`head` past its watermark), from one
   * read of the log: one query per stream made a dashboard polling `stats()`
   * on thousands of streams exhaust the connection pool.
   */
  private async lags(log: Store, reactions: ReactionStream[], limit: number): Promise<Map<string, number>> {
    const busy = new Map(reactions.filter((r) => r.head > r.at).map((r) => [r.stream, r]));
    const lags = new Map<string, number>();
    // Streams whose events this app's correlation indexed are counted from
    // the index, exactly and without reading the log (a stream with a source
    // counts only its source's events, which the index does not tell apart).
    for (const r of busy.values()) {
      if (r.source !== undefined) continue;
      const count = this.drainer.routes.count(log, r.stream, r.at, r.head);
      if (count === undefined) continue;
      lags.set(r.stream, Math.max(1, count));
      busy.delete(r.stream);
    }
    if (!busy.size) return lags;
    let after = Number.POSITIVE_INFINITY;
    let head = -1;
    for (const r of busy.values()) {
      after = Math.min(after, r.at);
      head = Math.max(head, r.head);
    }
    const names = Object.keys(this.registry.events).filter((name) => this.registry.events[name].reactions.size);
    const counted = new Map<string, number>();
    if (names.length)
      await log.query(
        (event) => {
          for (const { target } of route(this.registry.events, event as never)) {
            const r = busy.get(target);
            if (!r || event.id <= r.at || event.id > r.head) continue;
            if (r.source !== undefined && event.stream !== r.source) continue;
            // An event counts once per stream, however many of its reactions go there.
            if (counted.get(target) === event.id) continue;
            counted.set(target, event.id);
            lags.set(target, (lags.get(target) ?? 0) + 1);
          }
        },
        { after, before: head + 1, limit, names }
      );
    // Work is there (head is past the watermark) even where the read ended first.
    for (const stream of busy.keys()) if (!lags.has(stream)) lags.set(stream, 1);
    return lags;
  }
}
