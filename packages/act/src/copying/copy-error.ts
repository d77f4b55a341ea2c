/**
 * The error `copyStore` throws when it cannot copy, or when the copy it
 * made does not match its source.
 */

/**
 * Thrown by `copyStore` when the target cannot take the copy (it holds
 * another log, or records already), or when the check at the end finds the
 * two stores different. `position` and `id` say where the logs first differ
 * (when they do); the message says how and what to do.
 *
 * @experimental
 * @see [Moving and backing up a store](/docs/guides/moving-a-store) — what to do when a copy is refused.
 * @example
 * ```ts
 * try {
 *   await copyStore(store(), new InMemoryStore());
 * } catch (error) {
 *   if (error instanceof CopyError) console.error(error.message, error.position);
 * }
 * ```
 */
export class CopyError extends Error {
  /**
   * @param message - what was wrong, and what to do
   * @param position - where the logs first differ: the index of the event in id order (0 is the first), when they do
   * @param id - the id of the source's event at `position` (or the target's, when the source has none there)
   */
  constructor(
    message: string,
    public readonly position?: number,
    public readonly id?: number
  ) {
    super(message);
    this.name = "ERR_COPY";
  }
}
