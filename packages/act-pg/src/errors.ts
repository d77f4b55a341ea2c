import type { StoreFailure } from "@act-root/act";

/** A driver error with its SQLSTATE (or Node errno) code. */
export type DriverError = Error & { code?: string };

/**
 * How each PostgreSQL error maps to a {@link StoreFailure}, by SQLSTATE
 * class (the first two characters) or exact code; anything else is
 * `"rejected"`. The errors guide shows this table; keep them in step.
 *
 * - `unreachable` (retry later; nothing was done): the server cannot take the
 *   connection now — `57P03` (starting up or shutting down), `08001`,
 *   `08004` (refused the connection) — and the Node network errors.
 * - `connection-lost` (a commit applied entirely or not at all): the rest of
 *   class `08`, `57P01` (administrator shutdown, `pg_terminate_backend`),
 *   `57P02` (crash shutdown).
 * - `transient` (retry; the transaction was rolled back, nothing was done):
 *   `40001` (serialization failure), `40P01` (deadlock), class `53`
 *   (insufficient resources: `53300` too many connections, `53100` disk full,
 *   `53200` out of memory), `55P03` (lock not available: `lock_timeout`),
 *   `57014` (query cancelled: `statement_timeout`).
 */
export const SQLSTATES: ReadonlyArray<{ readonly code: string; readonly reason: StoreFailure }> = [
  { code: "57P03", reason: "unreachable" },
  { code: "08001", reason: "unreachable" },
  { code: "08004", reason: "unreachable" },
  { code: "08", reason: "connection-lost" },
  { code: "57P01", reason: "connection-lost" },
  { code: "57P02", reason: "connection-lost" },
  { code: "40001", reason: "transient" },
  { code: "40P01", reason: "transient" },
  { code: "53", reason: "transient" },
  { code: "55P03", reason: "transient" },
  { code: "57014", reason: "transient" },
];

/** Node's network errors: no connection could be made, or it broke. */
const UNREACHABLE_ERRNO = new Set(["ECONNREFUSED", "ENOTFOUND", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH"]);
const LOST_ERRNO = new Set(["ECONNRESET", "EPIPE"]);
/** The driver's words for a connection that went away (it gives no code then). */
const CONNECTION_MESSAGE =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|terminating connection/i;

/**
 * The failure a driver error stands for: by SQLSTATE (exact code first, then
 * class), then by Node errno, then by the driver's message for a dropped
 * connection; `"rejected"` otherwise.
 */
export function classify(error: DriverError): StoreFailure {
  const code = error.code ?? "";
  const exact = SQLSTATES.find((entry) => entry.code.length === 5 && entry.code === code);
  if (exact) return exact.reason;
  const byClass = SQLSTATES.find(
    (entry) => entry.code.length === 2 && code.length === 5 && code.startsWith(entry.code)
  );
  if (byClass) return byClass.reason;
  if (UNREACHABLE_ERRNO.has(code)) return "unreachable";
  if (LOST_ERRNO.has(code) || CONNECTION_MESSAGE.test(error.message ?? "")) return "connection-lost";
  return "rejected";
}
