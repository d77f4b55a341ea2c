import type { Attributes, BatchObservableCallback, Meter } from "@opentelemetry/api";
import { type Act, logger } from "@act-root/act";
import { lagSeries, metricNames, reactionAttributes, type StreamLag, streamAttributes } from "./lag.js";
import { M } from "./names.js";
import type { Scope } from "./tenant-scope.js";

/**
 * Observes the lag of each reaction, and how many reaction streams are
 * blocked, from the apps' own stats — the figures `app.stats()` gives, read
 * at each collection. A stream two apps share reports the larger of their
 * lags. One series per reaction, never per stream unless `lagStreams` asks
 * (see `lag.ts`) — per reaction and tenant when the apps are tenants' (each
 * tenant's streams apart: two tenants' streams of one name are not one).
 *
 * @param meter - where the gauges go
 * @param scope - the apps whose reaction streams are observed, each with its tenant attribute
 * @param lagLimit - how many events `app.stats` reads per collection (default: its own)
 * @param lagStreams - how many of the streams furthest behind get a series of their own
 * @returns how to stop observing
 */
export function observeLag(meter: Meter, scope: Scope, lagLimit: number | undefined, lagStreams: number): () => void {
  const lag = meter.createObservableGauge(M.lag, {
    unit: "{event}",
    description: "Events a reaction's streams still have to handle (the sum of their app.stats() lag).",
  });
  const streamLag = meter.createObservableGauge(M.streamLag, {
    unit: "{event}",
    description: "Events one reaction stream still has to handle: the lagStreams streams furthest behind.",
  });
  const blockedStreams = meter.createObservableGauge(M.blockedStreams, {
    unit: "{stream}",
    description: "Reaction streams blocked now.",
  });
  const collect: BatchObservableCallback = async (result) => {
    // The apps by tenant (one group without tenants): each group's streams folded apart.
    const groups = new Map<string, { attributes: Attributes; apps: Act<any, any, any>[] }>();
    for (const { app, attributes } of scope.apps()) {
      const key = JSON.stringify(attributes);
      const group = groups.get(key) ?? { attributes, apps: [] };
      group.apps.push(app);
      groups.set(key, group);
    }
    for (const { attributes, apps } of groups.values()) {
      const series = lagSeries(await lagOf(apps, lagLimit), labelsOf(apps), lagStreams);
      for (const [reaction, value] of series.reactions)
        result.observe(lag, value, { ...reactionAttributes(reaction), ...attributes });
      for (const [stream, s] of series.streams)
        result.observe(streamLag, s.lag, { ...streamAttributes(stream, s.blocked), ...attributes });
      result.observe(blockedStreams, series.blocked, attributes);
    }
  };
  const observed = [lag, streamLag, blockedStreams];
  meter.addBatchObservableCallback(collect, observed);
  return () => meter.removeBatchObservableCallback(collect, observed);
}

/** The metric names of the apps' reactions (see `metricNames`). */
const labelsOf = (apps: ReadonlyArray<Act<any, any, any>>) => new Map(apps.flatMap((app) => [...metricNames(app)]));

/** The reaction streams of the apps, as their stats give them: a stream two apps share has the larger lag. */
async function lagOf(apps: ReadonlyArray<Act<any, any, any>>, lagLimit: number | undefined) {
  const streams = new Map<string, StreamLag>();
  for (const app of apps) {
    try {
      for (const s of (await app.stats(lagLimit)).streams) {
        const known = streams.get(s.stream);
        streams.set(s.stream, {
          lag: Math.max(known?.lag ?? 0, s.lag),
          blocked: s.blocked,
          reactions: [...s.reactions],
        });
      }
    } catch (error) {
      logger.warn(error, "act-otel: the reaction streams' lag could not be read");
    }
  }
  return streams;
}
