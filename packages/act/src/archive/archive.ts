/**
 * Archiving and retention through an app (`app.archive`, `app.purge`): the
 * policies checked and turned into times by the app's clock, the app's
 * reactions named so the store holds back what they have not passed, and
 * every deletion logged. The moves themselves are the store's
 * (`ArchiveStore`), one transaction each.
 */
import { z } from "zod";
import { StoreError } from "../core/errors.js";
import { logger } from "../core/ports.js";
import { validate } from "../core/utils.js";
import type { ArchiveMoved, ArchivePolicy, ArchivePurged, ArchiveStore, RetentionPolicy } from "../types/archive.js";
import type { Store } from "../types/ports.js";
import type { EventRegister } from "../types/reaction.js";
import type { Clock } from "../types/timers.js";

/** A policy's period: a whole number of ms, at least 0. */
const PolicySchema = z.object({ afterMillis: z.number().int().min(0) }).strict();

/** The store's archive, or a clear refusal naming what is missing. */
export function archiveOf(log: Pick<Store, "archive">, operation: string): ArchiveStore {
  if (!log.archive)
    throw new StoreError(operation, "rejected", `${operation} refused: the store keeps no archive (Store.archive)`);
  return log.archive;
}

/**
 * The app's reactions by their current names (`"<event>/<key>"`), projections
 * included. Aliases are left out: an old name has no discovery position of
 * its own, and would hold every event back for ever.
 */
export function reactionNames(events: EventRegister<any, any>): string[] {
  return Object.entries(events).flatMap(([event, register]) =>
    [...register.reactions.keys()].map((key) => `${event}/${key}`)
  );
}

/**
 * Moves the events of streams closed at least `policy.afterMillis` ago to
 * the store's archive, holding back any event a reaction has not passed.
 */
export async function archive(
  log: Store,
  clock: Clock,
  reactions: readonly string[],
  policy: ArchivePolicy
): Promise<ArchiveMoved> {
  const { afterMillis } = validate("archive policy", policy, PolicySchema);
  const at = clock.now();
  const moved = await archiveOf(log, "archive").move({
    closedBefore: new Date(at.getTime() - afterMillis),
    at,
    reactions,
  });
  if (moved.events || moved.held)
    logger.info(
      { events: moved.events, streams: moved.streams.length, held: moved.held },
      `archived ${moved.events} events of ${moved.streams.length} closed streams` +
        (moved.held ? `; ${moved.held} wait for reactions that have not passed them` : "")
    );
  return moved;
}

/**
 * Deletes for good the archived events archived at least
 * `policy.afterMillis` ago; logs what went (a warning: it cannot be undone).
 */
export async function purge(log: Store, clock: Clock, policy: RetentionPolicy): Promise<ArchivePurged> {
  const { afterMillis } = validate("retention policy", policy, PolicySchema);
  const purged = await archiveOf(log, "purge").purge(new Date(clock.now().getTime() - afterMillis));
  if (purged.events)
    logger.warn(
      { events: purged.events, streams: purged.streams },
      `retention deleted ${purged.events} archived events of ${purged.streams.length} streams for good`
    );
  return purged;
}
