import { logger } from "../core/ports.js";
import type { LogLevel } from "../core/environment.js";
import type { BlockedLease, Lease } from "../types/lease.js";

type Traced = {
  /** After a drain fetched events per stream. */
  fetched: (fetched: Array<{ stream: string; events: unknown[] }>) => void;
  /** After correlate registered reaction streams. */
  correlated: (leases: Lease[]) => void;
  /** After a drain leased streams. */
  leased: (leases: Lease[]) => void;
  /** After a drain acknowledged streams. */
  acked: (leases: Lease[]) => void;
  /** After a drain blocked streams. */
  blocked: (leases: BlockedLease[]) => void;
};

const quiet: Traced = {
  fetched: () => {},
  correlated: () => {},
  leased: () => {},
  acked: () => {},
  blocked: () => {},
};

/**
 * Builds the callbacks that trace each step of the drain cycle — fetched,
 * correlated, leased, acked, blocked — to the {@link logger} at `trace` level.
 * For any other level they do nothing, so tracing costs nothing when off.
 *
 * @experimental
 * @param logLevel - the configured level
 * @returns one callback per step
 * @see [Configuration](/docs/concepts/configuration#tracing-the-drain) — shows the trace output.
 * @example
 * ```ts
 * const tracer = build_tracer(config().logLevel);
 * const drained = await app.drain();
 * tracer.acked(drained.acked);
 * ```
 */
export function build_tracer(logLevel: LogLevel) {
  if (logLevel !== "trace") return quiet;
  const list = (leases: Lease[]) => leases.map(({ stream, at, retry }) => `${stream}@${at}#${retry}`).join(" ");
  return {
    fetched: (fetched) =>
      logger.trace(
        { streams: fetched.map(({ stream, events }) => `${stream}:${events.length}`).join(" ") },
        "⚡️ fetched"
      ),
    correlated: (leases) => logger.trace({ leases: list(leases) }, "⚡️ correlated"),
    leased: (leases) => logger.trace({ leases: list(leases) }, "⚡️ leased"),
    acked: (leases) => logger.trace({ leases: list(leases) }, "⚡️ acked"),
    blocked: (leases) =>
      logger.trace({ blocked: leases.map(({ stream, error }) => `${stream}: ${error}`) }, "⚡️ blocked"),
  } satisfies Traced;
}
