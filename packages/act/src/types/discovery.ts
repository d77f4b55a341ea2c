import type { Lease } from "./lease.js";

/**
 * What one pass of discovery (`app.correlate`) did: the reaction streams it
 * registered, how far it read, and whether there is more to read.
 *
 * @stable
 * @example
 * ```ts
 * const { leased, behind }: Correlated = await app.correlate();
 * if (behind) await app.correlate();
 * ```
 */
export type Correlated = {
  /** The reaction streams registered (new or already known). */
  leased: Lease[];
  /** Id of the last event scanned. */
  lastId: number;
  /** @deprecated Use `lastId`, of which this is the name in earlier releases; reading it warns once per process. */
  readonly last_id: number;
  /**
   * Whether there may be more to read: without a query, some reaction's discovery has not reached the end of
   * the log yet (call again, or drain); with a query, the pass read as many events as its `limit`.
   */
  behind: boolean;
};
