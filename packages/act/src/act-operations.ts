import { archive, archiveOf, purge, reactionNames } from "./archive/archive.js";
import { SnapshotCache } from "./committing/cache.js";
import { type Dispatch, dispatch } from "./committing/dispatch.js";
import { readLog } from "./committing/read-log.js";
import { deprecated } from "./core/deprecated.js";
import { checkOptions, OptionSchemas } from "./core/inputs.js";
import { Listeners } from "./core/listeners.js";
import { store as storePort } from "./core/ports.js";
import { uuid } from "./core/utils.js";
import { firedTimers } from "./instrumentation/instrumentation.js";
import { AppPersonalData } from "./personal/app-personal.js";
import { LocalProjections } from "./projections/local-projection.js";
import { AppReactions } from "./reactions/app-reactions.js";
import type { Running } from "./reactions/consumer.js";
import { AppTimers, systemClock } from "./timers/app-timers.js";
import type { Query, Target } from "./core/schemas.js";
import type { CommittedOf, Schemas, Snapshot, State } from "./types/action.js";
import type { Dispatcher, DoOptions, LogRead } from "./types/app.js";
import type { ArchiveMoved, ArchivePolicy, ArchivePurged, RetentionPolicy } from "./types/archive.js";
import type { Correlated } from "./types/discovery.js";
import type { Lifecycle } from "./types/lifecycle.js";
import type { Forgotten } from "./types/personal.js";
import type { Store } from "./types/ports.js";
import type { ReactionStats, ReactionStream } from "./types/reaction-streams.js";
import type { ConsumerOptions, CorrelationOptions, Drain, DrainOptions, Registry } from "./types/reaction.js";
import type { Lease } from "./types/lease.js";
import type { Clock, TimerRequest } from "./types/timers.js";

/**
 * What an app is made of — its registry, store, reactions, timers and personal
 * fields — and the commands that run and look after it rather than handle
 * actions: draining and the consumer, discovery, operator commands on reaction
 * streams, their figures, archiving and erasure. {@link Act} adds the calls of
 * the model (`do`, `load`, `query` and the rest), so the reference shows one
 * class while each half stays short enough to read.
 */
export abstract class ActOperations<S extends Schemas, E extends Schemas, A extends Schemas> implements Dispatcher<A> {
  protected readonly listeners = new Listeners<Lifecycle<S, E>>();
  /** Latest snapshot per stream, so actions read only new events. */
  protected readonly cache = new SnapshotCache();
  private readonly reactions: AppReactions<E>;
  /** The local projections, caught up in this process by each drain. */
  protected readonly locals: LocalProjections;
  protected readonly timers: AppTimers<A>;
  protected consumer?: Running;
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
    this.timers = new AppTimers(registry, fire, uuid(), clock, wake);
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
  protected get log(): Store {
    return this.personal.view(this.store);
  }

  /**
   * Forgets a data subject (crypto-shredding): destroys every version of its
   * key in the store, so the personal fields of its events read as
   * {@link FORGOTTEN} from then on; empties the snapshots of the streams that
   * hold its data (archived ones too), and clears this app's cache of states. Later writes of its
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

  /** Handles an action; {@link Act.do} says how. Reactions and timers dispatch through it. */
  abstract do<K extends keyof A & string>(
    name: K,
    target: Target,
    payload: Readonly<A[K]>,
    options?: DoOptions
  ): Promise<Snapshot<S[K & keyof S], E>[]>;
  /** The call shape of earlier releases; {@link Act.do} says how. */
  abstract do<K extends keyof A & string>(
    name: K,
    target: Target,
    payload: Readonly<A[K]>,
    reactingTo: CommittedOf<Schemas> | undefined,
    skipValidation?: boolean
  ): Promise<Snapshot<S[K & keyof S], E>[]>;

  /** Runs an action (`do`, or a timer firing), its handler lent the app's timer checks; tells `"committed"` listeners. */
  protected async run<K extends keyof A & string>(
    request: Omit<Dispatch<A, K>, "timers">
  ): Promise<Snapshot<S[K & keyof S], E>[]> {
    // The checks first, then the request (which never has its own): on Node 20
    // a spread followed by a key its source lacks takes V8's slow path, about
    // 1 µs on every action.
    const asked: Dispatch<A, K> = { timers: this.timers.checks, ...request };
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
    return this.timers.schedule(this.store, timer);
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
   * Summaries and close events stay in the log, so the streams still load — except one whose summary
   * {@link Act.forget} emptied: its load needs the archived events, and is refused once they are purged.
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
   * Reads the store's archive as {@link Act.query} reads the log: calls `callback` for each matching archived event,
   * decoded through its schema, its personal fields opened (or {@link FORGOTTEN} once their subject was forgotten),
   * and returns the first and last events and the count. `store.archive.query` gives the events as the store keeps
   * them, personal fields sealed.
   * @param query - filters, as for the log (see {@link Query}); snapshots only with `with_snaps`
   * @param callback - called for each event
   * @throws {@link StoreError} when the store keeps no archive
   * @throws {@link ValidationError} for a malformed query
   * @see [Archiving and retention](/docs/guides/archiving#reading-archived-streams) — what each read returns.
   * @experimental
   * @example
   * ```ts
   * const { count } = await app.queryArchive({ stream: "ledger-2025" }, (e) => console.log(e.version, e.data));
   * ```
   */
  async queryArchive(query: Query, callback?: (event: CommittedOf<E>) => void): Promise<LogRead<E>> {
    return readLog(archiveOf(this.log, "queryArchive"), this.registry.events, query, callback);
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
    firedTimers(fired, this.store);
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
