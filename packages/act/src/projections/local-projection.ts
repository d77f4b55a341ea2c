import { backoff } from "../reactions/handle.js";
import { decode } from "../committing/load.js";
import { around } from "../instrumentation/instrumentation.js";
import { logger } from "../core/ports.js";
import { applyProjection } from "./project.js";
import type { Projection } from "../builders/projection.js";
import type { Committed, Schemas } from "../types/action.js";
import type { Store } from "../types/ports.js";
import type { EventRegister } from "../types/reaction.js";

/** Events read per page while a local projection catches up. */
const PAGE = 1_000;

/**
 * Where a local projection is in this process: the last event applied, the
 * failed runs of the next one, when it may run again, and the error that
 * blocked it.
 */
export type LocalPosition = { at: number; retry: number; until: number; error?: string };

/**
 * The local projections of one app (`{ local: true }`): read models kept in
 * this process, whose positions are kept here too and never in the store —
 * a position shared through the store would say that every process holds
 * rows only one of them wrote. Each starts before the first event of the
 * log, so every process, and every start of one, projects the log again
 * into its own copy; each drain of the app brings them up to the log's head.
 */
export class LocalProjections {
  private readonly positions = new Map<Projection<any, any>, LocalPosition>();
  /** The catch-up running now: drains that overlap wait for it rather than apply events twice. */
  private running?: Promise<void>;

  constructor(
    readonly projections: readonly Projection<any, any>[],
    private readonly events: EventRegister<any, any>
  ) {
    for (const projection of projections) this.positions.set(projection, { at: -1, retry: 0, until: 0 });
  }

  /** The position of `projection` in this process, if it is one of these. */
  position(projection: Projection<any, any>): Readonly<LocalPosition> | undefined {
    return this.positions.get(projection);
  }

  /**
   * Applies every event each projection has not seen yet, in log order, page
   * by page. A failing event stops its projection there — what came before
   * stays applied, as nothing can roll it back — to be run again by a later
   * drain after a backoff, and after `maxRetries` + 1 failed runs it blocks
   * the projection in this process (until `reset`).
   */
  catchUp(log: Store): Promise<void> {
    this.running ??= this.all(log).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async all(log: Store): Promise<void> {
    for (const projection of this.projections) await this.one(log, projection);
  }

  private async one(log: Store, projection: Projection<any, any>): Promise<void> {
    const position = this.positions.get(projection)!;
    const { since } = projection.options;
    for (;;) {
      if (position.error !== undefined || position.until > Date.now()) return;
      const page: Committed<Schemas, string>[] = [];
      let last = position.at;
      await log.query(
        (event) => {
          last = event.id;
          if (!since || event.created >= since) page.push(event as Committed<Schemas, string>);
        },
        { names: [...projection.events], after: position.at, limit: PAGE }
      );
      if (last === position.at) return;
      if (page.length) {
        const { maxRetries, retryBaseMillis, retryMaxMillis } = projection.options;
        const options = { blockOnError: true, maxRetries, retryBaseMillis, retryMaxMillis };
        let current = page[0];
        // Observed as a batch of an asynchronous projection is, so local ones show in traces and metrics too.
        const info = {
          projection: projection.name,
          stream: projection.stream,
          events: page,
          attempt: position.retry + 1,
          options,
          store: log,
        };
        try {
          await around("projection", info, async () => {
            for (const stored of page) {
              current = stored;
              const register = this.events[stored.name];
              const event = decode(register?.schema, register?.upcasts, stored) as Committed<Schemas, string>;
              await applyProjection(projection, [event], undefined);
              position.at = stored.id;
              position.retry = 0;
            }
            return true;
          });
        } catch (cause) {
          this.fail(projection, position, current, cause);
          return;
        }
      }
      position.at = last;
    }
  }

  private fail(
    projection: Projection<any, any>,
    position: LocalPosition,
    event: Committed<Schemas, string>,
    cause: unknown
  ): void {
    const message = (cause as Error)?.message ?? String(cause);
    // A decoding failure is not yet in the words of the projection's errors.
    const error = message.startsWith(`Projection "${projection.name}"`)
      ? message
      : `Projection "${projection.name}" failed on event "${event.name}" #${event.id}: ${message}`;
    position.retry += 1;
    const { maxRetries, retryBaseMillis, retryMaxMillis } = projection.options;
    if (position.retry > maxRetries) {
      position.error = error;
      logger.error(cause, `${error} (blocked in this process after ${position.retry} failed runs)`);
      return;
    }
    const options = { blockOnError: true, maxRetries, retryBaseMillis, retryMaxMillis };
    position.until = Date.now() + backoff(position.retry, options);
    logger.error(cause, error);
  }
}
