/**
 * Leases: a drainer's claim on a reaction stream, the streams `poll` offers
 * for one, and a lease whose stream was blocked.
 */

/**
 * A stream with reactions pending, as `poll` returns it: its watermark `at`
 * (last acknowledged event id), its optional `source`, and whether it was
 * picked as one of the most lagging streams.
 *
 * @experimental
 * @example
 * ```ts
 * const polled: Poll[] = await store().poll({ lagging: 5, leading: 5 });
 * ```
 */
export type Poll = {
  /** The reaction stream. */
  readonly stream: string;
  /** The only stream whose events it reads (all streams when absent). */
  readonly source?: string;
  /** Id of the last event acknowledged (-1 when none). */
  readonly at: number;
  /** Picked among the most lagging (true) or the most leading (false). */
  readonly lagging: boolean;
};

/**
 * A drainer's claim on a reaction stream: who holds it (`by`), the watermark
 * (`at`: when leasing, the one the drainer polled; when acknowledging, the
 * last event handled), and the failures so far (`retry`).
 *
 * @stable
 * @see [Event sourcing](/docs/concepts/event-sourcing#leases) — explains leases.
 * @example
 * ```ts
 * const lease: Lease = { stream: "ticket-1", by: "drainer-1", at: 42, retry: 0, lagging: true };
 * ```
 */
export type Lease = {
  /** The reaction stream. */
  readonly stream: string;
  /** The only stream whose events it reads (all streams when absent). */
  readonly source?: string;
  /** Identifies the drainer holding the lease. */
  readonly by: string;
  /**
   * Watermark: the one polled (lease: the store refuses a stream whose watermark
   * moved past it, and returns the stored one), or the last event handled (ack).
   */
  readonly at: number;
  /** Failed attempts at the first event after the watermark. */
  readonly retry: number;
  /** Whether the stream was polled as lagging. */
  readonly lagging?: boolean;
  /**
   * Reactions already run on a partly handled event after the watermark, as `"<event id>:<reaction key>"`
   * (set by `ack` and `block`, returned by `lease`), so a retry runs only the reactions that have not succeeded.
   */
  readonly done?: string[];
  /** With `ack`: keep the stream out of `poll` for this many ms (the backoff before a retry). */
  readonly delay?: number;
  /**
   * The last event found to react into the stream. When registering (`lease`
   * with 0 ms): what correlation found, which the store keeps if it is higher.
   * Returned by `lease` with a duration: the stored one, so a drain reads no
   * further than the stream's work.
   */
  readonly head?: number;
  /** Why the stream was blocked (set by `block`). */
  readonly error?: string;
  /**
   * The lease's generation, returned by `lease`: a new lease, `reset` and `unblock` each move it on,
   * so a renewal, `ack` or `block` carrying an older one is refused — an operator command or another
   * drainer has taken over the stream since this lease was granted.
   */
  readonly token?: number;
  /**
   * The reactions, as `"<event>/<reaction key>"`. When registering (`lease`
   * with 0 ms): the ones that target the stream; the store keeps every name
   * it was given, and `poll` offers the stream only to apps that have them
   * all. With `ack` and `block`: the ones the drainer has; the store refuses
   * the call when the stream gained a reaction outside them since the lease
   * (a newer release registered it meanwhile), so the stream's events are
   * handled again by an app that has it. Returned by `lease` with a
   * duration: every reaction the stream carries.
   */
  readonly reactions?: readonly string[];
  /**
   * When registering (`lease` with 0 ms): each reaction registered, with
   * every name it answers to (its own first, then the names it had before)
   * and the id just before its first event that reacts into the stream. A
   * reaction none of whose names the stream carries yet joins it there: when
   * the stream's watermark is already past that point (another release, or
   * another reaction, moved it on first), the store moves the watermark back
   * to it, under a new `token`, and records in `ahead` how far the
   * reactions already on the stream had handled it — so the joining
   * reaction runs for those events and the others do not run twice. A
   * stream that carries no reaction names yet (registered before stores
   * recorded them) is left as it is.
   */
  readonly joining?: ReadonlyArray<{
    /** Every name the reaction answers to: its own first, then the names it had before. */
    readonly names: readonly string[];
    /** The id just before its first event that reacts into the stream in this registration. */
    readonly at: number;
  }>;
  /**
   * Returned by `lease` with a duration: for reactions that handled the
   * stream's events further than its watermark — the stream was moved back
   * for a reaction that joined it later (see `joining`) — the id of the last
   * event each has handled, by reaction name. The drain skips those
   * reactions up to there; `ack` forgets the entries the watermark passed.
   */
  readonly ahead?: Readonly<Record<string, number>>;
};

/**
 * A lease whose stream was blocked, with the error that blocked it.
 *
 * @stable
 * @example
 * ```ts
 * app.on("blocked", (blocked: BlockedLease[]) => blocked.forEach((b) => console.error(b.stream, b.error)));
 * ```
 */
export type BlockedLease = Lease & {
  /** The last failure's message: which reaction, which event, what went wrong. */
  readonly error: string;
};
