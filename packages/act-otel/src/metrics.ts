import type { Meter } from "@opentelemetry/api";
import { DURATION_BUCKETS, LATENCY_BUCKETS, M } from "./names.js";

/**
 * The `act.*` instruments the observer records to, created once per
 * {@link instrument} call on its meter. The lag and timer gauges are observed
 * apart, from the apps' stats and stores (see `lag-gauges.ts`, `timer-gauges.ts`).
 */
export function actMetrics(meter: Meter) {
  return {
    actionDuration: meter.createHistogram(M.actionDuration, {
      unit: "s",
      description: "How long actions take, from validation to the snapshots returned, by outcome.",
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    commits: meter.createCounter(M.commits, {
      unit: "{commit}",
      description: "Actions that committed events.",
    }),
    conflicts: meter.createCounter(M.conflicts, {
      unit: "{conflict}",
      description: "Actions that failed with a ConcurrencyError.",
    }),
    eventsPerCommit: meter.createHistogram(M.eventsPerCommit, {
      unit: "{event}",
      description: "Events committed per action that committed.",
      advice: { explicitBucketBoundaries: [1, 2, 3, 5, 10, 20, 50, 100] },
    }),
    reactionDuration: meter.createHistogram(M.reactionDuration, {
      unit: "s",
      description: "How long one run of a reaction handler, or of a projection on a batch, takes, by outcome.",
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    reactionLatency: meter.createHistogram(M.reactionLatency, {
      unit: "s",
      description: "From an event's commit to the end of a reaction's (or projection batch's) successful run on it.",
      advice: { explicitBucketBoundaries: LATENCY_BUCKETS },
    }),
    retries: meter.createCounter(M.retries, {
      unit: "{retry}",
      description: "Failed reaction (and projection batch) runs that will be retried after a backoff.",
    }),
    blocks: meter.createCounter(M.blocks, {
      unit: "{block}",
      description: "Failed reaction (and projection batch) runs past their retries that block their reaction stream.",
    }),
    drainCycles: meter.createCounter(M.drainCycles, {
      unit: "{cycle}",
      description: "Drain cycles, idle (nothing leased) or not.",
    }),
    drainDuration: meter.createHistogram(M.drainDuration, {
      unit: "s",
      description: "How long drain cycles that leased streams take.",
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    leases: meter.createCounter(M.leases, {
      unit: "{lease}",
      description: "Reaction streams leased by drain cycles.",
    }),
    timerLateness: meter.createHistogram(M.timerLateness, {
      unit: "s",
      description: "How late timers fired (or failed for good): when their action ran minus when they were due.",
      advice: { explicitBucketBoundaries: LATENCY_BUCKETS },
    }),
  };
}

/** The instruments {@link actMetrics} creates. */
export type ActMetrics = ReturnType<typeof actMetrics>;
