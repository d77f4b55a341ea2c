/**
 * Closed and archived streams: the close event's name, and the errors an
 * action on a closed stream, or a read of history that moved to the archive,
 * is refused with.
 */
import type { Actor } from "./schemas.js";
import { Errors } from "./errors.js";

/**
 * The name of the event `app.close` commits last to a stream, right after a
 * snapshot of its state (the summary): actions on the stream are refused
 * from then on, and reactions and projections read it like any event. Its
 * data is a `ClosedData`.
 *
 * @experimental
 * @see [Archiving and retention](/docs/guides/archiving#closing-the-books) — closing a stream.
 * @example
 * ```ts
 * const closes = await app.queryArray({ names: [CLOSE_EVENT] });
 * ```
 */
export const CLOSE_EVENT = "__closed__";

/**
 * Thrown by an action (or a second `app.close`) on a stream that was closed:
 * names the stream, when it was closed, by whom, why, and the stream its
 * state went on in, if any. Nothing was committed.
 *
 * @experimental
 * @see [Archiving and retention](/docs/guides/archiving#closing-the-books) — closing a stream.
 * @example
 * ```ts
 * try { await app.do("increment", { stream: "c-1", actor }, { by: 1 }); }
 * catch (error) {
 *   if (error instanceof StreamClosedError) console.warn(`${error.stream} closed by ${error.by.name} at ${error.at.toISOString()}`);
 * }
 * ```
 */
export class StreamClosedError extends Error {
  /**
   * @param stream - the closed stream
   * @param at - when its close event was committed
   * @param by - who closed it
   * @param reason - why, if given
   * @param continuedAs - the stream its state was carried into, if any
   */
  constructor(
    public readonly stream: string,
    public readonly at: Date,
    public readonly by: Actor,
    public readonly reason?: string,
    public readonly continuedAs?: string
  ) {
    super(
      `Stream "${stream}" was closed at ${at.toISOString()} by ${by.name} (${by.id})` +
        (reason ? `: ${reason}` : "") +
        (continuedAs ? `; it goes on as stream "${continuedAs}"` : "") +
        ". Nothing was committed"
    );
    this.name = Errors.StreamClosedError;
  }
}

/**
 * Thrown by a read of a stream's history that is no longer in the log: time
 * travel (`app.load` with `at`) to a point before the stream's summary. The
 * events before `version` are in the store's `archive` (read them with
 * `app.queryArchive`) unless retention deleted them (`purged`). A plain load
 * reads the archive itself when the log cannot answer (the summary was
 * emptied by `app.forget`, or written by an older definition of the state),
 * and is refused only when retention deleted what it needs.
 *
 * @experimental
 * @see [Archiving and retention](/docs/guides/archiving#reading-archived-streams) — which reads go on and which fail.
 * @example
 * ```ts
 * try { await app.load(Counter, "c-1", { at: { version: 1 } }); }
 * catch (error) {
 *   if (error instanceof StreamArchivedError) await app.queryArchive({ stream: error.stream }, console.log);
 * }
 * ```
 */
export class StreamArchivedError extends Error {
  /**
   * @param stream - the stream read
   * @param version - the first version still in the log; the ones before are archived
   * @param operation - what was asked, e.g. `load at version 2`
   * @param purged - the archive no longer holds them all either: retention deleted them
   */
  constructor(
    public readonly stream: string,
    public readonly version: number,
    public readonly operation: string,
    public readonly purged = false
  ) {
    super(
      purged
        ? `Stream "${stream}" was archived and purged: its events before version ${version} left the log and the store's archive no longer holds them all (retention deleted them), so ${operation} cannot be answered`
        : `Stream "${stream}" was archived: its events before version ${version} left the log for the store's archive, so ${operation} cannot be answered from the log. Read them with app.queryArchive({ stream: "${stream}" })`
    );
    this.name = Errors.StreamArchivedError;
  }
}
