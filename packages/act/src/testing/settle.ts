import type { Act } from "../act.js";
import { checkOptions, OptionSchemas } from "../core/inputs.js";
import type { ReactionStream } from "../types/reaction-streams.js";
import type { Drain, DrainOptions } from "../types/reaction.js";
import type { Schemas } from "../types/action.js";
import { SettleError } from "./settle-error.js";

/** Events per correlation read while catching up with the log. */
const PAGE = 1_000;
/** Longest pause between looks at streams that wait (a retry's backoff, another drainer's lease), in ms. */
const POLL_MILLIS = 25;

/**
 * How {@link settle} drains, and when it gives up.
 *
 * @stable
 * @example
 * ```ts
 * const options: SettleOptions = { timeoutMillis: 10_000, maxDrains: 50, allowBlocked: true, eventLimit: 100 };
 * ```
 */
export type SettleOptions = DrainOptions & {
  /**
   * Drains that move something (a watermark acknowledged or a stream
   * blocked) before giving up with reason `"moving"` (default 1,000). One
   * drain handles up to `eventLimit` events on each of up to `streamLimit`
   * streams; raise it for tests that commit thousands of events.
   */
  readonly maxDrains?: number;
  /**
   * Time before giving up, in ms (default 4,000 — below vitest's default
   * test timeout of 5 s, so the error that names the pending streams comes
   * first).
   */
  readonly timeoutMillis?: number;
  /** Return normally with blocked streams (listed in the result) instead of throwing (default false). */
  readonly allowBlocked?: boolean;
};

/**
 * What {@link settle} did.
 *
 * @stable
 * @example
 * ```ts
 * const { drains, blocked }: Settled = await settle(app, { allowBlocked: true });
 * ```
 */
export type Settled = {
  /** Drains that moved something (acknowledged, blocked, or fired a timer). */
  readonly drains: number;
  /** Blocked reaction streams (only with `allowBlocked`; otherwise settle throws instead). */
  readonly blocked: ReactionStream[];
};

/** An app as settle uses it: any {@link Act}. */
type AnyAct = Act<Schemas, Schemas, Schemas>;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Registers the reaction streams of every event after `after`, page by page; returns the last event id read. */
async function catchUp(app: AnyAct, after: number): Promise<number> {
  for (;;) {
    const { lastId } = await app.correlate({ after, limit: PAGE });
    if (lastId <= after) return after;
    after = lastId;
  }
}

const describeBlocked = (r: ReactionStream) =>
  `"${r.stream}" (handled up to event #${r.at}, ${r.retry} failed attempts): ${r.error ?? "no error recorded"}`;

const describeWaiting = (r: ReactionStream) =>
  r.retry > 0
    ? `"${r.stream}" waits to retry after ${r.retry} failed attempt${r.retry === 1 ? "" : "s"} (until ${r.leasedUntil?.toISOString()})`
    : `"${r.stream}" is leased${r.leasedBy ? ` by drainer ${r.leasedBy}` : ""} until ${r.leasedUntil?.toISOString()}`;

const describeMoving = (drained: Drain<Schemas>) =>
  drained.acked.map(({ stream }) => {
    const events = drained.fetched.find((f) => f.stream === stream)?.events ?? [];
    const shown = events.slice(0, 5).map((e) => `${String(e.name)} #${e.id}`);
    return `"${stream}" handled ${shown.join(", ")}${events.length > shown.length ? ", …" : ""}`;
  });

/**
 * Runs an app's reactions until nothing is left to do — for tests, in place
 * of `app.start()`. It registers the reaction streams of every event in the
 * log, drains, and repeats while drains move something, so reactions to the
 * events that reactions commit run too, however many hops the chain has.
 * Its drains also fire the timers due by the app's clock (see `testClock`).
 *
 * "Nothing left" means that, twice in a row, a drain found no stream to
 * lease and no reaction stream was waiting: leased by a drainer, or waiting
 * out the backoff before a retry. (The second look is for PostgreSQL, whose
 * reads can leave out the newest events for a moment while older
 * transactions end.) Retries are waited for — give reactions a small
 * `retryBaseMillis` in tests, or a failing reaction takes seconds to retry
 * and block. Blocked streams will not move until unblocked: settle then
 * throws a {@link SettleError} naming them and their errors, unless
 * `allowBlocked` is set, in which case it returns them.
 *
 * It never hangs: after `maxDrains` drains that moved something, or
 * `timeoutMillis`, it throws a {@link SettleError} naming the streams still
 * moving (reactions that trigger each other without end) or still waiting.
 *
 * It reads the whole log on each call, from the first event, so it also
 * registers reaction streams for events committed before the app existed.
 * It drains the app's store — the one it was built with
 * (`build({ store })`), or else the store port's — and waits for every
 * reaction stream in that store, not only this app's.
 *
 * @stable
 * @param app - the app whose reactions to run
 * @param options - drain options, bounds, and whether blocked streams are allowed
 * @returns how many drains moved something, and the blocked streams when allowed
 * @throws {@link SettleError} when a stream is blocked (without `allowBlocked`), or the bounds ran out
 * @example
 * ```ts
 * await app.do("increment", { stream: "c-1", actor }, { by: 1 });
 * await settle(app);
 * // every reaction to the increment, and to what those reactions did, has run
 * ```
 */
export async function settle<S extends Schemas, E extends Schemas, A extends Schemas>(
  app: Act<S, E, A>,
  options: SettleOptions = {}
): Promise<Settled> {
  checkOptions("settle", options, OptionSchemas.settle);
  const { maxDrains = 1_000, timeoutMillis = 4_000, allowBlocked = false, ...drainOptions } = options;
  const target = app as unknown as AnyAct;
  const deadline = Date.now() + timeoutMillis;
  let cursor = -1;
  let drains = 0;
  // Whether the previous pass found nothing left. Nothing is left only when
  // two passes in a row say so: a store may keep the newest events out of
  // one read (PostgreSQL bounds reads across streams below transactions that
  // started before them and were still ending), and the next read sees them.
  let idle = false;
  for (;;) {
    cursor = await catchUp(target, cursor);
    // A stream whose lease or backoff ends after this moment was not offered
    // to the drain below (one ending before it was): it still counts as waiting.
    const polledAt = Date.now();
    const drained = await target.drain(drainOptions);
    if (drained.acked.length || drained.blocked.length || drained.fired?.length) {
      idle = false;
      drains++;
      const bound =
        drains >= maxDrains ? `${drains} drains` : Date.now() >= deadline ? `${timeoutMillis} ms` : undefined;
      if (bound) {
        const moving = describeMoving(drained);
        throw new SettleError(
          "moving",
          drained.acked.map((l) => l.stream),
          `settle: reactions still moving after ${bound} — do reactions trigger each other without end? ` +
            `The last drain: ${moving.join("; ") || "blocked streams only"}`
        );
      }
      continue;
    }
    const { streams } = await target.stats(1);
    const now = Date.now();
    const waiting = streams.filter(
      (r) => !r.blocked && r.leasedUntil !== undefined && r.leasedUntil.getTime() > polledAt
    );
    if (!drained.leased.length && !waiting.length) {
      if (!idle) {
        idle = true;
        continue;
      }
      const blocked = streams.filter((r) => r.blocked);
      if (blocked.length && !allowBlocked)
        throw new SettleError(
          "blocked",
          blocked.map((r) => r.stream),
          `settle: ${blocked.length} reaction stream${blocked.length === 1 ? " is" : "s are"} blocked: ` +
            `${blocked.map(describeBlocked).join("; ")}. Unblock with app.unblock(...), or pass { allowBlocked: true } to settle.`
        );
      return { drains, blocked };
    }
    idle = false;
    if (now >= deadline) {
      const pending = waiting.length
        ? waiting.map(describeWaiting)
        : drained.leased.map((l) => `"${l.stream}" was leased but did not move`);
      throw new SettleError(
        "pending",
        waiting.length ? waiting.map((r) => r.stream) : drained.leased.map((l) => l.stream),
        `settle: reactions still pending after ${timeoutMillis} ms: ${pending.join("; ")}. ` +
          `Give reactions a small retryBaseMillis in tests, or a larger timeoutMillis to settle.`
      );
    }
    const soonest = Math.min(...waiting.map((r) => r.leasedUntil!.getTime()));
    // Until the soonest lease or backoff ends, looking again every POLL_MILLIS at most.
    await pause(Math.max(1, Math.min(POLL_MILLIS, soonest - now + 1, deadline - now)));
  }
}
