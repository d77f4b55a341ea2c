import { deprecated } from "../core/deprecated.js";
import { logger } from "../core/ports.js";
import type { Discovery } from "./discovery.js";
import type { build_tracer } from "../instrumentation/tracer.js";
import type { Query } from "../core/schemas.js";
import type { Correlated } from "../types/discovery.js";
import type { CorrelationOptions } from "../types/reaction.js";

/** Events per correlation page. */
export const CORRELATION_PAGE = 1_000;
/** Pages a drain's discovery reads at most, ahead of its handling and beside it. */
export const CORRELATION_PAGES = 10;

/**
 * Correlation outside a drain: one pass on demand (`app.correlate`) and the
 * timer that runs passes (`app.startCorrelations`), so reaction streams are
 * registered before a drain needs them.
 */
export class CorrelationLoop {
  private timer?: ReturnType<typeof setInterval>;

  /**
   * @param discovery - the app's discovery, shared through its store
   * @param tracer - traces the streams each pass registered
   */
  constructor(
    private readonly discovery: Discovery,
    private readonly tracer: ReturnType<typeof build_tracer>
  ) {}

  /**
   * One pass: the next page of each reaction's discovery, or — given a
   * query — exactly those events for every reaction.
   */
  async correlate(query?: Query): Promise<Correlated> {
    const { leased, last_id, behind } = query
      ? await this.discovery.pass(query)
      : await this.discovery.step(1, CORRELATION_PAGE);
    if (leased.length) this.tracer.correlated(leased);
    const result = { leased, lastId: last_id, behind } as Correlated;
    // Not enumerable: it is not part of the result, only a way to read it the old way.
    return Object.defineProperty(result, "last_id", {
      get: () => {
        deprecated("app.correlate().last_id", "read lastId");
        return last_id;
      },
    });
  }

  /** Starts the timer; false when it already runs. Options are checked by the caller. */
  start({ query = {}, intervalMillis = 10_000, onCorrelated }: CorrelationOptions): boolean {
    if (this.timer) return false;
    const { limit = CORRELATION_PAGE, ...rest } = query;
    // Without filters or a start, the shared discovery; otherwise passes over
    // the query from the app's lowest position, as asked.
    const shared = Object.values(rest).every((value) => value === undefined);
    this.timer = setInterval(() => {
      (shared
        ? this.discovery.step(1, limit)
        : this.correlate({ ...rest, after: Math.max(this.discovery.lowest(), rest.after ?? -1), limit })
      )
        .then(({ leased }) => leased.length && onCorrelated?.(leased))
        .catch((error) => logger.error(error, "correlation failed"));
    }, intervalMillis);
    (this.timer as { unref?: () => void }).unref?.();
    return true;
  }

  /** Stops the timer, if it runs. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
