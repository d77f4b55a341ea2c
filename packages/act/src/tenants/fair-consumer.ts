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
};

/**
 * One consumer for every tenant of a process. Each cycle it drains, in turn
 * and once each, the tenants that may have work — woken by a commit, left
 * with more by their last drain, or due for a poll — starting after the one
 * it served first last time, at most `concurrency` at once. One drain is a
 * bounded share (`streamLimit` streams, `eventLimit` events each, plus what
 * `backlogMillis` allows), so a tenant with a long backlog is served one
 * share per cycle and never holds the others back by more than that: a new
 * event of another tenant is reacted to within a cycle.
 */
export class FairConsumer {
  readonly #turns = new Map<string, Turn>();
  /** Rotation order; the cycle starts at `#cursor`. */
  #order: string[] = [];
  #cursor = 0;
  #stopping = false;
  #loop?: Promise<void>;
  #wakeUp?: () => void;

  /**
   * @param drain - drains one tenant once (undefined when it is gone)
   * @param pollMillis - the longest idle wait of a tenant between two polls
   * @param concurrency - how many tenants drain at once
   * @param limits - what makes a drain "full" (more work left): the streams and events one drain may take
   */
  constructor(
    private readonly drain: (tenant: string) => Promise<Drain<any> | undefined>,
    private readonly pollMillis: number,
    private readonly concurrency: number,
    private readonly limits: { streamLimit: number; eventLimit: number }
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

  /** Stops after the drains in progress. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#wakeUp?.();
    await this.#loop;
  }

  /** Adds a tenant to the rotation, due at once. */
  add(tenant: string): void {
    if (this.#turns.has(tenant)) return;
    this.#turns.set(tenant, { due: 0, idle: FIRST_IDLE_MILLIS, pending: true });
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
    this.#wakeUp?.();
  }

  /** The tenants to drain this cycle, in rotation order from the cursor. */
  #ready(now: number): string[] {
    const n = this.#order.length;
    const ready: string[] = [];
    for (let i = 0; i < n; i++) {
      const tenant = this.#order[(this.#cursor + i) % n];
      const turn = this.#turns.get(tenant);
      if (turn && !turn.running && (turn.pending || turn.due <= now)) ready.push(tenant);
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
    turn.due = more || turn.pending ? now : now + turn.idle;
  }

  /** One cycle: every ready tenant drained once, at most `concurrency` at a time. */
  async #cycle(ready: string[]): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < ready.length && !this.#stopping) await this.#serve(ready[next++]);
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, ready.length) }, worker));
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
      for (const turn of this.#turns.values()) soonest = Math.min(soonest, turn.due);
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
  }
}
