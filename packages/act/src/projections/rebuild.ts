import type { Projection } from "../builders/projection.js";
import type { Store } from "../types/ports.js";

/**
 * How far a rebuild got: reported while it runs and returned at the end.
 *
 * @stable
 * @example
 * ```ts
 * const report = ({ projected, total }: RebuildProgress) => console.log(`${projected}/${total}`);
 * ```
 */
export type RebuildProgress = {
  /** The projection's stream (name and version). */
  readonly stream: string;
  /** Events it handles up to `target`, counted when the rebuild started. */
  readonly total: number;
  /** How many of those it has projected. */
  readonly projected: number;
  /** Its position: the id of the last event projected (-1 before the first). */
  readonly at: number;
  /** The last event it handles (from its `since` on) in the log when the rebuild started, -1 for none: the rebuild is done once `at` reaches it. */
  readonly target: number;
  /** Whether it reached `target` (and the switch-over ran). */
  readonly done: boolean;
};

/**
 * What {@link Act.rebuild} is told: how to report, how long to wait, and the
 * switch-over to run once the new version has caught up.
 *
 * @stable
 * @example
 * ```ts
 * let serving = "open_tickets_v1";
 * const options: RebuildOptions = {
 *   progressMillis: 1_000,
 *   onProgress: ({ projected, total }) => console.log(`${projected}/${total}`),
 *   switchOver: () => {
 *     serving = "open_tickets_v2";
 *   },
 * };
 * ```
 */
export type RebuildOptions = {
  /**
   * Called with the progress every `progressMillis`, and once at the end.
   *
   * @param progress - how far the rebuild got
   */
  readonly onProgress?: (progress: RebuildProgress) => void;
  /** How often to report, in ms (default 1,000). */
  readonly progressMillis?: number;
  /** How long to wait for the new version to catch up, in ms (default: no limit). */
  readonly timeoutMillis?: number;
  /**
   * Points readers at the new version, once it has caught up — in one
   * transaction, so every reader sees either the old read model or the new
   * one, such as replacing the view readers query.
   */
  readonly switchOver?: () => unknown;
};

/** Counts the events `projection` handles after `after` up to `through`. */
async function handled(log: Store, projection: Projection<any, any>, after: number, through: number): Promise<number> {
  if (through <= after) return 0;
  let count = 0;
  await log.query(
    (event) => {
      if (!projection.options.since || event.created >= projection.options.since) count++;
    },
    { names: [...projection.events], after, before: through + 1 }
  );
  return count;
}

/**
 * Waits until a projection's (new) version has projected every event it
 * handles that was in the log when the call started, reporting progress,
 * then runs `switchOver`. The projection runs with the app's consumers
 * meanwhile (`app.start()` here or elsewhere); this only watches. An inline
 * projection is refused: it has no position.
 */
export async function rebuild(
  log: Store,
  projection: Projection<any, any>,
  options: RebuildOptions = {}
): Promise<RebuildProgress> {
  if (projection.options.inline)
    throw new Error(
      `Projection "${projection.name}" is inline: it has no position to rebuild from, and sees only the events committed while it is registered. Rebuild its read model with the same handlers as an asynchronous projection under a new version — projection("${projection.name}", { version: ${projection.options.version + 1} }) — then rebuild that one.`
    );
  if (projection.options.local)
    throw new Error(
      `Projection "${projection.name}" is local: every process rebuilds it from the log when it starts, and its position is not in the store for a rebuild to watch. Restart the process to rebuild it, or register a new version beside it and read from that once app.projected says it caught up.`
    );
  const { onProgress, progressMillis = 1_000, timeoutMillis, switchOver } = options;
  const started = Date.now();
  // The newest event it handles: with `since`, the newest from then on. When
  // there is none, the new version has nothing to project and is done at
  // once — its stream only comes to exist with an event it handles.
  const { since } = projection.options;
  let target = -1;
  await log.query(
    (event) => {
      if (!since || event.created >= since) target = event.id;
    },
    {
      names: [...projection.events],
      backward: true,
      limit: 1,
      ...(since && { created_after: new Date(since.getTime() - 1) }),
    }
  );
  const total = await handled(log, projection, -1, target);
  const position = async () => (await log.reactions()).find((r) => r.stream === projection.stream);
  // Counted as the position moves, so each event is read once over the whole rebuild.
  let counted = -1;
  let projected = 0;
  for (;;) {
    const now = await position();
    const at = now?.at ?? -1;
    if (now?.blocked)
      throw new Error(
        `Rebuild of projection "${projection.name}" (${projection.stream}) stopped: it is blocked at event #${at}: ${now.error}`
      );
    const reached = Math.min(at, target);
    if (reached > counted) {
      projected += await handled(log, projection, counted, reached);
      counted = reached;
    }
    const done = at >= target;
    if (done) await switchOver?.();
    const progress = { stream: projection.stream, total, projected, at, target, done };
    onProgress?.(progress);
    if (done) return progress;
    if (timeoutMillis !== undefined && Date.now() - started > timeoutMillis)
      throw new Error(
        `Rebuild of projection "${projection.name}" (${projection.stream}) did not catch up within ${timeoutMillis} ms: ${progress.projected} of ${total} events projected; is a consumer running (app.start())?`
      );
    await new Promise((resolve) => setTimeout(resolve, progressMillis));
  }
}
