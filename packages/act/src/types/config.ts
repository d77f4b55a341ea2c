import type { Environment, LogLevel } from "../core/environment.js";

/**
 * The facts read from the app's `package.json`.
 *
 * @stable
 * @example
 * ```ts
 * const { name, version }: Package = config();
 * ```
 */
export type Package = {
  /** Package name (empty when there is no package.json). */
  name: string;
  /** Package version. */
  version: string;
  /** Package description. */
  description?: string;
  /** Author, as a string or `{ name, email }`. */
  author?:
    | string
    | {
        /** Author's name. */
        name: string;
        /** Author's e-mail address. */
        email?: string;
      };
  /** License identifier. */
  license?: string;
  /** Runtime dependencies by name. */
  dependencies?: Record<string, string>;
};

/**
 * The app's configuration: {@link Package} facts plus settings from the environment.
 *
 * @stable
 * @example
 * ```ts
 * const { env, logLevel, sleepMs }: Config = config();
 * ```
 */
export type Config = Package & {
  /** `NODE_ENV` (default `development`). */
  env: Environment;
  /** `LOG_LEVEL` (default `fatal` in test, `info` in production, `debug` otherwise). */
  logLevel: LogLevel;
  /** `LOG_SINGLE_LINE`: pretty logs on one line (default true). */
  logSingleLine: boolean;
  /** `SLEEP_MS`: default delay of {@link sleep}, in ms (default 0 under `NODE_ENV=test`, else 100). */
  sleepMs: number;
};
