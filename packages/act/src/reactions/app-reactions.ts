import { settings } from "../core/config.js";
import { uuid } from "../core/utils.js";
import { build_tracer } from "../instrumentation/tracer.js";
import { Consumer, hookConsumer, type Running } from "./consumer.js";
import { CorrelationLoop } from "./correlation-loop.js";
import { Discovery } from "./discovery.js";
import { Drainer } from "./drain.js";
import { DrainCycle } from "./drain-cycle.js";
import { Operations } from "./operations.js";
import { reactionStats } from "./stats.js";
import type { Listeners } from "../core/listeners.js";
import type { Schemas } from "../types/action.js";
import type { Dispatcher } from "../types/app.js";
import type { Lifecycle } from "../types/lifecycle.js";
import type { Store } from "../types/ports.js";
import type { ReactionStats } from "../types/reaction-streams.js";
import type { ConsumerOptions, Drain, DrainOptions, EventRegister } from "../types/reaction.js";

/**
 * An app's reaction machinery, wired once per app: the {@link Drainer} (its
 * id marks the app's leases), the {@link Discovery} shared through the
 * store, the drain cycle around them, correlation outside drains, and the
 * operator's commands. What a drain acknowledged or blocked goes to the
 * app's lifecycle listeners.
 */
export class AppReactions<E extends Schemas> {
  readonly drainer: Drainer<E>;
  readonly discovery: Discovery;
  readonly cycle: DrainCycle<E>;
  readonly correlations: CorrelationLoop;
  readonly operations: Operations;

  /**
   * @param events - the app's events and their reactions
   * @param app - what handlers receive to dispatch actions
   * @param store - the app's store, read at each use
   * @param listeners - the app's lifecycle listeners, told of each drain's `"acked"` and `"blocked"` leases
   * @param wake - wakes the app's consumer, if one runs (after an operator command)
   * @param nextTimer - ms until the app's next timer is due, if any: an idle consumer looks again by then
   */
  constructor(
    private readonly events: EventRegister<E, any>,
    app: Dispatcher<Schemas>,
    private readonly store: () => Store,
    private readonly listeners: Listeners<Lifecycle<any, E>>,
    wake: () => void,
    private readonly nextTimer: () => Promise<number | undefined> = async () => undefined
  ) {
    const id = uuid();
    const tracer = build_tracer(settings().logLevel);
    this.drainer = new Drainer(
      events,
      app,
      id,
      tracer,
      (acked, blocked) => {
        if (acked.length) listeners.emit("acked", acked);
        if (blocked.length) listeners.emit("blocked", blocked);
      },
      store
    );
    this.discovery = new Discovery(events as never, id, this.drainer.routes, store, this.drainer.backfill);
    this.cycle = new DrainCycle(this.drainer, this.discovery, tracer, store);
    this.correlations = new CorrelationLoop(this.discovery, tracer);
    this.operations = new Operations(store, this.drainer, wake);
  }

  /**
   * A consumer of the app's drains (`app.start()`), hooked up to what wakes it and to the process's dispose,
   * which stops it; the caller starts it.
   *
   * @param options - the consumer's options, checked by the caller
   * @param app - drains once with them, and stops the app's consumer (at dispose)
   */
  consumer(
    options: ConsumerOptions,
    app: { drain(options: DrainOptions): Promise<Drain<E>>; stop(): Promise<void> }
  ): Running {
    const log = this.store();
    const busy = () => this.drainer.working.size > 0;
    const drain = () => app.drain(options);
    const consumer = new Consumer(
      drain,
      busy,
      options,
      log.subscribe !== undefined,
      () => this.cycle.behind,
      this.nextTimer
    );
    const stop = () => app.stop();
    return hookConsumer(consumer, { store: log, events: this.events, listeners: this.listeners, stop });
  }

  /** How the reactions are doing (see {@link reactionStats}). */
  stats(lagLimit: number): Promise<Omit<ReactionStats, "timers">> {
    return reactionStats(this.store(), this.events, this.drainer, this.discovery, lagLimit);
  }
}
