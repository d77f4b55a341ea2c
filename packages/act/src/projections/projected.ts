import type { LocalProjections } from "./local-projection.js";
import type { Projection } from "../builders/projection.js";
import type { Snapshot } from "../types/action.js";
import type { Store } from "../types/ports.js";

/** What `projected` listens to on the app: its acknowledgements, to look again at once. */
type Acks = {
  on(event: "acked", listener: () => void): unknown;
  off(event: "acked", listener: () => void): unknown;
};

/** Longest pause between two looks at the projection's position, in ms. */
const MAX_PAUSE = 200;

/**
 * The last event among `after` that `projection` handles (-1 when none):
 * once its position is there, it has seen everything `after` committed.
 */
export function projectedTarget(
  projection: Projection<any, any>,
  after: readonly Snapshot<any, any>[] | number
): number {
  if (typeof after === "number") return after;
  const since = projection.options.since?.getTime() ?? -Infinity;
  let target = -1;
  for (const { event } of after)
    if (event && projection.events.includes(event.name) && event.created.getTime() >= since)
      target = Math.max(target, event.id);
  return target;
}

/**
 * Waits until `projection` has processed the events `after` names, looking at
 * its position when the app acknowledges something and otherwise every
 * {@link MAX_PAUSE} ms at most. Someone must be draining (`app.start()` here
 * or in another process); this only waits.
 */
export async function waitProjected(
  app: Acks,
  log: Store,
  projection: Projection<any, any>,
  after: readonly Snapshot<any, any>[] | number,
  timeoutMillis: number,
  locals?: LocalProjections
): Promise<void> {
  // Inline: its writes committed with the events, there is nothing to wait for.
  if (projection.options.inline) return;
  const target = projectedTarget(projection, after);
  if (target < 0) return;
  // Local: its position is this process's, not a row of the store.
  const local = projection.options.local ? locals?.position(projection) : undefined;
  if (projection.options.local && !local)
    throw new Error(
      `Projection "${projection.name}" is local and this app does not register it: only the app that registers a local projection keeps its position`
    );
  const deadline = Date.now() + timeoutMillis;
  let wake: () => void = () => {};
  const listener = () => wake();
  app.on("acked", listener);
  try {
    for (let pause = 10; ; pause = Math.min(MAX_PAUSE, pause * 2)) {
      // Its own row only: listing every reaction stream on each look cost as
      // much as the store has streams. Matched by name all the same, in case
      // a store written before the filter existed lists them all.
      const position = local
        ? { at: local.at, blocked: local.error !== undefined, error: local.error }
        : (await log.reactions({ streams: [projection.stream] })).find((r) => r.stream === projection.stream);
      if (position && position.at >= target) return;
      if (position?.blocked)
        throw new Error(
          `Projection "${projection.name}" is blocked at event #${position.at} and cannot reach #${target}: ${position.error}`
        );
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `Projection "${projection.name}" did not reach event #${target} within ${timeoutMillis} ms (it is at #${position?.at ?? -1}); is a consumer running (app.start())?`
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(pause, left));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    app.off("acked", listener);
  }
}
