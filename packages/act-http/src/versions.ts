/**
 * A stream's version as an HTTP validator: the `ETag` of every answer about
 * a stream is its version, quoted (a strong validator), and a client sends it
 * back in `If-Match` to say which version its request was decided on — Act's
 * `expectedVersion`.
 */
import { HttpErrors, HttpProblem } from "./problem.js";

/**
 * The ETag of a stream at a version: the version, quoted (`"-1"` for a
 * stream with no events yet).
 *
 * @param version - the stream's version
 * @returns the ETag, e.g. `"4"`
 * @experimental
 * @example
 * ```ts
 * etag(4); // '"4"'
 * ```
 */
export function etag(version: number): string {
  return `"${version}"`;
}

/**
 * `If-Match: "7"` → 7; no header → undefined (no precondition). Anything
 * else — a weak or a list of ETags, `*`, garbage — is a 400 that says what
 * to send, since guessing could commit on a version the client never saw.
 */
export function expectedVersion(ifMatch: string | undefined): number | undefined {
  if (ifMatch === undefined) return undefined;
  const match = /^"(-1|0|[1-9]\d{0,14})"$/.exec(ifMatch.trim());
  if (!match)
    throw new HttpProblem(
      400,
      HttpErrors.BadRequest,
      'If-Match must be one ETag this API returned, like "3" (a stream version in double quotes)'
    );
  return Number(match[1]);
}
