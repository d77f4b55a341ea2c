import type { Act } from "@act-root/act";
import { A } from "./names.js";

/** One reaction stream as the gauges see it: its lag (the largest any app reports) and whether it is blocked. */
export type StreamLag = { lag: number; blocked: boolean; reactions: string[] };

/** What the lag gauges observe at one collection: a series per reaction, and optionally the most lagging streams. */
export type LagSeries = {
  /** Per reaction: the events its streams still have to handle. */
  reactions: Map<string, number>;
  /** The `limit` streams furthest behind, by name (empty unless per-stream detail was asked for). */
  streams: Array<[string, StreamLag]>;
  /** Blocked reaction streams in all. */
  blocked: number;
};

/**
 * The names an app's reactions answer to in the store, mapped to the name
 * the metrics give each: `"<event>/<key>"` for a reaction (its former names
 * included, so a stream registered under one counts for the reaction), and
 * the projection's stream (`"projection:<name>"`) for every event a
 * projection handles — one series per projection, as its spans and
 * counters are labelled.
 */
export function metricNames(app: Act<any, any, any>): Map<string, string> {
  const names = new Map<string, string>();
  for (const [event, register] of Object.entries(app.registry.events)) {
    for (const [key, reaction] of register.reactions as Map<
      string,
      { projection?: { stream: string }; aliases?: readonly string[] }
    >) {
      const label = reaction.projection?.stream ?? `${event}/${key}`;
      for (const name of [key, ...(reaction.aliases ?? [])]) names.set(`${event}/${name}`, label);
    }
  }
  return names;
}

/**
 * Folds the reaction streams of every app into bounded series: one per
 * reaction of the apps (however many streams — one per order, say — it
 * runs on), summing the lag of the streams that carry it, and, when
 * `limit` > 0, the `limit` streams furthest behind by name. Stream names
 * are often chosen by clients and can hold personal data, and a metrics
 * backend keeps every distinct attribute value as a series of its own: by
 * default no stream name leaves the process.
 */
export function lagSeries(
  streams: ReadonlyMap<string, StreamLag>,
  labels: ReadonlyMap<string, string>,
  limit: number
): LagSeries {
  const reactions = new Map<string, number>();
  for (const label of new Set(labels.values())) reactions.set(label, 0);
  let blocked = 0;
  for (const s of streams.values()) {
    if (s.blocked) blocked++;
    // A stream counts once per reaction, however many of its names map to it.
    const mine = new Set(s.reactions.flatMap((name) => (labels.has(name) ? [labels.get(name)!] : [])));
    for (const label of mine) reactions.set(label, reactions.get(label)! + s.lag);
  }
  const detail =
    limit > 0
      ? [...streams]
          .filter(([, s]) => s.lag > 0 || s.blocked)
          .sort(([a, x], [b, y]) => y.lag - x.lag || (a < b ? -1 : 1))
          .slice(0, limit)
      : [];
  return { reactions, streams: detail, blocked };
}

/** The attributes of a reaction's series. */
export const reactionAttributes = (reaction: string) => ({ [A.reaction]: reaction });

/** The attributes of a stream's series (per-stream detail only). */
export const streamAttributes = (stream: string, blocked: boolean) => ({
  [A.reactionStream]: stream,
  [A.blockedStream]: blocked,
});
