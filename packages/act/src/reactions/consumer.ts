import { logger, onDispose } from "../core/ports.js";
import { EVENT_LIMIT, STREAM_LIMIT } from "./drain.js";
import type { Listeners } from "../core/listeners.js";
import type { Schemas, Snapshot } from "../types/action.js";
import type { Lifecycle } from "../types/lifecycle.js";
import type { Store } from "../types/ports.js";
import type { ConsumerOptions, Drain, EventRegister } from "../types/reaction.js";

/** The first wait after a drain that found nothing to do; it doubles while idle. */
const FIRST_IDLE_MILLIS = 5;

/**
 * Keeps an app's reactions running in this process: drains whenever there
 * may be work — at once after a commit here, when the store reports a commit
 * elsewhere, and otherwise on a poll that backs off while idle — until
 * stopped. Correctness never depends on a wake-up: polling alone finds all
 * work, wake-ups only make it sooner.
 */
export class Consumer {
  private stopping = false;
  private loop?: Promise<void>;
  /** Set when something may have been committed since the last drain started. */
  private pending = false;
  private wakeUp?: () => void;

  /**
   * @param drain - one drain cycle of the app
   * @param busy - whether handlers the drains started are still running
   * @param options - drain options, poll interval and grace period
   * @param woken - whether the store wakes it for commits made elsewhere; without that, work that
   *   arrives during a drain is only found by draining again, so a drain that did work is followed at once by another
   * @param behind - whether the last drain's discovery stopped short of the end of the log (a long gap, a
   *   new reaction's backfill): the work it has not found yet wakes no one, so the loop drains again at once
   * @param nextTimer - ms until the app's next timer is due (0 while due ones are left, as after a drain that fired
   *   as many as it may): a timer coming due wakes no one either, so an idle wait ends by then at the latest
   */
  constructor(
    private readonly drain: () => Promise<Drain<any>>,
    private readonly busy: () => boolean,
    private readonly options: ConsumerOptions,
    private readonly woken = true,
    private readonly behind: () => boolean = () => false,
    private readonly nextTimer: () => Promise<number | undefined> = async () => undefined
  ) {}

  /** Whether the loop is running. */
  get running(): boolean {
    return this.loop !== undefined && !this.stopping;
  }

  /** Starts the loop; false when it already runs. */
  start(): boolean {
    if (this.loop) return false;
    this.stopping = false;
    this.loop = this.run().finally(() => (this.loop = undefined));
    return true;
  }

  /** There may be new work: drain now (or right after the drain in progress). */
  wake(): void {
    this.pending = true;
    this.wakeUp?.();
  }

  /**
   * Stops after the drain in progress, then waits up to `graceMillis` for
   * handlers that outlived their drain, so their outcome is recorded and
   * their leases released.
   */
  async stop(): Promise<void> {
    if (!this.loop) return;
    this.stopping = true;
    this.wakeUp?.();
    await this.loop;
    const until = Date.now() + (this.options.graceMillis ?? 5_000);
    while (this.busy() && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    if (this.busy()) logger.warn("consumer stopped with reactions still running; their leases expire on their own");
  }

  /** Ms until the app's next timer is due (Infinity when none is pending or the store cannot say now). */
  private async untilTimer(): Promise<number> {
    try {
      return (await this.nextTimer()) ?? Number.POSITIVE_INFINITY;
    } catch (error) {
      logger.error(error, "could not read when the next timer is due; the consumer polls");
      return Number.POSITIVE_INFINITY;
    }
  }

  private async run(): Promise<void> {
    const pollMillis = this.options.pollMillis ?? 1_000;
    let idle = FIRST_IDLE_MILLIS;
    while (!this.stopping) {
      this.pending = false;
      let worked = false;
      let more = false;
      try {
        const { fetched, leased, acked, blocked, fired = [] } = await this.drain();
        worked = leased.length > 0 || acked.length > 0 || blocked.length > 0 || fired.length > 0;
        // Drain again at once only where this drain may have left work: it
        // took as many streams, or as many events of a stream, as it may.
        // Otherwise what was found is done, and what is committed meanwhile
        // wakes the loop; the short wait below is only the polling that
        // finds the rest (commits that sent no wake-up). A store that wakes
        // no one for commits elsewhere leaves draining as the only way to
        // find them: there, any drain that did work is followed at once.
        more =
          leased.length >= (this.options.streamLimit ?? STREAM_LIMIT) ||
          fetched.some(({ events }) => events.length >= (this.options.eventLimit ?? EVENT_LIMIT)) ||
          (worked && !this.woken) ||
          this.behind();
      } catch (error) {
        // A store that is down must not end the loop: log, back off, try again.
        logger.error(error, "drain failed; the consumer retries");
        idle = Math.max(idle, Math.min(pollMillis, 100));
      }
      if (this.stopping) break;
      if (worked || this.pending) idle = FIRST_IDLE_MILLIS;
      if (more || this.pending) continue;
      const wait = Math.min(idle, await this.untilTimer());
      if (this.stopping || this.pending) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = undefined;
      idle = Math.min(idle * 2, pollMillis);
    }
  }
}

/** A consumer started by `app.start()`, hooked up to what wakes it and to the process's dispose. */
export type Running = {
  /** Starts its loop; false when it already runs. */
  start: () => boolean;
  /** There may be new work (an operator command made some): drain now. */
  wake: () => void;
  /** Undoes its hooks, then stops it (see {@link Consumer.stop}). */
  stop: () => Promise<void>;
};

/** What {@link hookConsumer} hooks a consumer up to. */
export type ConsumerHooks<E extends Schemas> = {
  /** The app's store: its wake-ups, when it has them, tell of commits here and elsewhere. */
  store: Store;
  /** The app's events and their reactions: a commit of events none of them handles wakes nothing. */
  events: EventRegister<E, any>;
  /** The app's lifecycle listeners: without wake-ups from the store, its own commits wake the loop. */
  listeners: Listeners<Lifecycle<any, E>>;
  /** Stops the app's consumer; called when the process is disposed. */
  stop: () => Promise<void>;
};

/**
 * Hooks a consumer up to what wakes it — the store's wake-ups, or else the
 * app's `"committed"` listeners — and to the process's dispose, which stops
 * it before the store is closed. The caller starts it.
 */
export function hookConsumer<E extends Schemas>(
  consumer: Consumer,
  { store, events, listeners, stop }: ConsumerHooks<E>
): Running {
  // A commit whose events no reaction of this app handles (a reaction's own
  // output, typically) gives it nothing to do: waking for it would cost a
  // drain that finds nothing — two store calls per handled event, and
  // under load they delay the next real work. Unnamed wake-ups always wake.
  const reacts = (name: string) => (events[name]?.reactions.size ?? 0) > 0;
  const wake = (names?: readonly string[]) => {
    if (!names || names.some(reacts)) consumer.wake();
  };
  // A store with wake-ups tells of this app's commits too (at once, in
  // this process); listening to both would wake the loop twice per commit,
  // and the second, arriving mid-drain, would cost one more drain.
  const committed = (snapshots: Snapshot<any, E>[]) =>
    wake(snapshots.flatMap(({ event }) => (event ? [event.name as string] : [])));
  let unsubscribe: (() => void) | undefined;
  if (store.subscribe) unsubscribe = store.subscribe(wake);
  else listeners.on("committed", committed);
  const undispose = onDispose(stop);
  return {
    start: () => consumer.start(),
    wake: () => consumer.wake(),
    stop: () => {
      listeners.off("committed", committed);
      unsubscribe?.();
      undispose();
      return consumer.stop();
    },
  };
}
