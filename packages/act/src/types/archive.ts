import type { Actor } from "../core/schemas.js";
import type { Committed, Schema, Schemas, Snapshot } from "./action.js";
import type { Query } from "../core/schemas.js";

/**
 * What the close event of a stream holds (see `CLOSE_EVENT`): who closed it,
 * why, and the stream its state was carried into, if any.
 *
 * @experimental
 * @see [Archiving and retention](/docs/guides/archiving) — closing, archiving and retention.
 * @example
 * ```ts
 * const closed: ClosedData = { by: { id: "u-1", name: "Ada" }, reason: "delivered" };
 * ```
 */
export type ClosedData = {
  /** Who closed the stream. */
  readonly by: Actor;
  /** Why, in the caller's words. */
  readonly reason?: string;
  /** The stream the state was carried into (`continueAs`). */
  readonly continuedAs?: string;
};

/**
 * The events of the `Closing` state: only the close event.
 *
 * @experimental
 * @example
 * ```ts
 * const data: ClosingEvents["__closed__"] = { by: { id: "u-1", name: "Ada" } };
 * ```
 */
export type ClosingEvents = {
  /** The close event (`CLOSE_EVENT`) and what it holds. */
  readonly __closed__: ClosedData;
};

/**
 * What `app.close` takes besides the state and the stream.
 *
 * @experimental
 * @see [Archiving and retention](/docs/guides/archiving#closing-the-books) — closing a stream.
 * @example
 * ```ts
 * const options: CloseOptions = { by: { id: "u-1", name: "Ada" }, reason: "fiscal year 2025 closed", continueAs: "ledger-2026" };
 * ```
 */
export type CloseOptions = {
  /** Who closes the stream (stored in the close event, named by the error later actions get). */
  readonly by: Actor;
  /** Why; stored in the close event. */
  readonly reason?: string;
  /** The version the stream must be at; omitted, the version the close read (a concurrent action still makes it fail). */
  readonly expectedVersion?: number;
  /**
   * A new, empty stream that starts from the closed stream's state: its first
   * event (version 0) is a snapshot of that state, so its loads never read the
   * closed stream. The close event names it.
   */
  readonly continueAs?: string;
};

/**
 * What `app.close` returns: the state the stream was closed with, and the
 * new stream's first snapshot when the state was carried on (`continueAs`).
 *
 * @experimental
 * @typeParam S - the state's data
 * @typeParam E - the state's events
 * @example
 * ```ts
 * const { closed, continued } = await app.close(Counter, "c-2025", { by: actor, continueAs: "c-2026" });
 * ```
 */
export type ClosedStream<S extends Schema, E extends Schemas> = {
  /** The state as closed; its `event` is the close event. */
  readonly closed: Snapshot<S, E>;
  /** The new stream's state at version 0 (its summary), with `continueAs`. */
  readonly continued?: Snapshot<S, E>;
};

/**
 * When closed streams move to the archive (`app.archive`): the events of a
 * stream closed at least `afterMillis` ago, by the app's clock, except the
 * summary snapshot and the close event, which stay so the stream still loads
 * and still refuses actions.
 *
 * @experimental
 * @see [Archiving and retention](/docs/guides/archiving#archiving) — what moves and what stays.
 * @example
 * ```ts
 * const policy: ArchivePolicy = { afterMillis: 90 * 24 * 3600_000 }; // closed 90 days ago
 * ```
 */
export type ArchivePolicy = {
  /** How long a stream stays whole after its close, in ms (0: archive at once). */
  readonly afterMillis: number;
};

/**
 * When archived events are deleted for good (`app.purge`): those archived at
 * least `afterMillis` ago, by the app's clock.
 *
 * @experimental
 * @see [Archiving and retention](/docs/guides/archiving#retention) — deleting archived events.
 * @example
 * ```ts
 * const retention: RetentionPolicy = { afterMillis: 7 * 365 * 24 * 3600_000 }; // kept seven years
 * ```
 */
export type RetentionPolicy = {
  /** How long an event stays in the archive, in ms (0: delete at once). */
  readonly afterMillis: number;
};

/**
 * What `ArchiveStore.move` is asked to move.
 *
 * @experimental
 * @example
 * ```ts
 * const request: ArchiveMove = { closedBefore: new Date("2026-01-01"), at: new Date(), reactions: ["Placed/notify"] };
 * ```
 */
export type ArchiveMove = {
  /** Only streams whose close event was committed before this time. */
  readonly closedBefore: Date;
  /** The time recorded as the archiving time of the events moved (what retention measures from). */
  readonly at: Date;
  /**
   * The reactions of the caller's app (`"<event>/<reaction key>"`): a
   * reaction the store has no discovery position for holds every event back,
   * as if it had seen none.
   */
  readonly reactions: readonly string[];
};

/**
 * What `ArchiveStore.move` (and `app.archive`) did.
 *
 * @experimental
 * @example
 * ```ts
 * const { events, streams, held }: ArchiveMoved = await app.archive({ afterMillis: 0 });
 * ```
 */
export type ArchiveMoved = {
  /** How many events moved to the archive. */
  readonly events: number;
  /** The streams they belonged to, by name. */
  readonly streams: readonly string[];
  /** Events the policy selected that stayed because a reaction has not passed them yet. */
  readonly held: number;
};

/**
 * What `ArchiveStore.purge` (and `app.purge`) deleted.
 *
 * @experimental
 * @example
 * ```ts
 * const { events, streams }: ArchivePurged = await app.purge({ afterMillis: 0 });
 * ```
 */
export type ArchivePurged = {
  /** How many archived events were deleted for good. */
  readonly events: number;
  /** The streams they belonged to, by name. */
  readonly streams: readonly string[];
};

/**
 * The store's archive: where the events of closed streams move (`move`),
 * how they are read (`query`) and deleted for good (`purge`). A store keeps
 * it beside its log — PostgreSQL the table `<table>_archive`, SQLite the
 * table `act_archive` of the same file, the in-memory store a second log —
 * and moves events in one transaction, so an event is always in exactly one
 * of them. Optional: an app refuses to archive on a store without it.
 *
 * @experimental
 * @see [Archiving and retention](/docs/guides/archiving) — the policies and what each read does.
 * @example
 * ```ts
 * const archived: number = await store().archive!.query((e) => console.log(e.stream, e.version), { stream: "order-1" });
 * ```
 */
export interface ArchiveStore {
  /**
   * Moves the events of closed streams to the archive: for each stream whose
   * close event (`CLOSE_EVENT`, right after the summary snapshot) was
   * committed before `closedBefore`, every event before the summary — but
   * none past the position of any reaction: no event after the watermark of
   * a reaction stream with work left (its `head` past its `at`), nor after
   * the discovery position of any reaction the store knows or the request
   * names. Open streams, summaries and close events never move.
   *
   * @param request - the cut-off time, the archiving time and the caller's reactions
   * @returns how many events moved, of which streams, and how many stayed for a reaction
   */
  move(request: ArchiveMove): Promise<ArchiveMoved>;
  /**
   * Deletes archived events whose archiving time is before `before`. Final:
   * they are in neither the log nor the archive afterwards.
   *
   * @param before - the cut-off archiving time
   * @returns how many events were deleted, of which streams
   */
  purge(before: Date): Promise<ArchivePurged>;
  /**
   * Calls `callback` with each archived event matching `query`, as
   * `Store.query` does for the log (same filters, same order).
   *
   * @param callback - called once per matching event, in order
   * @param query - the filters; omitted, every archived event except snapshots
   * @returns how many events were passed to the callback
   */
  query<E extends Schemas>(callback: (event: Committed<E, keyof E>) => void, query?: Query): Promise<number>;
}
