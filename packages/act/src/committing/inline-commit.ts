import { applyInline, asyncHandler, notSynchronous } from "../projections/project.js";
import type { Projection } from "../builders/projection.js";
import type { Committed, Schemas } from "../types/action.js";
import type { InlineCommit, Store } from "../types/ports.js";

/**
 * Commits an action's events — with `commitInline` when an inline projection
 * handles one of them, so its writes commit with the events or not at all.
 */
export function commitEvents<E extends Schemas>(
  log: Store,
  inline: readonly Projection<any, any>[],
  request: InlineCommit<E>
): Promise<Committed<E, keyof E>[]> {
  const { stream, messages, meta, expectedVersion, idempotencyKey, lastId, request: asked } = request;
  if (inline.length && !log.commitInline)
    throw new Error(
      `Inline projection "${inline[0].name}" needs a store that runs handlers inside its commit (Store.commitInline), and ${log.constructor?.name ?? "this store"} has none: nothing was committed. Use the in-memory store, PostgresStore or SqliteStore, or build the projection without { inline: true }.`
    );
  const names = new Set(messages.map(({ name }) => name as string));
  const running = inline.filter((projection) => projection.events.some((event) => names.has(event)));
  if (!running.length) return log.commit<E>(stream, messages, meta, expectedVersion, idempotencyKey, lastId, asked);
  for (const projection of running) {
    const refused = asyncHandler(projection, log);
    if (refused !== undefined)
      throw notSynchronous(
        log,
        `Inline projection "${projection.name}" cannot run for the events of stream "${stream}" (nothing was committed): its handler of "${refused}" is an async function`
      );
  }
  return log.commitInline!<E>(request, (events, tx) => {
    const result = applyInline(running, events as Committed<Schemas, string>[], tx);
    if (!log.synchronousHandlers || typeof (result as PromiseLike<void> | undefined)?.then !== "function")
      return result;
    Promise.resolve(result).catch(() => {});
    const names = events.map(({ name }) => `"${String(name)}"`).join(", ");
    throw notSynchronous(
      log,
      `An inline projection's handler for ${names} of stream "${stream}" returned a promise (nothing was committed)`
    );
  });
}
