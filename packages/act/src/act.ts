import { SnapshotCache } from "./committing/cache.js";
import { type Dispatch, dispatch } from "./committing/dispatch.js";
import { load, loadAt } from "./committing/load.js";
import { readLog, readLogArray } from "./committing/read-log.js";
import { deprecated } from "./core/deprecated.js";
import { firedTimers } from "./instrumentation/instrumentation.js";
import { checkOptions, OptionSchemas } from "./core/inputs.js";
import { Listeners } from "./core/listeners.js";
import { store as storePort } from "./core/ports.js";
import { doOptions, loadOptions, projectedOptions } from "./legacy-calls.js";
import { LocalProjections } from "./projections/local-projection.js";
import { waitProjected } from "./projections/projected.js";
import { type RebuildOptions, type RebuildProgress, rebuild } from "./projections/rebuild.js";
import { AppReactions } from "./reactions/app-reactions.js";
import type { Running } from "./reactions/consumer.js";
import { chainOf, type SettledOptions, waitSettled } from "./reactions/settled.js";
import { AppTimers, systemClock } from "./timers/app-timers.js";
import { AppPersonalData } from "./personal/app-personal.js";
import { uuid } from "./core/utils.js";
import { archive, purge, reactionNames } from "./archive/archive.js";
import { close } from "./committing/close.js";
import type { Projection } from "./builders/projection.js";
import type { Query, Target } from "./core/schemas.js";
import type { CommittedOf, Schema, Schemas, Snapshot, State } from "./types/action.js";
import type { Dispatcher, DoOptions, LoadOptions, LogRead, PointInTime, ProjectedOptions } from "./types/app.js";
import type { Correlated } from "./types/discovery.js";
import type { Lifecycle } from "./types/lifecycle.js";
import type { Store } from "./types/ports.js";
import type { ReactionStats, ReactionStream } from "./types/reaction-streams.js";
import type { ConsumerOptions, CorrelationOptions, Drain, DrainOptions, Lease, Registry } from "./types/reaction.js";
import type { Clock, TimerRequest } from "./types/timers.js";
import type { Forgotten } from "./types/personal.js";
import type {
  ArchiveMoved,
  ArchivePolicy,
  ArchivePurged,
  ClosedStream,
  CloseOptions,
  RetentionPolicy,
} from "./types/archive.js";

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
export class Act<S extends Schemas, E extends Schemas, A extends Schemas> implements Dispatcher<A> {
  private readonly listeners = new Listeners<Lifecycle<S, E>>();
  /** Latest snapshot per stream, so actions read only new events. */
  private readonly cache = new SnapshotCache();
  private readonly reactions: AppReactions<E>;
  /** The local projections, caught up in this process by each drain. */
  private readonly locals: LocalProjections;
  private readonly timers: AppTimers<A>;
  private consumer?: Running;
  /** Its personal fields: sealed on their way to the store, opened on their way back. */
  private readonly personal: AppPersonalData;

  /**
   * @param registry - the states, schemas and reactions (built by {@link act})
   * @param bound - the app's own store; without it, the {@link store} port's store at each use
   * @param clock - where its timers read the time (default: the system clock)
   */
  constructor(
    public readonly registry: Registry<S, E, A>,
    private readonly bound?: Store,
    private readonly clock: Clock = systemClock
  ) {
    const states = new Set(Object.values(registry.actions) as State<any, any, any>[]);
    this.personal = new AppPersonalData(registry.events, states, () => this.cache.clear());
    const wake = () => this.consumer?.wake();
    const next = () => this.timers.wait(this.store);
    this.reactions = new AppReactions(registry.events, this, () => this.log, this.listeners, wake, next);
    this.locals = new LocalProjections(registry.local ?? [], registry.events);
    const fire = (name: string, target: Target, payload: unknown, correlation?: string) =>
      this.run({
        name: name as keyof A & string,
        target,
        payload: payload as never,
        skipValidation: false,
        correlation,
      });
    this.timers = new AppTimers(registry, fire, uuid(), clock);
  }

  /**
   * The store this app uses: the one it was built with (`build({ store })`), or else the {@link store} port's —
   * read at each use, so an app built before the port was given its adapter uses that adapter.
   * @example
   * ```ts
   * await act().with(Counter).build({ store: new InMemoryStore() }).store.seed();
   * ```
   */
  get store(): Store {
    return this.bound ?? storePort();
  }

  /** The store as the app reads and writes it: personal fields sealed on the way in, opened on the way out. */
  private get log(): Store {
    return this.personal.view(this.store);
  }

  /**
   * Forgets a data subject (crypto-shredding): destroys every version of its
   * key in the store, so the personal fields of its events read as
   * {@link FORGOTTEN} from then on; empties the snapshots of the streams that
   * hold its data, and clears this app's cache of states. Later writes of its
   * personal data are refused. Read models outside the store keep what they
   * copied: erase them too (see the guide).
   * @param subject - the data subject, as its events name it
   * @returns the key versions destroyed and the snapshots emptied
   * @throws {@link PersonalDataError} when the store keeps no keys, or has none for `subject` (`unknown-subject`)
   * @see [Personal data](/docs/guides/personal-data) — what is encrypted and what forgetting erases.
   * @experimental
   * @example
   * ```ts
   * const { versions } = await app.forget("customer-7");
   * ```
   */
  forget(subject: string): Promise<Forgotten> {
    return this.personal.forget(this.store, subject);
  }

  /**
   * Rotates a data subject's key: the writes after it encrypt with a new
   * version, and events written before still read with the older ones (until
   * `forget` destroys them all). Other processes pick the new version up
   * within 30 seconds.
   * @param subject - the data subject, as its events name it
   * @returns the new key version
   * @throws {@link PersonalDataError} when the store keeps no keys, or has no live key for `subject`
   * @see [Personal data](/docs/guides/personal-data#key-rotation) — key versions.
   * @experimental
   * @example
   * ```ts
   * const version = await app.rotate("customer-7"); // 2 after the first rotation
   * ```
   */
  rotate(subject: string): Promise<number> {
    return this.personal.rotate(this.store, subject);
  }

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

  /** Runs an action (`do`, or a timer firing), its handler lent the app's timer checks; tells `"committed"` listeners. */
  private async run<K extends keyof A & string>(request: Dispatch<A, K>): Promise<Snapshot<S[K & keyof S], E>[]> {
    const asked = { ...request, timers: this.timers.checks };
    const { result, committed } = await dispatch(this.registry, this.cache, this.log, asked);
    if (committed) this.listeners.emit("committed", result);
    return result;
  }

  /**
   * Schedules an action to run later — at `at`, or `afterMillis` from now by the app's clock — fired once by a drain
   * of an app that has the action (`drain`, `start`), even across restarts. Its payload is checked now.
   * @param timer - its `id` (used once; `cancel` names it), the action, the target and payload, and when
   * @returns false when the store already has a timer with this id (it is left as it is)
   * @throws {@link ValidationError} naming the action and the field that is wrong
   * @see [Workflows and timers](/docs/guides/workflows-and-timers) — deadlines, reminders and how they fire.
   * @experimental
   * @example
   * ```ts
   * await app.schedule({ id: "nudge-c-1", action: "increment", target: { stream: "c-1", actor }, payload: { by: 1 }, afterMillis: 60_000 });
   * ```
   */
  async schedule<K extends keyof A & string>(timer: TimerRequest<A, K>): Promise<boolean> {
    const kept = await this.timers.schedule(this.store, timer);
    if (kept) this.consumer?.wake();
    return kept;
  }

  /**
   * Cancels pending timers so they never fire — unless a drain is firing one right now (it is not cancelled).
   * @param ids - the timers' ids
   * @returns the ids cancelled
   * @experimental
   * @example
   * ```ts
   * await app.cancel("nudge-c-1");
   * ```
   */
  async cancel(...ids: string[]): Promise<string[]> {
    return this.timers.cancel(this.store, ids);
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
   * Moves the events of streams closed at least `afterMillis` ago (by the app's clock) to the store's archive, in
   * one transaction: all but the summary and the close event, which stay so the stream still loads and refuses
   * actions. Events some reaction stream has not passed stay in the log and are counted as `held`.
   * @param policy - `afterMillis`: how long a closed stream stays whole
   * @returns how many events moved, of which streams, and how many a reaction held back
   * @throws {@link StoreError} when the store keeps no archive
   * @see [Archiving and retention](/docs/guides/archiving#archiving) — what moves, and what each read does after.
   * @experimental
   * @example
   * ```ts
   * const { events, held } = await app.archive({ afterMillis: 90 * 24 * 3600_000 });
   * ```
   */
  async archive(policy: ArchivePolicy): Promise<ArchiveMoved> {
    return archive(this.store, this.clock, reactionNames(this.registry.events), policy);
  }

  /**
   * Deletes for good the archived events archived at least `afterMillis` ago (by the app's clock), and logs it.
   * Summaries and close events stay in the log, so the streams still load.
   * @param policy - `afterMillis`: how long an event stays in the archive
   * @returns how many events were deleted, of which streams
   * @throws {@link StoreError} when the store keeps no archive
   * @see [Archiving and retention](/docs/guides/archiving#retention) — retention.
   * @experimental
   * @example
   * ```ts
   * await app.purge({ afterMillis: 7 * 365 * 24 * 3600_000 });
   * ```
   */
  async purge(policy: RetentionPolicy): Promise<ArchivePurged> {
    return purge(this.store, this.clock, policy);
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
   * Runs the reaction resolvers over events not seen yet and registers the streams they target, so `drain` (which
   * calls this first) finds them: without a query, the next page of each reaction's discovery; with one, those events.
   * @param query - which events to scan (default: the next page of each reaction's discovery)
   * @returns the registered streams, the last event id scanned, and whether discovery is still behind the log
   * @see [Discovery](/docs/concepts/how-it-runs#discovery) — positions shared through the store, and what a query moves.
   * @example
   * ```ts
   * const { leased, lastId, behind } = await app.correlate();
   * ```
   */
  async correlate(query?: Query): Promise<Correlated> {
    return this.reactions.correlations.correlate(query);
  }

  /**
   * Calls {@link Act.correlate} every `intervalMillis` ms until {@link Act.stopCorrelations}.
   * @param options - which events each run scans (`query`, default: the shared discovery), how often
   *   (`intervalMillis`, default 10,000) and what to call with the streams each run registered (`onCorrelated`)
   * @returns false when correlations were already running
   * @throws {@link ValidationError} when `intervalMillis` is not a whole number of ms, at least 1
   * @example
   * ```ts
   * app.startCorrelations({ intervalMillis: 1_000, onCorrelated: (leased) => console.log(leased.length) });
   * ```
   */
  startCorrelations(options: CorrelationOptions = {}): boolean {
    return this.reactions.correlations.start(checkOptions("correlation", options, OptionSchemas.correlation));
  }

  /**
   * The call of earlier releases for {@link Act.startCorrelations}, positional. Warns once per process.
   * @deprecated Use `app.startCorrelations({ query, intervalMillis, onCorrelated })`.
   * @param query - passed to correlate
   * @param frequency - interval in ms (default 10,000)
   * @param callback - called with the streams registered by each run
   * @returns false when correlations were already running
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
   * @example
   * ```ts
   * app.stopCorrelations();
   * ```
   */
  stopCorrelations(): void {
    this.reactions.correlations.stop();
  }

  /**
   * The name of earlier releases for {@link Act.stopCorrelations}. Warns once per process.
   * @deprecated Use `app.stopCorrelations()`.
   */
  stop_correlations(): void {
    deprecated("app.stop_correlations", "use app.stopCorrelations()");
    this.stopCorrelations();
  }

  /**
   * Runs pending reactions once: correlates, leases the streams with work, and runs each event's reactions in
   * order, renewing the leases meanwhile; a failure is retried after a backoff, then blocks the stream. Then fires
   * the timers due by the app's clock (see {@link Act.schedule}).
   * @param options - stream and event limits, lease length, backlog allowance (see {@link DrainOptions})
   * @returns what was fetched, leased, acknowledged (moved forward) and blocked, and the timers `fired`
   * @throws {@link ValidationError} naming an option that is not a whole number in range (see {@link OptionSchemas})
   * @throws the store's error when it cannot poll, lease or read (leases taken are released first)
   * @see [Draining](/docs/concepts/event-sourcing#draining) — the cycle, its limits, retries and leases.
   * @example
   * ```ts
   * while ((await app.drain()).acked.length);
   * ```
   */
  async drain(options: DrainOptions = {}): Promise<Drain<E>> {
    const drained = await this.reactions.cycle.drain(checkOptions("drain", options, OptionSchemas.drain));
    if (this.locals.projections.length) await this.locals.catchUp(this.log);
    const fired = await this.timers.fire(this.store, options.leaseMillis ?? 10_000);
    firedTimers(fired);
    return fired.length ? Object.assign({}, drained, { fired }) : drained;
  }

  /**
   * Starts running reactions continuously in this process — after commits here and elsewhere, and on a poll that
   * backs off to `pollMillis` — until {@link Act.stop} or {@link disposeAndExit}. A failing drain is retried.
   * @param options - drain options, `pollMillis` (default 1,000) and `graceMillis` (default 5,000)
   * @returns false when it was already running
   * @throws {@link ValidationError} naming an option that is not a whole number in range (see {@link OptionSchemas})
   * @see [When a consumer wakes up](/docs/concepts/reactions-in-production#when-a-consumer-wakes-up) — every case.
   * @example
   * ```ts
   * app.start();
   * ```
   */
  start(options: ConsumerOptions = {}): boolean {
    checkOptions("start", options, OptionSchemas.consumer);
    if (this.consumer) return false;
    this.consumer = this.reactions.consumer(options, this);
    return this.consumer.start();
  }

  /**
   * Stops the consumer started by {@link Act.start}: no new drain starts, the one in progress finishes, and
   * handlers still running get up to `graceMillis` to settle, so their leases are released for another process.
   * @example
   * ```ts
   * process.once("SIGINT", () => void app.stop());
   * ```
   */
  async stop(): Promise<void> {
    const running = this.consumer;
    this.consumer = undefined;
    await running?.stop();
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

  /**
   * Lists blocked reaction streams, with the error that blocked each one and the watermark it will resume from.
   * @example
   * ```ts
   * for (const { stream, at, error } of await app.blocked()) console.error(stream, at, error);
   * ```
   */
  async blocked(): Promise<ReactionStream[]> {
    return this.reactions.operations.blocked();
  }

  /**
   * Unblocks reaction streams: each resumes at its watermark, trying the failed event again, with retries reset.
   * @param streams - the reaction streams
   * @returns the streams that were blocked and are not any more
   * @see [Operator commands](/docs/concepts/reactions-in-production#operator-commands-during-live-drains) — and live drains.
   * @example
   * ```ts
   * await app.unblock("audit");
   * ```
   */
  async unblock(...streams: string[]): Promise<string[]> {
    return this.reactions.operations.unblock(streams);
  }

  /**
   * Replays reaction streams from the start of the log, unblocked, so every reaction targeting them runs again
   * (handlers must cope with seeing each event again).
   * @param streams - the reaction streams
   * @returns the streams reset
   * @see [Operator commands](/docs/concepts/reactions-in-production#operator-commands-during-live-drains) — and live drains.
   * @example
   * ```ts
   * await app.reset("report-projection");
   * ```
   */
  async reset(...streams: string[]): Promise<string[]> {
    return this.reactions.operations.reset(streams);
  }

  /**
   * How the reactions are doing: per reaction stream its watermark, lag, retries, blocked state and the reactions
   * this app lacks; per reaction how far discovery has gone; pending and overdue timers; and the latency of the
   * latest reactions run here.
   * @param lagLimit - how many events the shared read of the log looks at (default 1,000)
   * @see [Monitoring](/docs/concepts/reactions-in-production#monitoring) — what each figure means and costs.
   * @example
   * ```ts
   * const { streams, latency } = await app.stats();
   * ```
   */
  async stats(lagLimit = 1_000): Promise<ReactionStats> {
    const [reactions, timers] = await Promise.all([this.reactions.stats(lagLimit), this.timers.stats(this.store)]);
    return { streams: reactions.streams, discovery: reactions.discovery, timers, latency: reactions.latency };
  }
}
