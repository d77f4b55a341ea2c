/**
 * What a store says of its reaction streams: the filter of `Store.reactions`,
 * each stream as it lists them, and the figures `app.stats()` reports.
 */
import type { TimerStats } from "./timers.js";

/**
 * Which reaction streams `Store.reactions` lists. Every field is optional.
 *
 * @experimental
 * @example
 * ```ts
 * const firstTenBlocked: ReactionFilter = { blocked: true, limit: 10 };
 * const blocked = await store().reactions(firstTenBlocked);
 * const [audit] = await store().reactions({ streams: ["audit"] });
 * ```
 */
export type ReactionFilter = {
  /** `true` for blocked streams only, `false` for the others; omitted, both. */
  blocked?: boolean;
  /**
   * Only these reaction streams (exact names; names the store does not know
   * are left out, each stream is listed once). A waiter that needs a few
   * watermarks reads just those rows, however many streams the store keeps.
   */
  streams?: readonly string[];
  /** At most this many streams (the first by name). */
  limit?: number;
};

/**
 * A reaction stream as the store keeps it: what `Store.reactions` and
 * `Act.stats` report.
 *
 * @stable
 * @see [Reactions in production](/docs/concepts/reactions-in-production#retries-and-blocked-streams) — explains retries and blocked streams.
 * @example
 * ```ts
 * const blocked: ReactionStream[] = await store().reactions({ blocked: true });
 * blocked.forEach((r) => console.error(r.stream, r.at, r.error));
 * ```
 */
export type ReactionStream = {
  /** The reaction stream. */
  readonly stream: string;
  /** The only stream whose events it reads (every stream when absent). */
  readonly source?: string;
  /** Id of the last event handled (-1 when none). */
  readonly at: number;
  /** Id of the last event found reacting into it: there is work while it is past `at`. */
  readonly head: number;
  /** The reactions registered on it (`"<event>/<reaction key>"`); only apps that have them all lease it. */
  readonly reactions: readonly string[];
  /** The generation of its lease (see `Lease.token`). */
  readonly token: number;
  /** Failed attempts at the next event. */
  readonly retry: number;
  /** Whether it is blocked. */
  readonly blocked: boolean;
  /** Why it was blocked. */
  readonly error?: string;
  /** The drainer holding its lease, if any. */
  readonly leasedBy?: string;
  /** When that lease (or the backoff before the next retry) ends. */
  readonly leasedUntil?: Date;
};

/**
 * What {@link Act.stats} reports: each reaction stream with its lag, and the
 * commit-to-handled latency of the latest reactions the app ran.
 *
 * @stable
 * @see [Reactions in production](/docs/concepts/reactions-in-production#monitoring) — shows what to watch in production.
 * @example
 * ```ts
 * const { streams, latency }: ReactionStats = await app.stats();
 * ```
 */
export type ReactionStats = {
  /** Every reaction stream, with its lag. */
  readonly streams: Array<
    ReactionStream & {
      /**
       * Events it still has to handle: events after its watermark that one of
       * the app's reactions routes to it, counted up to the limit asked. A
       * caught-up stream reads 0 however many unrelated events follow.
       */
      readonly lag: number;
      /**
       * Reactions the stream carries that this app lacks: it leaves the
       * stream to an app that has them. After a reaction was renamed or
       * removed and no worker has it any more, `Store.retire` forgets it.
       */
      readonly missing: readonly string[];
    }
  >;
  /**
   * How far discovery has gone for each of the app's reactions, as the store
   * records it: `at`, the id of the last event whose reaction streams were
   * registered for it (-1: none yet), and `behind`, whether the log has
   * events past it. A reaction added in a new release is behind until its
   * discovery reaches the end of the log; until then the streams it will
   * join do not count its events in their `lag`.
   */
  readonly discovery: ReadonlyArray<{
    /** The reaction, as `"<event>/<reaction key>"`. */
    readonly reaction: string;
    /** The id of the last event whose reaction streams were registered for it (-1: none yet). */
    readonly at: number;
    /** Whether the log has events past `at`. */
    readonly behind: boolean;
  }>;
  /** Pending and overdue timers in the store, and how late the latest timers this app fired were. */
  readonly timers: TimerStats;
  /** Commit-to-handled time of the latest reactions this app ran, in ms. */
  readonly latency: {
    /** How many reactions the figures cover (the latest 1,024 at most). */
    readonly count: number;
    /** Median. */
    readonly p50: number;
    /** 99th percentile. */
    readonly p99: number;
    /** Slowest. */
    readonly max: number;
  };
};

/**
 * What `Store.poll` is asked for: how many reaction streams with work to
 * list from each end of the watermarks, and which reactions the caller can
 * run.
 *
 * @experimental
 * @example
 * ```ts
 * const request: PollRequest = { lagging: 5, leading: 5, reactions: ["Opened/notify"] };
 * const streams = await store().poll(request);
 * ```
 */
export type PollRequest = {
  /** How many of the furthest-behind streams to list (the lowest watermarks). */
  readonly lagging: number;
  /** How many of the others to list, highest watermarks first, so streams close to the head are not starved. */
  readonly leading: number;
  /**
   * The reactions the caller can run (`"<event>/<reaction key>"`): when given, only streams whose registered
   * reactions are all among them are listed, so an app never takes a stream for a reaction it lacks.
   */
  readonly reactions?: readonly string[];
};
