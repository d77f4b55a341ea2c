// The values the environment settings and the exit of a process may take:
// runtime lists (settings are validated against them) and the types derived from them.

/**
 * The environments `NODE_ENV` may name.
 *
 * @stable
 * @example
 * ```ts
 * const production = config().env === Environments[3]; // "production"
 * ```
 */
export const Environments = ["development", "test", "staging", "production"] as const;

/**
 * One of {@link Environments}.
 * @stable
 * @example `const env: Environment = "production";`
 */
export type Environment = (typeof Environments)[number];

/**
 * The log levels `LOG_LEVEL` may name, from quietest to loudest.
 *
 * @stable
 * @example
 * ```ts
 * LogLevels.includes("debug"); // true
 * ```
 */
export const LogLevels = ["fatal", "error", "warn", "info", "debug", "trace"] as const;

/**
 * One of {@link LogLevels}.
 * @stable
 * @example `const level: LogLevel = "debug";`
 */
export type LogLevel = (typeof LogLevels)[number];

/**
 * The ways a process can be told to end: `"EXIT"` (clean) or `"ERROR"`.
 *
 * @stable
 * @example
 * ```ts
 * await disposeAndExit(ExitCodes[1]); // "EXIT"
 * ```
 */
export const ExitCodes = ["ERROR", "EXIT"] as const;

/**
 * One of {@link ExitCodes}.
 * @stable
 * @example `const code: ExitCode = "EXIT";`
 */
export type ExitCode = (typeof ExitCodes)[number];
