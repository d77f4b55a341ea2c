import { ROUTE_INDEX_LIMIT, RouteIndex } from "./route-index.js";
import type { Known, Scanned } from "./read-batches.js";
import type { Store } from "../types/ports.js";

/**
 * Events a stream with a backlog reads per drain at most: a page of the log,
 * so a shared read of the log serves a backlog whole instead of ten events
 * of it.
 */
export const BACKLOG_EVENTS = 1_000;

/**
 * Which events react into which stream, from a drainer's own shared reads
 * of the log: for the streams whose events no correlation pass of the
 * process saw (a process that started with a backlog, say). Without it each
 * drain's streams read the same pages again — up to ten thousand events of
 * the log per drain — to find their few events among those of the streams
 * the drains before them leased; with it a page is read once, and the
 * streams leased later take their events from it by id.
 *
 * Two indexes, as a drain leases streams at both ends of the backlog: one
 * for the pages read from a lagging stream's position, one for the others
 * (the leading streams'). A page goes to the index it continues; one after
 * a gap starts the index of its end of the backlog over. Events themselves
 * are not kept: a drain reads the ones it handles by id.
 */
export class Scans {
  private readonly lagging = new RouteIndex(ROUTE_INDEX_LIMIT, 0);
  private readonly leading = new RouteIndex(ROUTE_INDEX_LIMIT, 0);

  /** The ids reacting into `stream` after `at` that a page read of `log` found, and how far the pages went. */
  covered(log: Store, stream: string, at: number): Known | undefined {
    return this.lagging.covered(log, stream, at) ?? this.leading.covered(log, stream, at);
  }

  /** Records a page a drain read of `log`. */
  add(log: Store, { after, last, routes, lagging }: Scanned): void {
    const index = this.lagging.continues(log, after)
      ? this.lagging
      : this.leading.continues(log, after)
        ? this.leading
        : lagging
          ? this.lagging
          : this.leading;
    index.add(log, after, last, routes);
  }
}

/**
 * How many events a stream with a backlog reads per drain, learned from the
 * drains before: up to {@link BACKLOG_EVENTS}, but about twice what the
 * busiest stream handled within the last time allowance, never below the
 * drain's `eventLimit` — what is read and not handled is read again by the
 * next drain. A drain whose allowance stopped no batch doubles it.
 */
export class Pace {
  /** Events to read per stream in the next drain. */
  events = BACKLOG_EVENTS;

  /**
   * @param reached - for each batch the time allowance stopped, how many of its events it handled
   * @param eventLimit - the drain's share per stream
   */
  learn(reached: readonly number[], eventLimit: number): void {
    this.events = reached.length
      ? Math.min(BACKLOG_EVENTS, Math.max(eventLimit, 2 * Math.max(...reached)))
      : Math.min(BACKLOG_EVENTS, this.events * 2);
  }
}

/** How many of `events` come before the id a batch stopped at. */
export const reachedBefore = (events: readonly { id: number }[], stop: number) =>
  events.filter(({ id }) => id < stop).length;
