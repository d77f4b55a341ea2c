/**
 * The options of a {@link SqliteStore}, and their check.
 */
import { ValidationError } from "@act-root/act";
import { checkOptions, OptionSchemas } from "@act-root/act/internal";
import type { FileSettings } from "./file.js";

/**
 * Settings of a {@link SqliteStore}. Only `filename` is required.
 *
 * @stable
 * @example
 * ```ts
 * const options: SqliteStoreOptions = { filename: "./data/app.db", synchronous: "NORMAL" };
 * ```
 */
export type SqliteStoreOptions = {
  /** The database file (created if missing; its directory must exist), or `":memory:"` for a private in-memory database. */
  readonly filename: string;
  /**
   * How hard a commit waits for the disk. `"FULL"` (default): a commit that
   * returned survives a power loss. `"NORMAL"`: several times faster; a
   * process crash still loses nothing, but a power loss or OS crash can lose
   * the last commits (never half of one).
   */
  readonly synchronous?: "FULL" | "NORMAL";
  /** How long a call waits for another process's write lock before failing with a retryable `StoreError`, in ms (default 5,000). */
  readonly busyTimeoutMillis?: number;
  /** How long an idempotency key is remembered, in ms (default 24 hours). */
  readonly idempotencyMillis?: number;
  /** How often `subscribe` looks for commits made by other processes, in ms (default 100). */
  readonly changeCheckMillis?: number;
};

/** The numeric options, checked by the validator every store shares (its own beside the common ones). */
const SQLITE_OPTIONS = OptionSchemas.store.extend({
  busyTimeoutMillis: OptionSchemas.whole(0).optional(),
  changeCheckMillis: OptionSchemas.whole(1).optional(),
});

/** The store's settings, defaults applied. */
export type Settings = FileSettings & { idempotencyMillis: number; changeCheckMillis: number };

/**
 * Checks the options and returns the settings, defaults applied.
 *
 * @throws ValidationError naming an option that is missing or out of range
 */
export function checkConfig(options: SqliteStoreOptions): Settings {
  if (typeof options?.filename !== "string")
    throw new ValidationError("filename", options?.filename, [
      { path: "", message: 'must be a file path or ":memory:"' },
    ]);
  const synchronous = options.synchronous ?? "FULL";
  if (synchronous !== "FULL" && synchronous !== "NORMAL")
    throw new ValidationError("synchronous", synchronous, [{ path: "", message: 'must be "FULL" or "NORMAL"' }]);
  const { filename: _, synchronous: __, ...numbers } = options;
  checkOptions("store", numbers, SQLITE_OPTIONS);
  return {
    filename: options.filename,
    synchronous,
    busyTimeoutMillis: options.busyTimeoutMillis ?? 5_000,
    idempotencyMillis: options.idempotencyMillis ?? 24 * 3600 * 1000,
    changeCheckMillis: options.changeCheckMillis ?? 100,
  };
}
