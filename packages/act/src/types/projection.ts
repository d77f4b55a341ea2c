import type { Committed, CommittedOf, Schemas } from "./action.js";

/**
 * Applies one event to a read model. `tx` is what the store hands projections:
 * with `PostgresStore` the transaction's `pg.PoolClient`, with `SqliteStore`
 * its connection (the handler then runs synchronously), elsewhere `undefined`.
 * On the first two the writes made through `tx` commit together with the
 * projection's position, so each event is applied exactly once; elsewhere an
 * event may be applied again after a crash, so write idempotently (upsert by
 * `event.id`).
 *
 * @stable
 * @param event - the committed event, with its data, stream, version and id
 * @param tx - the store's transaction handle (see above)
 * @typeParam E - the event schemas
 * @typeParam K - the event handled
 * @typeParam Tx - the transaction handle the store passes
 * @example
 * ```ts
 * const onOpened: ProjectionHandler<{ Opened: { title: string } }, "Opened", Map<string, string>> =
 *   (event, rows) => void rows.set(event.stream, event.data.title);
 * ```
 */
export type ProjectionHandler<E extends Schemas, K extends keyof E, Tx> = (
  event: Committed<E, K>,
  tx: Tx
) => void | Promise<void>;

/**
 * Applies the events of one drain to a read model at once, in log order —
 * for bulk upserts. Same `tx` rules as {@link ProjectionHandler}.
 *
 * @stable
 * @param events - the drain's events the projection handles, in log order
 * @param tx - the store's transaction handle
 * @typeParam E - the event schemas
 * @typeParam Tx - the transaction handle the store passes
 * @example
 * ```ts
 * const count: ProjectionBatchHandler<{ Opened: { title: string } }, Map<string, number>> =
 *   (events, totals) => void totals.set("opened", (totals.get("opened") ?? 0) + events.length);
 * ```
 */
export type ProjectionBatchHandler<E extends Schemas, Tx> = (events: CommittedOf<E>[], tx: Tx) => void | Promise<void>;

/**
 * How a projection treats failures and where it starts.
 *
 * @stable
 * @example
 * ```ts
 * const options: ProjectionOptions = { maxRetries: 5, version: 2 };
 * // A read model in this process's memory, beside a durable store:
 * const local: ProjectionOptions = { maxRetries: 3, version: 1, local: true };
 * ```
 */
export type ProjectionOptions = {
  /** Retries of a failing batch before its projection is blocked (default 3). */
  readonly maxRetries: number;
  /** Delay before the first retry, in ms (default 1,000); it doubles with each retry, with jitter. */
  readonly retryBaseMillis?: number;
  /** Longest delay between retries, in ms (default 60,000). */
  readonly retryMaxMillis?: number;
  /**
   * The read model's version (default 1). A new version is a new projection
   * stream that starts from the beginning of the log (or from `since`): give
   * it a new table, let it catch up while the old version keeps serving, then
   * switch readers over.
   */
  readonly version: number;
  /** Project only events committed at or after this time. */
  readonly since?: Date;
  /**
   * Runs the handlers inside the transaction that commits an action's events
   * (default `false`): the events and the read model's writes commit together
   * or not at all, so a read right after `app.do` sees them, and a throwing
   * handler fails the action and commits nothing. An inline projection has no
   * position: it is not drained, `maxRetries`, the retry delays and `since` do
   * not apply, and `app.rebuild` refuses it — rebuild its read model with the
   * same handlers as an asynchronous projection under a new version. Needs a
   * store with `commitInline` (the in-memory store, `PostgresStore`, `SqliteStore`).
   */
  readonly inline?: boolean;
  /**
   * Keeps the position in this process, beside a read model in its memory
   * (default `false`). A position in the store is shared by every process on
   * it and outlives a restart, while rows in a process's memory are neither:
   * a second process, or the same one restarted, would keep an empty model
   * that the shared position says is up to date. A local projection's
   * position is never stored: each process, at each start, projects every
   * event it handles from the beginning of the log (or `since`) into its own
   * copy at its first drain (`app.start()` or `app.drain()`), and every drain
   * then brings it up to the log's head. Its handlers get no handle; a
   * failing event is run again by later drains after the retry delays, and
   * blocks the projection in this process after `maxRetries` + 1 failed runs.
   * `app.projected` waits for this process's copy; `app.rebuild` refuses it
   * (it is rebuilt at every start), and it has no reaction stream in the
   * store, so `app.stats()` does not list it. Not with `inline`.
   */
  readonly local?: boolean;
};

/**
 * A read model fed by events: what `projection(name)...build()` returns and
 * `act().with(projection)` registers. Its position is a reaction stream named
 * {@link Projection.stream}, so it runs with the app's drains — the same
 * leases, retries, blocking, `reset` and `stats` as reactions.
 *
 * @stable
 * @typeParam E - the events it handles
 * @typeParam Tx - the transaction handle its handlers get
 * @example
 * ```ts
 * const open = new Map<string, string>();
 * const OpenTickets: Projection<{ TicketOpened: { title: string } }, undefined> = projection("OpenTickets")
 *   .with(Ticket)
 *   .on("TicketOpened", (event) => void open.set(event.stream, event.data.title))
 *   .build();
 * ```
 */
export type Projection<E extends Schemas, Tx> = {
  /** The projection's name, unique in an app. */
  readonly name: string;
  /** The reaction stream holding its position: `"projection:<name>"`, with `":v<version>"` past version 1 (unused when the projection is inline). */
  readonly stream: string;
  /** The events it handles, in registration order. */
  readonly events: readonly (keyof E & string)[];
  /** One handler per event (absent when the projection is batched). */
  readonly handlers: { readonly [K in keyof E]?: ProjectionHandler<E, K, Tx> };
  /** The batch handler, when the projection is batched. */
  readonly batch?: ProjectionBatchHandler<E, Tx>;
  /** Failure handling, version and start. */
  readonly options: ProjectionOptions;
};
