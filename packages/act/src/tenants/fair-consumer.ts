import { logger } from "../core/ports.js";
import type { Drain } from "../types/reaction.js";

/** The first wait after a drain of a tenant that found nothing to do; it doubles while idle. */
const FIRST_IDLE_MILLIS = 5;

/** Resolves after the process's pending timers and I/O callbacks had their turn. */
const yieldToEventLoop = () =>
  new Promise<void>((resolve) => (typeof setImmediate === "function" ? setImmediate(resolve) : setTimeout(resolve, 0)));

/** Where one tenant stands in the rotation. */
type Turn = {
  /** When its next poll is due (`Date.now()`); 0 for at once. */
  due: number;
  /** Its current idle wait, doubling up to the poll interval. */
  idle: number;
  /** Woken since its last drain started: something may have been committed. */
  pending: boolean;
  /** Its drain in progress, if any. */
  running?: Promise<void>;
  /** When it was last used (`Date.now()`): added, woken, touched, or drained with work. */
  usedAt: number;
  /** Its store was rested for being idle: it is drained again only when woken or touched. */
  resting: boolean;
};

/** When an idle tenant's store is rested (see `TenantStores.rest`). */
export type Resting = {
  /** How long a tenant goes unused before its store is rested, in ms. */
  readonly millis: number;
  /** Rests the tenant's store. */
  readonly rest: (tenant: string) => void;
};

/** Ms until a tenant's next timer is due (0 when it is), or undefined when it has none pending. */
export type NextTimer = (tenant: string) => Promise<number | undefined>;

/**
 * One consumer for every tenant of a process. Each cycle it drains, in turn
 * and once each, the tenants that may have work — woken by a commit, left
 * with more by their last drain, or due for a poll — starting after the one
 * it served first last time, at most `concurrency` at once. One drain is a
 * bounded share (`streamLimit` streams, `eventLimit` events each, plus what
 * `backlogMillis` allows), so a tenant with a long backlog is served one
 * share per cycle and never holds the others back by more than that: a new
 * event of another tenant is reacted to within a cycle.
 *
 * An idle tenant is due again when its poll wait runs out or its next timer
 * comes due, whichever is first: a timer coming due commits nothing, so no
 * wake-up would announce it.
 *
 * With `resting`, a tenant unused for its `millis` — no drain running, none
 * that did work, no timer pending — has its store rested, and is not polled
 * until a commit wakes it or `touch` says it is used again: polling it would
 * open its store again.
 */
export class FairConsumer {
  readonly #turns = new Map<string, Turn>();
  /** Rotation order; the cycle starts at `#cursor`. */
  #order: string[] = [];
  #cursor = 0;
  #stopping = false;
  #loop?: Promise<void>;
  #wakeUp?: () => void;
  /** The drains in progress, at most `concurrency`. */
  readonly #draining = new Set<Promise<void>>();
  /** Resolves who waits for a free slot, when a drain ends. */
  #freed?: () => void;

  /**
   * @param drain - drains one tenant once (undefined when it is gone)
   * @param pollMillis - the longest idle wait of a tenant between two polls
   * @param concurrency - how many tenants drain at once
   * @param limits - what makes a drain "full" (more work left): the streams and events one drain may take
   * @param nextTimer - ms until a tenant's next timer is due, asked after a drain that left nothing to do
   * @param resting - when and how to rest an idle tenant's store; without it, none is rested
   */
  constructor(
    private readonly drain: (tenant: string) => Promise<Drain<any> | undefined>,
    private readonly pollMillis: number,
    private readonly concurrency: number,
    private readonly limits: { streamLimit: number; eventLimit: number },
    private readonly nextTimer: NextTimer = async () => undefined,
    private readonly resting?: Resting
  ) {}

  /** Whether the loop is running. */
  get running(): boolean {
    return this.#loop !== undefined && !this.#stopping;
  }

  /** Starts the loop; false when it already runs. */
  start(): boolean {
    if (this.#loop) return false;
    this.#stopping = false;
    this.#loop = this.#run().finally(() => (this.#loop = undefined));
    return true;
  }

  /**
   * Starts no drain from now on and waits for the drains in progress, for
   * `graceMillis` at most: a drain stuck in a slow handler must not hold a
   * process's shutdown. One still running after that finishes on its own;
   * its leases run out if the process ends first.
   *
   * @returns whether every drain finished within the grace
   */
  async stop(graceMillis = Number.POSITIVE_INFINITY): Promise<boolean> {
    this.#stopping = true;
    this.#wakeUp?.();
    this.#free();
    const loop = this.#loop;
    if (!loop) return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finished = await Promise.race([
      loop.then(() => true),
      new Promise<boolean>((resolve) => {
        if (Number.isFinite(graceMillis)) timer = setTimeout(() => resolve(false), graceMillis);
      }),
    ]);
    clearTimeout(timer);
    if (!finished) {
      const draining = [...this.#turns].filter(([, turn]) => turn.running).map(([tenant]) => tenant);
      logger.warn(
        { draining },
        `tenants' consumer stopped after its grace of ${graceMillis} ms with drains still running (${draining.join(", ")}); their leases run out on their own`
      );
    }
    return finished;
  }

  /** Adds a tenant to the rotation, due at once. */
  add(tenant: string): void {
    if (this.#turns.has(tenant)) return;
    this.#turns.set(tenant, { due: 0, idle: FIRST_IDLE_MILLIS, pending: true, usedAt: Date.now(), resting: false });
    this.#order.push(tenant);
    this.#wakeUp?.();
  }

  /** Takes a tenant out of the rotation and waits for its drain in progress. */
  async remove(tenant: string): Promise<void> {
    const turn = this.#turns.get(tenant);
    if (!turn) return;
    this.#turns.delete(tenant);
    const at = this.#order.indexOf(tenant);
    this.#order.splice(at, 1);
    if (at < this.#cursor) this.#cursor--;
    await turn.running?.catch(() => {});
  }

  /** Something may have been committed for `tenant`: drain it in the next cycle. */
  wake(tenant: string): void {
    const turn = this.#turns.get(tenant);
    if (!turn) return;
    turn.pending = true;
    turn.due = 0;
    turn.usedAt = Date.now();
    turn.resting = false;
    this.#wakeUp?.();
  }

  /** `tenant` is used (its app was asked for): a rested tenant is polled again, and rested after a new idle time. */
  touch(tenant: string): void {
    const turn = this.#turns.get(tenant);
    if (!turn) return;
    turn.usedAt = Date.now();
    if (!turn.resting) return;
    turn.resting = false;
    turn.due = turn.usedAt + turn.idle;
  }

  /** The tenants to drain this cycle, in rotation order from the cursor. */
  #ready(now: number): string[] {
    const n = this.#order.length;
    const ready: string[] = [];
    for (let i = 0; i < n; i++) {
      const tenant = this.#order[(this.#cursor + i) % n];
      const turn = this.#turns.get(tenant);
      if (turn && !turn.running && (turn.pending || (!turn.resting && turn.due <= now))) ready.push(tenant);
    }
    // The next cycle starts one further on, so no tenant is always served first.
    if (n) this.#cursor = (this.#cursor + 1) % n;
    return ready;
  }

  /** Drains one tenant once and sets when it is due again. */
  async #serve(tenant: string): Promise<void> {
    const turn = this.#turns.get(tenant);
    if (!turn) return;
    turn.pending = false;
    let more = false;
    let failed = false;
    /** When the tenant's next timer is due (`Date.now()`), if it has one. */
    let timer: number | undefined;
    let timerKnown = false;
    const work = (async () => {
      try {
        const drained = await this.drain(tenant);
        if (!drained) return;
        const { fetched, leased, acked, blocked, fired = [] } = drained;
        // A drain that did work may have left some (a stream's backlog, a
        // discovery still behind the log, which no commit will announce):
        // the tenant comes again next cycle — one share per cycle, in turn.
        more =
          leased.length > 0 ||
          acked.length > 0 ||
          blocked.length > 0 ||
          fired.length > 0 ||
          fetched.some(({ events }) => events.length >= this.limits.eventLimit);
        // Asked within the drain's turn, so a tenant removed meanwhile is not asked after its store closed.
        if (!more) [timer, timerKnown] = await this.#untilTimer(tenant);
      } catch (error) {
        failed = true;
        logger.error(error, `drain of tenant "${tenant}" failed; the tenants' consumer retries it`);
      }
    })();
    turn.running = work;
    await work;
    turn.running = undefined;
    const now = Date.now();
    if (more || turn.pending) turn.idle = FIRST_IDLE_MILLIS;
    else turn.idle = Math.min(failed ? Math.max(turn.idle * 2, 100) : turn.idle * 2, this.pollMillis);
    turn.due = more || turn.pending ? now : Math.min(now + turn.idle, timer ?? Number.POSITIVE_INFINITY);
    if (more) turn.usedAt = now;
    else if (!failed && timerKnown && timer === undefined) this.#restIfIdle(tenant, turn, now);
  }

  /** Rests the tenant's store when it went unused for the resting time (woken meanwhile, it is in use). */
  #restIfIdle(tenant: string, turn: Turn, now: number): void {
    if (!this.resting || turn.resting || turn.pending || now - turn.usedAt < this.resting.millis) return;
    if (!this.#turns.has(tenant)) return;
    try {
      this.resting.rest(tenant);
      turn.resting = true;
    } catch (error) {
      logger.error(error, `could not rest idle tenant "${tenant}"; its store stays open`);
    }
  }

  /**
   * When the tenant's next timer is due (`Date.now()`; undefined when none is
   * pending), and whether that is known: a store that cannot say now is
   * polled. The clock is read before the store is asked, so the time that
   * passes while it answers (or the drain ends) never makes the timer late.
   */
  async #untilTimer(tenant: string): Promise<[number | undefined, boolean]> {
    try {
      const asked = Date.now();
      const millis = await this.nextTimer(tenant);
      return [millis === undefined ? undefined : asked + millis, true];
    } catch (error) {
      logger.error(error, `could not read when tenant "${tenant}"'s next timer is due; the tenants' consumer polls it`);
      return [undefined, false];
    }
  }

  /**
   * One cycle: every ready tenant's drain started once, in turn, each when
   * fewer than `concurrency` run. It ends once the last one started, not
   * when all finished: a drain held up by a slow handler (up to its lease)
   * keeps its slot, and the other tenants go on being served beside it.
   */
  async #cycle(ready: string[]): Promise<void> {
    for (const tenant of ready) {
      while (this.#draining.size >= this.concurrency && !this.#stopping) await this.#slot();
      if (this.#stopping) return;
      const serving: Promise<void> = this.#serve(tenant).finally(() => {
        this.#draining.delete(serving);
        // A slot is free, and the tenant is due again: look at once.
        this.#free();
        this.#wakeUp?.();
      });
      this.#draining.add(serving);
    }
  }

  /** Resolves when a drain in progress ends. */
  #slot(): Promise<void> {
    return new Promise<void>((resolve) => (this.#freed = resolve));
  }

  /** Tells the cycle waiting for a slot (if any) that one is free, or that the consumer stops. */
  #free(): void {
    const freed = this.#freed;
    this.#freed = undefined;
    freed?.();
  }

  async #run(): Promise<void> {
    while (!this.#stopping) {
      const ready = this.#ready(Date.now());
      if (ready.length) {
        await this.#cycle(ready);
        // A store that answers without I/O (in memory) would keep this loop
        // on microtasks: let timers and I/O of the process run between cycles.
        await yieldToEventLoop();
        continue;
      }
      let soonest = Number.POSITIVE_INFINITY;
      // A tenant draining now is due when its drain ends, which wakes the loop.
      for (const turn of this.#turns.values())
        if (!turn.resting && !turn.running) soonest = Math.min(soonest, turn.due);
      const wait = Math.max(0, Math.min(soonest - Date.now(), this.pollMillis));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        this.#wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wakeUp = undefined;
    }
    await Promise.all(this.#draining);
  }
}
