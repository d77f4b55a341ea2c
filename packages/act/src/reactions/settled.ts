import { route } from "./correlate.js";
import { NotSettledError, type PendingStream, ValidationError } from "../core/errors.js";
import { checkName } from "../core/inputs.js";
import type { Committed, Schemas, Snapshot } from "../types/action.js";
import type { Store } from "../types/ports.js";
import type { ReactionStream } from "../types/reaction-streams.js";
import type { EventRegister } from "../types/reaction.js";

/**
 * How `app.settled` waits.
 *
 * @stable
 * @example
 * ```ts
 * const options: SettledOptions = { timeoutMillis: 2_000 };
 * ```
 */
export type SettledOptions = {
  /** How long to wait at most, in ms (default 5,000; 0 looks once). */
  timeoutMillis?: number;
};

/** What `settled` listens to on the app: drains that moved or blocked streams, to look again at once. */
type Signals = {
  on(event: "acked" | "blocked", listener: (leases: readonly { stream: string }[]) => void): unknown;
  off(event: "acked" | "blocked", listener: (leases: readonly { stream: string }[]) => void): unknown;
};

/** First and longest pause between two looks at the watermarks, in ms. */
const FIRST_PAUSE = 10;
const MAX_PAUSE = 200;

/**
 * The correlation ids a chain names: the string itself, or those of the
 * events the snapshots carry (one per action; snapshots of several actions
 * name several chains, all waited for).
 */
export function chainOf(chain: readonly Snapshot<any, any>[] | string): string[] {
  if (typeof chain === "string") return [checkName("correlation", chain)];
  if (!Array.isArray(chain))
    throw new ValidationError("settled chain", chain, [
      { path: "", message: "must be the snapshots app.do returned, or a correlation id" },
    ]);
  const ids = new Set<string>();
  for (const snapshot of chain) {
    const correlation = snapshot?.event?.meta?.correlation;
    if (correlation !== undefined) ids.add(correlation);
  }
  return [...ids];
}

/**
 * Where a chain's events react into, read incrementally: the events of each
 * correlation after the last one read, each routed with the app's own
 * resolvers (so a reaction's `since`, or a resolver returning undefined,
 * leaves nothing to wait for).
 */
class Chain {
  /** Per reaction stream, the ids of the chain's events that react into it, ascending. */
  readonly routes = new Map<string, number[]>();
  /** Per reaction stream, the last watermark seen at or past its last routed event: caught up so far. */
  private readonly done = new Map<string, number>();
  /** Per correlation, the id of the last event read. */
  private readonly read: Map<string, number>;

  constructor(
    private readonly log: Store,
    private readonly events: EventRegister<any, any>,
    readonly correlations: string[]
  ) {
    this.read = new Map(correlations.map((c) => [c, -1]));
  }

  /** Reads the events committed since the last call; true when one of them reacts somewhere. */
  async follow(): Promise<boolean> {
    let routed = false;
    for (const [correlation, after] of this.read) {
      let last = after;
      await this.log.query(
        (event) => {
          last = Math.max(last, event.id);
          for (const { target } of route(this.events, event as Committed<Schemas, string>)) {
            const ids = this.routes.get(target);
            if (!ids) this.routes.set(target, [event.id]);
            // Several reactions of one event may go to the same stream: its id once.
            else if (ids[ids.length - 1] !== event.id) ids.push(event.id);
            routed = true;
          }
        },
        { correlation, after }
      );
      this.read.set(correlation, last);
    }
    return routed;
  }

  /** The streams that have not been seen past the chain's last event into them. */
  waiting(): string[] {
    const streams: string[] = [];
    for (const [stream, ids] of this.routes)
      if ((this.done.get(stream) ?? -1) < ids[ids.length - 1]) streams.push(stream);
    return streams;
  }

  /**
   * Compares the watermarks of `streams` with the chain's events into them:
   * the streams still behind, by name (an unknown stream, one no drain has
   * registered yet, is behind at -1).
   */
  behind(streams: string[], rows: ReactionStream[]): Array<PendingStream & { known: boolean }> {
    const byName = new Map(rows.map((r) => [r.stream, r]));
    const pending: Array<PendingStream & { known: boolean }> = [];
    for (const stream of streams.sort()) {
      const ids = this.routes.get(stream)!;
      const until = ids[ids.length - 1];
      const row = byName.get(stream);
      const at = row?.at ?? -1;
      if (at >= until) {
        this.done.set(stream, at);
        continue;
      }
      const p: PendingStream & { known: boolean } = {
        stream,
        at,
        until,
        behind: ids.filter((id) => id > at).length,
        retry: row?.retry ?? 0,
        blocked: row?.blocked ?? false,
        known: row !== undefined,
      };
      if (row?.error !== undefined) Object.assign(p, { error: row.error });
      pending.push(p);
    }
    return pending;
  }
}

/** One line per stream still behind, for the error's message. */
function describe(pending: Array<PendingStream & { known: boolean }>): string {
  return pending
    .map((p) => {
      const where = p.known ? `at #${p.at}` : "not registered by any drain yet";
      const left = `${p.behind} event${p.behind === 1 ? "" : "s"} of the chain to handle (up to #${p.until})`;
      const state = p.blocked
        ? `, blocked: ${p.error ?? "no reason recorded"}`
        : p.retry
          ? `, retrying after ${p.retry} failed attempt${p.retry === 1 ? "" : "s"}`
          : "";
      return `"${p.stream}" ${where}, ${left}${state}`;
    })
    .join("; ");
}

/** The error's list: the same streams without the message's detail. */
const reported = (pending: Array<PendingStream & { known: boolean }>): PendingStream[] =>
  pending.map(({ known: _, ...p }) => p);

/**
 * Waits until every reaction stream the chain reacts into has handled the
 * chain's events, following the chain as reactions add to it. It looks at
 * the watermarks of those streams only — a backlog elsewhere, a stream
 * waiting out a retry or one left by a removed reaction does not hold it
 * up — when the app acknowledges or blocks one of them, and otherwise every
 * {@link MAX_PAUSE} ms at most. Someone must be draining (`app.start()` here
 * or in another process); this only waits.
 *
 * @throws {@link NotSettledError} when a stream of the chain is blocked before its events, or time runs out
 */
export async function waitSettled(
  app: Signals,
  log: Store,
  events: EventRegister<any, any>,
  correlations: string[],
  timeoutMillis: number
): Promise<void> {
  if (!correlations.length) return;
  const chain = new Chain(log, events, correlations);
  const deadline = Date.now() + timeoutMillis;
  // A drain that moved one of the streams waited for wakes the wait; one that
  // came while looking makes it look again instead of sleeping.
  let moved = false;
  let wake: () => void = () => {};
  const listener = (leases: readonly { stream: string }[]) => {
    if (!leases.some((l) => chain.routes.has(l.stream))) return;
    moved = true;
    wake();
  };
  app.on("acked", listener);
  app.on("blocked", listener);
  try {
    await chain.follow();
    for (let pause = FIRST_PAUSE; ; ) {
      moved = false;
      const streams = chain.waiting();
      const pending = streams.length
        ? chain.behind(streams, await log.reactions({ streams }))
        : ([] as ReturnType<Chain["behind"]>);
      if (!pending.length) {
        // A reaction commits what its handler asks for before its stream
        // moves, so once every stream is past the chain's events one more
        // read finds every event they added; none that reacts anywhere
        // means the chain has ended.
        if (!(await chain.follow())) return;
        continue;
      }
      const quoted = correlations.map((c) => `"${c}"`).join(", ");
      if (pending.some((p) => p.blocked))
        throw new NotSettledError(
          "blocked",
          correlations,
          reported(pending),
          `The reactions of correlation ${quoted} cannot settle until a blocked stream is unblocked: ${describe(pending)}`
        );
      const left = deadline - Date.now();
      if (left <= 0)
        throw new NotSettledError(
          "pending",
          correlations,
          reported(pending),
          `The reactions of correlation ${quoted} did not settle within ${timeoutMillis} ms: ${describe(pending)}; is a consumer running (app.start())?`
        );
      if (moved) {
        pause = FIRST_PAUSE;
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(pause, left));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = () => {};
      pause = Math.min(MAX_PAUSE, pause * 2);
    }
  } finally {
    app.off("acked", listener);
    app.off("blocked", listener);
  }
}
