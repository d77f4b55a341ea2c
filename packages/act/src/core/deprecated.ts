import { logger } from "./ports.js";

/** The deprecations already reported in this process, by name. */
const reported = new Set<string>();

/**
 * Reports the use of a deprecated call or name once per process: a warning
 * through the {@link logger} port, naming what to use instead. Old call
 * shapes keep working for one minor release after they are replaced, and a
 * warning per call would flood the log of an app that makes the old call in
 * a loop, so each `name` warns the first time only.
 *
 * @param name - what is deprecated, e.g. `"app.query_array"`; the key it warns once for
 * @param message - what to use instead
 */
export function deprecated(name: string, message: string): void {
  if (reported.has(name)) return;
  reported.add(name);
  logger.warn({ deprecated: name }, `${name} is deprecated and goes away in the next minor release: ${message}`);
}
