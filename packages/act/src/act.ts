import { ActOperations } from "./act-operations.js";
import { close } from "./committing/close.js";
import { load, loadAt } from "./committing/load.js";
import { readLog, readLogArray } from "./committing/read-log.js";
import { deprecated } from "./core/deprecated.js";
import { checkOptions, OptionSchemas } from "./core/inputs.js";
import { doOptions, loadOptions, projectedOptions } from "./legacy-calls.js";
import type { Projection } from "./builders/projection.js";
import { waitProjected } from "./projections/projected.js";
import { type RebuildOptions, type RebuildProgress, rebuild } from "./projections/rebuild.js";
import { chainOf, type SettledOptions, waitSettled } from "./reactions/settled.js";
import type { Query, Target } from "./core/schemas.js";
import type { CommittedOf, Schema, Schemas, Snapshot, State } from "./types/action.js";
import type { DoOptions, LoadOptions, LogRead, PointInTime, ProjectedOptions } from "./types/app.js";
import type { ClosedStream, CloseOptions } from "./types/archive.js";
import type { Lifecycle } from "./types/lifecycle.js";

/**
 * An app: the states and reactions registered with {@link act}, bound to its store (`build({ store })`, or else
 * the {@link store} port). It handles actions (`do`), rebuilds state (`load`), reads the log (`query`), runs
 * reactions (`drain`, `start`) and tells listeners what happened (`on`).
 * @stable
 * @typeParam S - the state type of each action, by action name
 * @typeParam E - the event schemas
 * @typeParam A - the actions' payloads, as `do` takes them (the schemas' input)
 * @see [Event sourcing](/docs/concepts/event-sourcing) — explains actions, the log and draining.
 * @example
 * ```ts
 * const app = act().with(Counter).build();
 * const [snap] = await app.do("increment", { stream: "c-1", actor }, { by: 2 }); // snap.state.count: 2
 * ```
 */
// The calls of the model live here; what runs and looks after the app (drains, the consumer, operator commands,
// figures, timers, archiving, erasure) lives in act-operations.ts, which this class extends, so the API reference
// still shows one class with every method.
export class Act<S extends Schemas, E extends Schemas, A extends Schemas> extends ActOperations<S, E, A> {
  /**
   * Listens to a lifecycle event: `"committed"`, `"acked"` or `"blocked"` (see {@link Lifecycle}).
   * @param event - `"committed"`, `"acked"` or `"blocked"`
   * @param listener - called with the event's payload ({@link Lifecycle}`[event]`) each time it happens
   * @returns the app, to chain more calls
   * @example
   * ```ts
   * app.on("committed", (snapshots) => console.log(snapshots.length));
   * ```
   */
  on<K extends keyof Lifecycle<S, E>>(event: K, listener: (payload: Lifecycle<S, E>[K]) => void): this {
    this.listeners.on(event, listener);
    return this;
  }

  /**
   * Stops listening: removes a listener added with {@link Act.on}.
   * @param event - the lifecycle event it listens to
   * @param listener - the same function that was passed to `on`
   * @returns the app, to chain more calls
   * @example
   * ```ts
   * app.off("committed", onCommitted);
   * ```
   */
  off<K extends keyof Lifecycle<S, E>>(event: K, listener: (payload: Lifecycle<S, E>[K]) => void): this {
    this.listeners.off(event, listener);
    return this;
  }

  /**
   * Handles an action: validates the payload, loads the stream (without an `expectedVersion`, from the app's
   * cache of recent snapshots), checks the invariants, runs the handler, validates and commits the events it
   * emits, and writes a snapshot when the state's `.snap` rule says so.
   * @param name - the action name
   * @param target - the stream and the actor, with an optional `expectedVersion` or `idempotencyKey` (see {@link Target})
   * @param payload - the action payload (type inferred from the action)
   * @param options - `reactingTo`: the event a reaction is handling, to keep its correlation;
   *   `skipValidation`: trusted input only (see {@link DoOptions})
   * @returns one snapshot per committed event (plus one for a snapshot written), or `[current]` when nothing was emitted
   * @throws {@link ValidationError} for an unknown action, a bad target, payload or event data
   * @throws {@link InvariantError} when an invariant fails
   * @throws {@link ConcurrencyError} when the stream moved since it was loaded (or is not at `expectedVersion`)
   * @see [Optimistic concurrency](/docs/concepts/event-sourcing#optimistic-concurrency) — the cache and conflicts.
   * @example
   * ```ts
   * const [snap] = await app.do("increment", { stream: "c-1", actor }, { by: 1 });
   * ```
   */
  async do<K extends keyof A & string>(
    name: K,
    target: Target,
    payload: Readonly<A[K]>,
    options?: DoOptions
  ): Promise<Snapshot<S[K & keyof S], E>[]>;
  /**
   * The call shape of earlier releases, positional `reactingTo` and `skipValidation`. Warns once per process.
   * @deprecated Pass them in the options: `app.do(name, target, payload, { reactingTo, skipValidation })`.
   * @param name - the action name
   * @param target - the stream and the actor
   * @param payload - the action payload
   * @param reactingTo - the event a reaction is handling
   * @param skipValidation - skip zod validation (trusted input only)
   * @returns what the options form returns
   */
  async do<K extends keyof A & string>(
    name: K,
    target: Target,
    payload: Readonly<A[K]>,
    reactingTo: CommittedOf<Schemas> | undefined,
    skipValidation?: boolean
  ): Promise<Snapshot<S[K & keyof S], E>[]>;
  async do<K extends keyof A & string>(name: K, target: Target, payload: Readonly<A[K]>, ...rest: unknown[]) {
    const { reactingTo, skipValidation = false } = doOptions(rest[0], rest[1], 3 + rest.length);
    return this.run({ name, target, payload, reactingTo, skipValidation });
  }

  /**
   * Rebuilds a stream's state from its latest snapshot and the events after it — or, given `at`, as it was after
   * event `{ id }`, after stream version `{ version }`, or as of `{ time }`.
   * @param state - the state to fold with
   * @param stream - the stream name
   * @param options - `at`: a point in the stream's history (default: now); `onSnapshot`: called
   *   with the snapshot after each event (see {@link LoadOptions})
   * @returns the snapshot (`init()` for an empty stream or a point before its first event)
   * @throws {@link ValidationError} when `at` does not name exactly one of `id`, `version` or `time`
   * @example
   * ```ts
   * const before = await app.load(Counter, "c-1", { at: { version: 2 } });
   * ```
   */
  async load<SX extends Schema, EX extends Schemas, AX extends Schemas>(
    state: State<SX, EX, AX, any, any>,
    stream: string,
    options?: LoadOptions<SX, EX>
  ): Promise<Snapshot<SX, EX>>;
  /**
   * The call shape of earlier releases, positional callback and point in time. Warns once per process.
   * @deprecated Pass them in the options: `app.load(State, stream, { at, onSnapshot })`.
   * @param state - the state to fold with
   * @param stream - the stream name
   * @param callback - called with the snapshot after each event
   * @param at - a point in the stream's history
   * @returns what the options form returns
   */
  async load<SX extends Schema, EX extends Schemas, AX extends Schemas>(
    state: State<SX, EX, AX, any, any>,
    stream: string,
    callback: ((snapshot: Snapshot<SX, EX>) => void) | undefined,
    at?: PointInTime
  ): Promise<Snapshot<SX, EX>>;
  async load(state: State<any, any, any, any, any>, stream: string, ...rest: unknown[]) {
    const { at, onSnapshot } = loadOptions<LoadOptions<any, any>>(rest[0], rest[1], 2 + rest.length);
    const log = this.log;
    return at ? loadAt(state, stream, at, onSnapshot, log) : load(state, stream, onSnapshot, undefined, log);
  }

  /**
   * Closes a stream: commits its state as a summary snapshot followed by the close event ({@link CLOSE_EVENT}), at
   * the version it read, so a concurrent action makes one of the two fail. Every later action on the stream is
   * refused with a {@link StreamClosedError}; loads still work, from the summary. With `continueAs`, the state goes on
   * in a new stream whose first event is the summary.
   * @param state - the state whose data is summarised
   * @param stream - the stream to close
   * @param options - `by` (who closes it), `reason`, `expectedVersion`, `continueAs` (see {@link CloseOptions})
   * @returns the closed state and, with `continueAs`, the new stream's first snapshot
   * @throws {@link StreamClosedError} when the stream is already closed
   * @throws {@link ConcurrencyError} when the stream is not at `expectedVersion` or moved while closing
   * @throws {@link ValidationError} for bad options, or a `continueAs` stream that already has events
   * @see [Archiving and retention](/docs/guides/archiving#closing-the-books) — closing, carrying a state on.
   * @experimental
   * @example
   * ```ts
   * await app.close(Counter, "c-1", { by: actor, reason: "year closed", continueAs: "c-1-2026" });
   * ```
   */
  async close<SX extends Schema, EX extends Schemas, AX extends Schemas>(
    state: State<SX, EX, AX, any, any>,
    stream: string,
    options: CloseOptions
  ): Promise<ClosedStream<SX, EX>> {
    const closed = await close(state as State<SX, EX, any>, stream, options, this.log, this.cache);
    this.listeners.emit("committed", [closed.closed] as unknown as Snapshot<S[keyof S], E>[]);
    return closed;
  }

  /**
   * Reads the log: calls `callback` for each matching event and returns the first and last events and the count.
   * @param query - filters (see {@link Query})
   * @param callback - called for each event
   * @throws {@link ValidationError} for a malformed query
   * @example
   * ```ts
   * const { count, last } = await app.query({ stream: "c-1" });
   * ```
   */
  async query(query: Query, callback?: (event: CommittedOf<E>) => void): Promise<LogRead<E>> {
    return readLog(this.log, this.registry.events, query, callback);
  }

  /**
   * Reads the log into an array. Mind `limit` on large logs.
   * @param query - filters (see {@link Query})
   * @example
   * ```ts
   * const events = await app.queryArray({ stream: "c-1", backward: true, limit: 5 });
   * ```
   */
  async queryArray(query: Query): Promise<CommittedOf<E>[]> {
    return readLogArray(this.log, this.registry.events, query);
  }

  /**
   * The name of earlier releases for {@link Act.queryArray}. Warns once per process.
   * @deprecated Use `app.queryArray(query)`.
   * @param query - filters (see {@link Query})
   */
  async query_array(query: Query): Promise<CommittedOf<E>[]> {
    deprecated("app.query_array", "use app.queryArray(query)");
    return this.queryArray(query);
  }

  /**
   * Waits until a projection has handled the events an action committed (read-your-writes). Returns at once for
   * events it does not handle and for an inline projection. A consumer must be running, here or elsewhere.
   * @param projection - a projection registered with `act().with(projection)`
   * @param after - the snapshots `do` returned, or the id of the last event to wait for
   * @param options - how long to wait at most (`timeoutMillis`, default 5,000; see {@link ProjectedOptions})
   * @throws Error naming the projection and the event when it is blocked, or not there within `timeoutMillis`
   * @see [Read models and projections](/docs/guides/projections#read-your-writes) — in an HTTP handler.
   * @example
   * ```ts
   * const Totals = projection("Totals").with(Counter).on("Incremented", () => {}).build();
   * await app.projected(Totals, await app.do("increment", { stream: "c-1", actor }, { by: 1 }));
   * ```
   */
  async projected(
    projection: Projection<any, any>,
    after: readonly Snapshot<any, any>[] | number,
    options?: ProjectedOptions
  ): Promise<void>;
  /**
   * The call shape of earlier releases, a positional timeout. Warns once per process.
   * @deprecated Pass it in the options: `app.projected(projection, after, { timeoutMillis })`.
   * @param projection - a registered projection
   * @param after - the snapshots `do` returned, or an event id
   * @param timeoutMillis - how long to wait at most, in ms
   */
  async projected(
    projection: Projection<any, any>,
    after: readonly Snapshot<any, any>[] | number,
    timeoutMillis: number
  ): Promise<void>;
  async projected(projection: Projection<any, any>, after: readonly Snapshot<any, any>[] | number, options?: unknown) {
    const { timeoutMillis = 5_000 } = checkOptions("projected", projectedOptions(options), OptionSchemas.projected);
    return waitProjected(this, this.log, projection, after, timeoutMillis, this.locals);
  }

  /**
   * Waits until the reactions of one causal chain have run, and those of the events their actions committed;
   * returns at once when nothing reacts. A consumer must be running, here or in another process.
   * @param chain - the snapshots `do` returned (their events' `meta.correlation`), or a correlation id
   * @param options - how long to wait at most (`timeoutMillis`, default 5,000; see {@link SettledOptions})
   * @throws {@link ValidationError} for an empty or malformed correlation id or a bad timeout
   * @throws {@link NotSettledError} with `reason` `"blocked"` at once when a stream of the chain is
   *   blocked before its events, or `"pending"` when they were not all handled within `timeoutMillis`
   * @see [Waiting for a chain](/docs/concepts/reactions-in-production#waiting-for-a-chain) — what it reads and waits for.
   * @example
   * ```ts
   * await app.settled(await app.do("increment", { stream: "c-1", actor }, { by: 1 }), { timeoutMillis: 1_000 });
   * ```
   */
  async settled(chain: readonly Snapshot<any, any>[] | string, options?: SettledOptions): Promise<void> {
    const { timeoutMillis = 5_000 } = checkOptions("settled", options, OptionSchemas.settled);
    return waitSettled(this, this.log, this.registry.events, chainOf(chain), timeoutMillis);
  }

  /**
   * Rebuilds a read model without downtime: the new version, registered beside the old one, projects the log
   * while the old one serves; once it has every event the log had at the call, `switchOver` runs.
   * @param projection - the new version, registered with `act().with(projection)`
   * @param options - progress reporting, a timeout and the switch-over (see {@link RebuildOptions})
   * @returns the final progress, with `done: true`
   * @throws {@link ValidationError} naming an option out of range
   * @throws Error naming the projection when it is blocked, not caught up within `timeoutMillis`, inline or local
   * @see [Read models and projections](/docs/guides/projections#rebuilds) — rebuilds step by step.
   * @example
   * ```ts
   * const TotalsV2 = projection("Totals", { version: 2 }).with(Counter).on("Incremented", () => {}).build();
   * await app.rebuild(TotalsV2, { onProgress: ({ projected, total }) => console.log(`${projected}/${total}`) });
   * ```
   */
  async rebuild(projection: Projection<any, any>, options?: RebuildOptions): Promise<RebuildProgress> {
    return rebuild(this.log, projection, checkOptions("rebuild", options, OptionSchemas.rebuild));
  }
}
