import { ownedNames } from "../builders/reaction-names.js";
import { route } from "./correlate.js";
import type { Discovery } from "./discovery.js";
import type { Drainer } from "./drain.js";
import type { Schemas } from "../types/action.js";
import type { Store } from "../types/ports.js";
import type { ReactionStats, ReactionStream } from "../types/reaction-streams.js";
import type { EventRegister } from "../types/reaction.js";

/**
 * How an app's reactions are doing (`app.stats()`): each reaction stream
 * with its lag and the reactions it carries that the app lacks, each
 * reaction's discovery position and whether it is behind the log, and the
 * drainer's latency. Four reads whatever the number of streams (see
 * {@link lags}).
 */
export async function reactionStats<E extends Schemas>(
  log: Store,
  events: EventRegister<E, any>,
  drainer: Drainer<E>,
  discovery: Discovery,
  lagLimit: number
): Promise<Omit<ReactionStats, "timers">> {
  const reactions = await log.reactions();
  const counted = await lags(log, events, drainer, reactions, lagLimit);
  const owned = new Set(ownedNames(events));
  // Object.assign, not a spread followed by new keys: with thousands of
  // streams of differing shapes (optional fields) the spread took longer
  // than the reads.
  const streams = reactions.map((r) =>
    Object.assign({}, r, { lag: counted.get(r.stream) ?? 0, missing: r.reactions.filter((n) => !owned.has(n)) })
  );
  let last = -1;
  await log.query(
    (e) => {
      last = e.id;
    },
    { backward: true, limit: 1 }
  );
  const positions = (await discovery.report()).map(({ reaction, at }) => ({ reaction, at, behind: at < last }));
  return { streams, discovery: positions, latency: drainer.latency() };
}

/**
 * The lag of every stream with work (`head` past its watermark), from one
 * read of the log: one query per stream made a dashboard polling `stats()`
 * on thousands of streams exhaust the connection pool.
 */
async function lags<E extends Schemas>(
  log: Store,
  events: EventRegister<E, any>,
  drainer: Drainer<E>,
  reactions: ReactionStream[],
  limit: number
): Promise<Map<string, number>> {
  const busy = new Map(reactions.filter((r) => r.head > r.at).map((r) => [r.stream, r]));
  const lags = new Map<string, number>();
  // Streams whose events this app's correlation indexed are counted from
  // the index, exactly and without reading the log (a stream with a source
  // counts only its source's events, which the index does not tell apart).
  for (const r of busy.values()) {
    if (r.source !== undefined) continue;
    const count = drainer.routes.count(log, r.stream, r.at, r.head);
    if (count === undefined) continue;
    lags.set(r.stream, Math.max(1, count));
    busy.delete(r.stream);
  }
  if (!busy.size) return lags;
  let after = Number.POSITIVE_INFINITY;
  let head = -1;
  for (const r of busy.values()) {
    after = Math.min(after, r.at);
    head = Math.max(head, r.head);
  }
  const names = Object.keys(events).filter((name) => events[name].reactions.size);
  const counted = new Map<string, number>();
  if (names.length)
    await log.query(
      (event) => {
        for (const { target } of route(events, event as never)) {
          const r = busy.get(target);
          if (!r || event.id <= r.at || event.id > r.head) continue;
          if (r.source !== undefined && event.stream !== r.source) continue;
          // An event counts once per stream, however many of its reactions go there.
          if (counted.get(target) === event.id) continue;
          counted.set(target, event.id);
          lags.set(target, (lags.get(target) ?? 0) + 1);
        }
      },
      { after, before: head + 1, limit, names }
    );
  // Work is there (head is past the watermark) even where the read ended first.
  for (const stream of busy.keys()) if (!lags.has(stream)) lags.set(stream, 1);
  return lags;
}
