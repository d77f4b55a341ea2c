import type { Act } from "../act.js";
import { checkOptions, OptionSchemas } from "../core/inputs.js";
import { adopt, logger, onDispose, release } from "../core/ports.js";
import { EVENT_LIMIT, STREAM_LIMIT } from "../reactions/drain.js";
import { systemClock } from "../timers/app-timers.js";
import type { Schemas } from "../types/action.js";
import type { Store } from "../types/ports.js";
import type { Drain, DrainOptions } from "../types/reaction.js";
import type { Clock } from "../types/timers.js";
import { FairConsumer, type Resting } from "./fair-consumer.js";
import { checkTenantId } from "./tenant-id.js";
import { TenantError } from "./tenant-error.js";
import type { TenantStores } from "./tenant-stores.js";

/**
 * How the tenants' consumer (`tenants.start`) drains: each drain's
 * {@link DrainOptions} — one drain is a tenant's share of a cycle — how long
 * an idle tenant waits at most between polls, how many tenants drain at
 * once, and how long `stop` waits for the drains in progress.
 *
 * @experimental
 * @example
 * ```ts
 * const options: TenantConsumerOptions = { pollMillis: 5_000, concurrency: 4, eventLimit: 20, graceMillis: 10_000 };
 * ```
 */
export type TenantConsumerOptions = DrainOptions & {
  /**
   * Longest wait between two polls of an idle tenant, in ms (default 5,000);
   * commits and timers scheduled through a tenant's app wake it at once, and
   * its next timer's due time ends the wait early.
   */
  readonly pollMillis?: number;
  /** How many tenants drain at the same time (default 4). */
  readonly concurrency?: number;
  /** How long `stop` waits for the drains in progress, in ms (default 5,000); then it returns and they finish on their own. */
  readonly graceMillis?: number;
};

/**
 * What `tenants.add` does: seed the tenant's store (default), or trust that
 * it is seeded — at a restart, for tenants added before, so a process
 * serving many tenants starts without a schema check per tenant.
 *
 * @experimental
 * @example
 * ```ts
 * await tenants.add("acme", { seed: false }); // added by an earlier run
 * ```
 */
export type AddTenantOptions = {
  /** Create the tenant's store if missing (`create`, then `seed`); default true. */
  readonly seed?: boolean;
};

/**
 * What `tenants.remove` erased.
 *
 * @experimental
 * @example
 * ```ts
 * const { tenant, erased } = await tenants.remove("acme");
 * console.log(`${tenant}: ${erased.join(", ")}`);
 * ```
 */
export type TenantRemoval = {
  /** The tenant removed. */
  readonly tenant: string;
  /** What was erased, in words: the store's tables, then what its strategy erased after (its file, its database). */
  readonly erased: readonly string[];
};

/** The tenant consumer's defaults. */
const POLL_MILLIS = 5_000;
const CONCURRENCY = 4;
const GRACE_MILLIS = 5_000;
/** Tenants joined to the consumer between two turns of the event loop. */
const JOIN_BATCH = 16;
const CONSUMER_OPTIONS = OptionSchemas.consumer.extend({ concurrency: OptionSchemas.whole(1, 1_000).optional() });

/** One tenant served by this process. */
type Served<S extends Schemas, E extends Schemas, A extends Schemas> = {
  /** Its app, built at the first use. */
  app?: Act<S, E, A>;
  /** Stops the wake-ups of the tenants' consumer. */
  unhook?: () => void;
};

/**
 * Many tenants, one model: the same app for each tenant, each bound to a
 * store of its own (`act()…buildTenants({ store })`). `app(tenant)` is that
 * tenant's typed app — `do`, `load`, `query`, `drain`, `stats` and the rest —
 * built at its first use and kept; everything it does goes to the tenant's
 * store and nowhere else. No call takes a tenant and a stream together:
 * another tenant's streams cannot even be named.
 *
 * Tenants are added (`add`, which creates the store if missing) and removed
 * (`remove`, which stops the tenant's work and erases its data) while the
 * process runs. `start` runs one consumer for all of them, fair across
 * tenants.
 *
 * @experimental
 * @typeParam S - the state type of each action
 * @typeParam E - the event schemas
 * @typeParam A - the actions' payloads
 * @see [Multi-tenancy](/docs/guides/multi-tenancy) — strategies, isolation and the tenants' consumer.
 * @example
 * ```ts
 * const tenants = act().with(Counter).buildTenants({ store: () => new InMemoryStore() });
 * await tenants.add("acme");
 * await tenants.app("acme").do("increment", { stream: "c-1", actor }, { by: 1 });
 * ```
 */
export class Tenants<S extends Schemas, E extends Schemas, A extends Schemas> {
  readonly #served = new Map<string, Served<S, E, A>>();
  /** The tenant of each store whose app this process opened (for `tenantOf`). */
  readonly #tenantOf = new WeakMap<Store, string>();
  /** Adds in flight, so two concurrent adds of one tenant create one store. */
  readonly #adding = new Map<string, Promise<Act<S, E, A>>>();
  readonly #removed = new Set<string>();
  #consumer?: FairConsumer;
  /** How long `stop` waits for the consumer's drains in progress (the `graceMillis` it was started with). */
  #graceMillis = GRACE_MILLIS;
  #undispose?: () => void;
  /** The tenants joining the consumer after `start`, a batch at a time. */
  #joining?: Promise<void>;
  /** The strategy's shared parts, handed to `disposeAndExit` once a store is open. */
  #shared?: { dispose(): Promise<void> };

  /**
   * @param build - builds the app bound to a store (the builder's `build({ store })`)
   * @param strategy - where each tenant's data lives
   * @param clock - the clock of every tenant's app: when their timers are due
   */
  constructor(
    private readonly build: (store: Store) => Act<S, E, A>,
    private readonly strategy: TenantStores,
    private readonly clock: Clock = systemClock
  ) {}

  /**
   * Serves a tenant in this process: creates its store when missing (the
   * strategy's `create`, then `seed`; `{ seed: false }` skips both for a
   * tenant known to be there) and joins the tenants' consumer if it runs.
   * Adding a tenant twice does nothing more.
   *
   * @param tenant - the tenant id: 1 to 40 lower-case letters, digits or `-`, starting and ending with a letter or digit
   * @param options - whether to seed (see {@link AddTenantOptions})
   * @returns the tenant's app
   * @throws ValidationError naming the id when it is not a tenant id
   * @throws {@link TenantError} with reason `"removed"` for a tenant this process removed
   * @example
   * ```ts
   * const acme = await tenants.add("acme");
   * ```
   */
  async add(tenant: string, options: AddTenantOptions = {}): Promise<Act<S, E, A>> {
    checkTenantId(tenant);
    if (this.#removed.has(tenant)) throw new TenantError(tenant, "removed");
    if (this.#served.has(tenant)) return this.app(tenant);
    let adding = this.#adding.get(tenant);
    if (!adding) {
      adding = this.#add(tenant, options.seed ?? true).finally(() => this.#adding.delete(tenant));
      this.#adding.set(tenant, adding);
    }
    return adding;
  }

  async #add(tenant: string, seed: boolean): Promise<Act<S, E, A>> {
    const served: Served<S, E, A> = {};
    if (seed) {
      await this.strategy.create?.(tenant);
      const app = this.#open(tenant, served);
      await app.store.seed();
    }
    if (this.#removed.has(tenant)) throw new TenantError(tenant, "removed");
    this.#served.set(tenant, served);
    if (this.#consumer) this.#join(tenant);
    return this.app(tenant);
  }

  /** Builds the tenant's app on its own store, the first time. */
  #open(tenant: string, served: Served<S, E, A>): Act<S, E, A> {
    if (served.app) return served.app;
    // The strategy's shared parts (a pool) close after every tenant's store:
    // adopted first, they are disposed last.
    const shared = this.strategy.dispose;
    if (!this.#shared && shared) {
      this.#shared = { dispose: () => shared.call(this.strategy) };
      adopt(this.#shared);
    }
    const app = this.build(this.strategy.store(tenant));
    this.#tenantOf.set(app.store, tenant);
    // The tenants' consumer is not the app's own (`app.start`), so the app's
    // schedule wakes nothing: it wakes the tenant here, whose drain then
    // learns when the new timer is due.
    const schedule = app.schedule.bind(app);
    app.schedule = async (timer) => {
      const kept = await schedule(timer);
      if (kept) this.#consumer?.wake(tenant);
      return kept;
    };
    served.app = app;
    return app;
  }

  /** When the strategy rests an idle tenant's store (`idleMillis` and `rest`), for the consumer. */
  #resting(): Resting | undefined {
    const { idleMillis, rest } = this.strategy;
    if (!idleMillis || !rest) return undefined;
    return { millis: idleMillis, rest: (tenant) => rest.call(this.strategy, tenant) };
  }

  /** Ms until the tenant's next timer is due, by the apps' clock; undefined when it has none pending. */
  async #untilTimer(tenant: string): Promise<number | undefined> {
    const app = this.#served.get(tenant)?.app;
    const timers = app?.store.timers;
    const actions = app ? Object.keys(app.registry.actions) : [];
    if (!timers || !actions.length) return undefined;
    const next = await timers.next(actions);
    return next && Math.max(0, next.getTime() - this.clock.now().getTime());
  }

  /**
   * The tenant's app: the same typed app for every tenant, bound to this
   * tenant's store (built at the first call, then kept).
   *
   * @param tenant - a tenant added in this process
   * @returns the tenant's app
   * @throws ValidationError naming the id when it is not a tenant id
   * @throws {@link TenantError} when the tenant was not added (`"unknown"`) or was removed (`"removed"`)
   * @example
   * ```ts
   * const { count, last } = await tenants.app("acme").query({ stream: "c-1" });
   * ```
   */
  app(tenant: string): Act<S, E, A> {
    checkTenantId(tenant);
    const served = this.#served.get(tenant);
    if (!served) throw new TenantError(tenant, this.#removed.has(tenant) ? "removed" : "unknown");
    // In use again: a tenant whose store was rested for being idle is polled again.
    this.#consumer?.touch(tenant);
    return this.#open(tenant, served);
  }

  /**
   * Whether this process serves the tenant (it was added and not removed).
   *
   * @param tenant - the tenant id
   * @example
   * ```ts
   * if (!tenants.has("acme")) await tenants.add("acme");
   * ```
   */
  has(tenant: string): boolean {
    return this.#served.has(tenant);
  }

  /**
   * Which tenant a store belongs to: the tenant whose app works on it, for
   * code that sees only a store — an observer's hooks learn the store of
   * each action, load, drain, reaction, projection batch and fired timer
   * (how `@act-root/act-otel` labels each metric with its tenant). Undefined for
   * a store of no tenant this process serves, or of one removed.
   *
   * @param store - a store, as an observer's hook received it
   * @returns the tenant id, or undefined
   * @example
   * ```ts
   * observe({
   *   action: (info, run) => {
   *     console.log(`${info.action} of tenant ${tenants.tenantOf(info.store) ?? "none"}`);
   *     return run();
   *   },
   * });
   * ```
   */
  tenantOf(store: Store | undefined): string | undefined {
    return store && this.#tenantOf.get(store);
  }

  /**
   * The tenants this process serves, in the order they were added.
   *
   * @example
   * ```ts
   * for (const tenant of tenants.list()) console.log(tenant, await tenants.app(tenant).stats());
   * ```
   */
  list(): string[] {
    return [...this.#served.keys()];
  }

  /**
   * Removes a tenant and erases all of its data: its work stops first (the
   * tenants' consumer lets its drain in progress finish and drains it no
   * more; a consumer of its own app stops), then its store is dropped —
   * every event, reaction stream, key and timer — and closed, and the
   * strategy erases what is left (the SQLite file, the schema or the
   * database). It cannot be added again in this process. Other tenants keep
   * running.
   *
   * @param tenant - a tenant added in this process
   * @returns what was erased (see {@link TenantRemoval}); also logged
   * @throws {@link TenantError} when the tenant was not added, or was removed already
   * @example
   * ```ts
   * const { erased } = await tenants.remove("acme"); // e.g. ["tables of the store", "file data/acme.db"]
   * ```
   */
  async remove(tenant: string): Promise<TenantRemoval> {
    checkTenantId(tenant);
    await this.#adding.get(tenant)?.catch(() => {});
    const served = this.#served.get(tenant);
    if (!served) throw new TenantError(tenant, this.#removed.has(tenant) ? "removed" : "unknown");
    this.#served.delete(tenant);
    this.#removed.add(tenant);
    served.unhook?.();
    await this.#consumer?.remove(tenant);
    // Not opened in this process yet (added with `seed: false`): open it to drop it.
    const app = this.#open(tenant, served);
    await app.stop();
    app.stopCorrelations();
    await app.store.drop();
    await app.store.dispose();
    release(app.store);
    this.#tenantOf.delete(app.store);
    const erased = ["tables of the store", ...((await this.strategy.erase?.(tenant)) ?? [])];
    logger.info({ tenant, erased }, `tenant "${tenant}" removed: its data was erased`);
    return { tenant, erased };
  }

  /**
   * Drains every tenant once, one after the other: a cycle of the tenants'
   * consumer, by hand (tests, scripts).
   *
   * @param options - each drain's options (see {@link DrainOptions})
   * @returns each tenant's drain, by tenant
   * @example
   * ```ts
   * const drained = await tenants.drain();
   * console.log(drained.get("acme")?.acked.length);
   * ```
   */
  async drain(options: DrainOptions = {}): Promise<Map<string, Drain<E>>> {
    const drained = new Map<string, Drain<E>>();
    for (const tenant of this.list()) drained.set(tenant, await this.app(tenant).drain(options));
    return drained;
  }

  /**
   * Starts one consumer for every tenant of this process — and those added
   * later — until {@link Tenants.stop} or `disposeAndExit`. Each cycle drains
   * once, in turn, every tenant that may have work (a commit woke it, its
   * last drain left some, or its poll is due), so a tenant with a long
   * backlog gets one bounded share per cycle and never starves the others.
   * Do not also `start` the tenants' apps: one consumer serves them all.
   *
   * @param options - drain limits, `pollMillis`, `concurrency` and `graceMillis` (see {@link TenantConsumerOptions})
   * @returns false when it was already running
   * @throws ValidationError naming an option out of range
   * @example
   * ```ts
   * tenants.start({ concurrency: 8 });
   * ```
   */
  start(options: TenantConsumerOptions = {}): boolean {
    checkOptions("start", options, CONSUMER_OPTIONS);
    if (this.#consumer) return false;
    const { pollMillis = POLL_MILLIS, concurrency = CONCURRENCY, graceMillis = GRACE_MILLIS, ...drain } = options;
    this.#graceMillis = graceMillis;
    this.#consumer = new FairConsumer(
      (tenant) => {
        const served = this.#served.get(tenant);
        return served ? this.#open(tenant, served).drain(drain) : Promise.resolve(undefined);
      },
      pollMillis,
      concurrency,
      { streamLimit: drain.streamLimit ?? STREAM_LIMIT, eventLimit: drain.eventLimit ?? EVENT_LIMIT },
      (tenant) => this.#untilTimer(tenant),
      this.#resting()
    );
    this.#undispose = onDispose(() => this.stop());
    const started = this.#consumer.start();
    // Joining a tenant may open its store (a SQLite file's change check):
    // a few at a time, so the first tenants drain while the rest open.
    const consumer = this.#consumer;
    this.#joining = (async () => {
      let n = 0;
      for (const tenant of [...this.#served.keys()]) {
        if (this.#consumer !== consumer) return;
        this.#join(tenant);
        if (++n % JOIN_BATCH === 0) await new Promise((resolve) => setTimeout(resolve, 0));
      }
    })();
    return started;
  }

  /** Puts a tenant in the consumer's rotation, woken by its store's commits (or its app's). */
  #join(tenant: string): void {
    const served = this.#served.get(tenant);
    const consumer = this.#consumer;
    // Joined already (added while the batches of `start` were joining).
    if (!served || !consumer || served.unhook) return;
    const app = this.#open(tenant, served);
    // A commit of events no reaction handles gives nothing to do (see hookConsumer).
    const reacts = (name: string) => (app.registry.events[name]?.reactions.size ?? 0) > 0;
    const wake = (names?: readonly string[]) => {
      if (!names || names.some(reacts)) consumer.wake(tenant);
    };
    const log = app.store;
    if (log.subscribe) served.unhook = log.subscribe(wake);
    else {
      const committed = (snapshots: readonly { event?: { name: unknown } }[]) =>
        wake(snapshots.flatMap(({ event }) => (event ? [String(event.name)] : [])));
      app.on("committed", committed);
      served.unhook = () => app.off("committed", committed);
    }
    consumer.add(tenant);
  }

  /**
   * Stops the tenants' consumer: no new drain starts, and it waits for the
   * drains in progress for `graceMillis` at most (an option of `start`,
   * default 5,000 ms), so a handler stuck in one does not hold the process's
   * shutdown; a drain still running after that finishes on its own, and its
   * leases run out if the process ends first (logged). Handlers that
   * outlived their drain keep their leases until those run out.
   *
   * @returns whether every drain in progress finished within the grace (true when none ran)
   * @example
   * ```ts
   * tenants.start({ graceMillis: 10_000 });
   * process.once("SIGTERM", () => void tenants.stop());
   * ```
   */
  async stop(): Promise<boolean> {
    const consumer = this.#consumer;
    this.#consumer = undefined;
    await this.#joining;
    this.#undispose?.();
    this.#undispose = undefined;
    for (const served of this.#served.values()) {
      served.unhook?.();
      served.unhook = undefined;
    }
    return (await consumer?.stop(this.#graceMillis)) ?? true;
  }

  /**
   * Stops the consumer and closes every tenant's store and what they share
   * (a pool), keeping their data — for a process that ends without
   * `disposeAndExit`, or a test.
   *
   * @example
   * ```ts
   * await tenants.dispose();
   * ```
   */
  async dispose(): Promise<void> {
    await this.stop();
    for (const served of this.#served.values()) {
      if (!served.app) continue;
      await served.app.stop();
      await served.app.store.dispose();
      release(served.app.store);
    }
    this.#served.clear();
    const shared = this.#shared;
    this.#shared = undefined;
    if (shared) {
      release(shared);
      await shared.dispose();
    }
  }
}
