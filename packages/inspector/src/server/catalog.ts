/**
 * What the inspector reads beyond the `Store` port: the list of streams and a
 * stream's summary. The port has no way to list streams, and how to do it
 * cheaply depends on the store, so each backend brings its own catalog
 * (PostgreSQL reads the events table's indexes; any other store falls back to
 * reading the log).
 */
import type { Committed, Schemas, Store } from "@act-root/act";

/**
 * One row of the streams view.
 *
 * @experimental
 * @example
 * ```ts
 * const row: StreamSummary = { stream: "order-1", events: 5, last: new Date() };
 * ```
 */
export type StreamSummary = {
  /** The stream's name. */
  readonly stream: string;
  /** Events in the stream, snapshots included (versions start at 0 and have no gaps). */
  readonly events: number;
  /** When its last event was committed. */
  readonly last: Date;
};

/**
 * A page of streams, and the cursor of the next one when there is more.
 *
 * @experimental
 * @example
 * ```ts
 * const page: StreamPage = await new StoreCatalog(store()).streams("order-", undefined, 50);
 * if (page.next) console.log("more after", page.next);
 * ```
 */
export type StreamPage = {
  /** The streams of this page, by name. */
  readonly streams: StreamSummary[];
  /** The cursor of the next page (its `after`), when there is one. */
  readonly next?: string;
};

/**
 * Lists streams; implemented per store, because the `Store` port has no way
 * to list them and how to do it cheaply depends on the store. A new store
 * gets a catalog of its own; until then {@link StoreCatalog} works for any.
 *
 * @experimental
 * @example
 * ```ts
 * const catalog: Catalog = new StoreCatalog(store());
 * const { streams } = await catalog.streams("", undefined, 10);
 * ```
 */
export interface Catalog {
  /** A short description for the page header, never a connection string. */
  readonly label: string;
  /**
   * Streams whose name starts with `prefix`, in name order.
   *
   * @param prefix - the start of the names ("" for every stream)
   * @param after - the cursor: the last name of the previous page, or undefined for the first page
   * @param limit - the most streams to return
   * @returns the page, with `next` when there are more
   */
  streams(prefix: string, after: string | undefined, limit: number): Promise<StreamPage>;
  /**
   * One stream's summary.
   *
   * @param name - the stream
   * @returns its summary, or undefined when it has no events
   */
  stream(name: string): Promise<StreamSummary | undefined>;
  /** Whether searching by correlation id is indexed (shown to the user, so the cost is no surprise). */
  correlationIndexed(): Promise<boolean>;
  /** Releases what the catalog opened. */
  close(): Promise<void>;
}

/**
 * A catalog for any store: it reads the whole log through `Store.query` on
 * every call, so it is only fit for small stores — the in-memory one, tests,
 * a store without a catalog of its own.
 *
 * @experimental
 * @example
 * ```ts
 * const inspector = await inspect(app, { catalog: new StoreCatalog(store(), "in memory") });
 * ```
 */
export class StoreCatalog implements Catalog {
  readonly label: string;
  /**
   * @param store - the store to read
   * @param label - what the page header shows
   */
  constructor(
    private readonly store: Store,
    label = "store"
  ) {
    this.label = label;
  }

  /** Every stream, read from the whole log. */
  async #all(): Promise<Map<string, StreamSummary>> {
    const streams = new Map<string, StreamSummary>();
    await this.store.query(
      (e: Committed<Schemas, string>) => {
        streams.set(e.stream, { stream: e.stream, events: e.version + 1, last: e.created });
      },
      { with_snaps: true }
    );
    return streams;
  }

  /**
   * Streams whose name starts with `prefix`, found by reading the whole log.
   *
   * @param prefix - the start of the names ("" for every stream)
   * @param after - the last name of the previous page, or undefined for the first page
   * @param limit - the most streams to return
   */
  async streams(prefix: string, after: string | undefined, limit: number): Promise<StreamPage> {
    const names = [...(await this.#all()).values()]
      .filter((s) => s.stream.startsWith(prefix) && (after === undefined || s.stream > after))
      .sort((a, b) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0));
    const page = names.slice(0, limit);
    return { streams: page, ...(names.length > limit && { next: page[page.length - 1].stream }) };
  }

  /**
   * One stream's summary, from its last event.
   *
   * @param name - the stream
   */
  async stream(name: string): Promise<StreamSummary | undefined> {
    let last: Committed<Schemas, string> | undefined;
    await this.store.query(
      (e) => {
        last = e as Committed<Schemas, string>;
      },
      { stream: name, with_snaps: true, backward: true, limit: 1 }
    );
    return last && { stream: name, events: last.version + 1, last: last.created };
  }

  /** Always false: a generic store has no index to ask about. */
  async correlationIndexed(): Promise<boolean> {
    return false;
  }

  /** Nothing to release: the store belongs to the caller. */
  async close(): Promise<void> {}
}
