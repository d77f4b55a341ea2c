/**
 * Why {@link settle} gave up:
 *
 * - `"blocked"` — reaction streams are blocked: a reaction kept failing and
 *   will not run again until the stream is unblocked;
 * - `"pending"` — reaction streams still had work when the time ran out:
 *   waiting out a retry's backoff, or leased by a drainer that did not finish;
 * - `"moving"` — drains kept handling events until the bound on drains or on
 *   time: usually reactions that trigger each other without end.
 *
 * @stable
 * @example
 * ```ts
 * const reason: SettleReason = "blocked";
 * ```
 */
export type SettleReason = "blocked" | "pending" | "moving";

/**
 * Thrown by {@link settle} when the app's reactions did not settle. The
 * message names the reaction streams concerned and what each was doing (the
 * error that blocked it, the retry it waits for, or the events the last
 * drain handled on it); `streams` lists their names.
 *
 * @stable
 * @example
 * ```ts
 * const error = await settle(app).catch((e: unknown) => e);
 * if (error instanceof SettleError && error.reason === "blocked") console.error(error.streams);
 * ```
 */
export class SettleError extends Error {
  /**
   * @param reason - why settling stopped
   * @param streams - the reaction streams concerned
   * @param message - what happened, naming each stream
   */
  constructor(
    public readonly reason: SettleReason,
    public readonly streams: readonly string[],
    message: string
  ) {
    super(message);
    this.name = "SettleError";
  }
}
