/**
 * The checks every store's archive makes at its boundary (`ArchiveStore.move`
 * and `purge`), so each refuses the same inputs with the same error.
 */
import type { ArchiveMove } from "../types/archive.js";
import { ValidationError } from "./errors.js";
import { checkDiscovery } from "./inputs.js";

/** A valid `Date`, or a `ValidationError` naming the field. */
function checkDate(what: string, value: unknown): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime()))
    throw new ValidationError(what, value, [{ path: "", message: "must be a valid Date" }]);
  return value;
}

/**
 * Checks what `ArchiveStore.move` is asked: two valid dates and the
 * reaction names (non-empty strings without NUL characters).
 *
 * @param request - what `move` was given
 * @returns the request, its reaction names without duplicates
 * @throws `ValidationError` naming the field that is wrong
 * @example
 * ```ts
 * checkArchiveMove({ closedBefore: new Date(), at: new Date(), reactions: [] }); // ok
 * ```
 */
export function checkArchiveMove(request: ArchiveMove): ArchiveMove {
  if (typeof request !== "object" || request === null)
    throw new ValidationError("archive move", request, [{ path: "", message: "must be an object" }]);
  return {
    closedBefore: checkDate("archive move: closedBefore", request.closedBefore),
    at: checkDate("archive move: at", request.at),
    reactions: checkDiscovery(request.reactions),
  };
}

/**
 * Checks the cut-off time of `ArchiveStore.purge`.
 *
 * @param before - what `purge` was given
 * @returns the date
 * @throws `ValidationError` when it is not a valid `Date`
 * @example
 * ```ts
 * checkPurge(new Date()); // ok
 * ```
 */
export function checkPurge(before: Date): Date {
  return checkDate("archive purge: before", before);
}
