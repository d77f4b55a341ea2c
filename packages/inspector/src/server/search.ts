import type { Committed, Schemas, Store } from "@act-root/act";
import type { Catalog } from "./catalog.js";

/** About how long each query of an unindexed search takes, in ms: other requests wait at most about this long. */
const STEP_MILLIS = 20;

/** A page of a bounded search (see `ServerOptions.search`). */
export type SearchPage = {
  events: Committed<Schemas, string>[];
  /** The cursor to go on from (an event id), when the search stopped before the end. */
  next?: number;
  /** Without an index: the last event id looked at. */
  searched?: number;
  /** Without an index: the newest event id when the search ran. */
  last?: number;
  /** Whether the store has an index on the correlation id (the search reads only that correlation's events). */
  indexed: boolean;
};

/**
 * Finding events in the log for the inspector: by id, by correlation, and
 * those a reaction to an event committed. Without an index on the
 * correlation id a search reads ranges of ids within a time budget (see
 * `ServerOptions.search`), letting other requests in between.
 */
export class LogSearch {
  private readonly window: number;
  private readonly budget: number;

  /**
   * @param store - the store to read
   * @param catalog - says whether the store has an index on the correlation id
   * @param options - the ids per query to start with (`window`) and the time budget per request (`millis`)
   */
  constructor(
    private readonly store: Store,
    private readonly catalog: Catalog,
    options: { readonly window?: number; readonly millis?: number } = {}
  ) {
    this.window = Math.max(1, options.window ?? 20_000);
    this.budget = Math.max(0, options.millis ?? 250);
  }

  /** The event (or snapshot) with this id. */
  async eventById(id: number): Promise<Committed<Schemas, string> | undefined> {
    let found: Committed<Schemas, string> | undefined;
    await this.store.query(
      (e) => {
        if (e.id === id) found = e as Committed<Schemas, string>;
      },
      { after: id - 1, before: id + 1, limit: 1, with_snaps: true }
    );
    return found;
  }

  /** The id of the oldest event, or with `newest` the newest (snapshots included); -1 for an empty log. */
  private async edgeId(newest: boolean): Promise<number> {
    let id = -1;
    await this.store.query(
      (e) => {
        id = e.id;
      },
      { backward: newest, limit: 1, with_snaps: true }
    );
    return id;
  }

  /**
   * Events of a correlation after the cursor, `limit` at most, that `keep`
   * accepts. With an index on the correlation id this is one query. Without
   * one each query reads a range of ids, the server answers other requests
   * between ranges, and the search stops at the time budget: `next` is where
   * to go on from, `searched` the last id looked at and `last` the newest id.
   */
  async search(
    correlation: string,
    after: number,
    limit: number,
    keep?: (e: Committed<Schemas, string>) => boolean
  ): Promise<SearchPage> {
    const found: Committed<Schemas, string>[] = [];
    if (await this.catalog.correlationIndexed()) {
      // The index finds the correlation's events; a filter of our own reads
      // them a window at a time, as many as `limit` would not bound.
      let more = false;
      let read = 0;
      let seen = after;
      await this.store.query(
        (e) => {
          read++;
          seen = e.id;
          if (keep && !keep(e as never)) return;
          if (found.length < limit) found.push(e as never);
          else more = true;
        },
        { correlation, after, limit: keep ? this.window : limit + 1 }
      );
      const next = more ? found[found.length - 1].id : keep && read >= this.window ? seen : undefined;
      return { events: found, ...(next !== undefined && { next }), indexed: true };
    }
    const last = await this.edgeId(true);
    const started = Date.now();
    // From the oldest event, not from id 0: a store's ids may start anywhere
    // (PostgreSQL's are transaction ids shifted left), and reading the empty
    // ranges below the first would spend the budget on nothing.
    let cursor = Math.max(after, (await this.edgeId(false)) - 1);
    // Ids can be sparse (PostgreSQL's sequence leaves gaps): the range grows
    // or shrinks so that each query takes about STEP_MILLIS.
    let span = this.window;
    while (cursor < last) {
      const upto = Math.min(last, cursor + span);
      const began = performance.now();
      let stop: number | undefined;
      await this.store.query(
        (e) => {
          if (stop !== undefined || (keep && !keep(e as never))) return;
          if (found.length < limit) found.push(e as never);
          else stop = found[found.length - 1].id;
        },
        { correlation, after: cursor, before: upto + 1 }
      );
      if (stop !== undefined) return { events: found, next: stop, searched: stop, last, indexed: false };
      const took = performance.now() - began;
      span = Math.max(1, Math.round(span * Math.min(4, Math.max(0.5, STEP_MILLIS / Math.max(took, 1)))));
      cursor = upto;
      if (cursor < last && Date.now() - started >= this.budget)
        return { events: found, next: cursor, searched: cursor, last, indexed: false };
      // Let the other requests in before the next range.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return { events: found, searched: last, last, indexed: false };
  }

  /** Events that a reaction to `event` committed: same correlation, later, caused by it. */
  causedBy(event: Committed<Schemas, string>, after: number, limit: number): Promise<SearchPage> {
    return this.search(event.meta.correlation, after, limit, (e) => e.meta.causation.event?.id === event.id);
  }
}
