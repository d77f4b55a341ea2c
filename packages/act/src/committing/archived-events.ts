/**
 * The part of a stream's history a load needs from the archive: when the log
 * no longer holds a stream's first events and no summary the state can start
 * from stands for them — `app.forget` emptied it, or an older definition of
 * the state wrote it — the load folds the archived events first.
 */
import { StreamArchivedError } from "../core/closed-streams.js";
import type { Committed, Schemas } from "../types/action.js";
import type { Store } from "../types/ports.js";

/**
 * The archived events of `stream` before version `first` (the first one the
 * log holds), in version order, read through `log`'s archive (so an app with
 * personal fields gets them opened).
 *
 * @throws {@link StreamArchivedError} when the store keeps no archive, or its archive lacks one of them (purged)
 */
export async function archivedBefore<E extends Schemas>(
  log: Store,
  stream: string,
  first: number,
  operation: string
): Promise<Committed<E, keyof E>[]> {
  const archive = log.archive;
  if (!archive) throw new StreamArchivedError(stream, first, operation);
  const events: Committed<E, keyof E>[] = [];
  // Events archived after the log was read are past `first`: the log's copy is used.
  await archive.query<E>(
    (event) => {
      if (event.version < first) events.push(event);
    },
    { stream, with_snaps: true }
  );
  if (events.length !== first || events.some((event, i) => event.version !== i))
    throw new StreamArchivedError(stream, first, operation, true);
  return events;
}
