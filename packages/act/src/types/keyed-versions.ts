/**
 * The stream versions an idempotent action committed under its key (see
 * `Store.recall`).
 *
 * @experimental
 * @see [Changing your model](/docs/concepts/changing-your-model#idempotent-actions) — explains idempotent actions.
 * @example
 * ```ts
 * const range: KeyedVersions | undefined = await store().recall("order-1", "request-42");
 * ```
 */
export type KeyedVersions = {
  /** Version of the first event committed under the key. */
  readonly from: number;
  /** Version of the last one. */
  readonly to: number;
  /**
   * What the request that used the key asked for (a digest of its action,
   * actor and payload); absent for keys stored without one, which match any
   * request.
   */
  readonly request?: string;
};
