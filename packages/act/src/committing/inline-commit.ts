import { applyInline, asyncHandler, notSynchronous } from "../projections/project.js";
import type { Projection } from "../builders/projection.js";
import type { Committed, Schemas } from "../types/action.js";
import type { InlineCommit, Store } from "../types/ports.js";

/**
 * Commits an action's events — with `commitInline` when an inline projection
 * handles one of them, or the action scheduled or cancelled timers, so those
 * writes commit with the events or not at all.
 */
export function commitEvents<E extends Schemas>(
  log: Store,
  inline: readonly Projection<any, any>[],
  request: InlineCommit<E>
): Promise<Committed<E, keyof E>[]> {
  const { stream, messages } = request;
  if (inline.length && !log.commitInline)
    throw new Error(
      `Inline projection "${inline[0].name}" needs a store that runs handlers inside its commit (Store.commitInline), and ${log.constructor?.name ?? "this store"} has none: nothing was committed. Use the in-memory store, PostgresStore or SqliteStore, or build the projection without { inline: true }.`
    );
  if (request.timers && (!log.timers || !log.commitInline))
    throw new Error(
      `An action on stream "${stream}" scheduled or cancelled timers, which commit with its events, and ${log.constructor?.name ?? "this store"} ${log.timers ? "cannot commit them in one transaction (Store.commitInline)" : "keeps no timers"}: nothing was committed. Use the in-memory store, PostgresStore or SqliteStore.`
    );
  const names = new Set(messages.map(({ name }) => name as string));
  const running = inline.filter((projection) => projection.events.some((event) => names.has(event)));
  if (!running.length) return request.timers ? log.commitInline!<E>(request, () => undefined) : log.commit<E>(request);
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
