import { around } from "../instrumentation/instrumentation.js";
import { CORRELATION_PAGE, CORRELATION_PAGES } from "./correlation-loop.js";
import { BACKLOG_MILLIS, type Drainer } from "./drain.js";
import type { Discovery } from "./discovery.js";
import type { build_tracer } from "../instrumentation/tracer.js";
import type { Schemas } from "../types/action.js";
import type { Store } from "../types/ports.js";
import type { Drain, DrainOptions } from "../types/reaction.js";

/**
 * One drain of an app (`app.drain()`): discovery around the {@link Drainer}'s
 * handling. The most advanced reactions are brought to the head of the log
 * first, so new work is found at once; pages for reactions still behind (a
 * new one backfilling) are read while the drainer handles — as long as it
 * handles, or the backlog's allowance if that is longer — so they delay new
 * work little.
 */
export class DrainCycle<E extends Schemas> {
  /** Whether the last drain's discovery stopped short of the end of the log (a running consumer then drains again at once). */
  behind = false;

  /**
   * @param drainer - the app's drainer
   * @param discovery - the app's discovery, shared through its store
   * @param tracer - traces the streams discovery registered
   * @param store - the app's store, read at each drain
   */
  constructor(
    private readonly drainer: Drainer<E>,
    private readonly discovery: Discovery,
    private readonly tracer: ReturnType<typeof build_tracer>,
    private readonly store: () => Store
  ) {}

  /** Discovers, then drains (options are checked by the caller). */
  async drain(options: DrainOptions): Promise<Drain<E>> {
    const run = () => around("drain", { ...options, store: this.store() }, () => this.drainer.drain(options));
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
    // Streams the backlog's pages registered meanwhile are work this drain
    // found: one that handled nothing else handles them, so a loop that
    // drains while something is acknowledged does not stop before them.
    if (!drain.value.acked.length && !drain.value.blocked.length && lag.leased.length) return run();
    return drain.value;
  }
}
