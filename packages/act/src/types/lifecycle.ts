import type { Schemas, Snapshot } from "./action.js";
import type { BlockedLease, Lease } from "./lease.js";

/**
 * The lifecycle events an {@link Act} app emits, each with the payload its
 * listeners receive: subscribe with {@link Act.on}, unsubscribe with
 * {@link Act.off}. Listeners run synchronously, in the order they were added;
 * one that throws is logged and the others still run.
 *
 * @stable
 * @typeParam S - the state type of each action, by action name
 * @typeParam E - the event schemas
 * @see [Reactions in production](/docs/concepts/reactions-in-production#monitoring) — shows what to watch in production.
 * @example
 * ```ts
 * const onBlocked = (leases: Lifecycle<{}, {}>["blocked"]) =>
 *   leases.forEach(({ stream, error }) => console.error(stream, error));
 * app.on("blocked", onBlocked);
 * ```
 */
export type Lifecycle<S extends Schemas, E extends Schemas> = {
  /**
   * After `do` committed events: one snapshot per committed event (plus one
   * for a snapshot written). Not emitted when the action emitted nothing or
   * an idempotency key made it commit nothing.
   */
  committed: Snapshot<S[keyof S], E>[];
  /** After a drain moved reaction watermarks: the leases it acknowledged. */
  acked: Lease[];
  /** After a drain blocked reaction streams: the leases, each with its error. */
  blocked: BlockedLease[];
};
