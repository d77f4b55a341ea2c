import type { BatchObservableCallback, Meter } from "@opentelemetry/api";
import { type Act, logger, type Store } from "@act-root/act";
import { M } from "./names.js";

/**
 * Observes the pending timers and those of them overdue (due, not yet
 * fired: a consumer should be firing them), counted in the stores of the
 * apps — each store once, however many apps share it — at each collection,
 * by the collector's clock. Totals, with no attribute: a timer's id, stream
 * or payload never becomes a series.
 *
 * @param meter - where the gauges go
 * @param apps - the apps whose stores' timers are counted
 * @returns how to stop observing
 */
export function observeTimers(meter: Meter, apps: ReadonlyArray<Act<any, any, any>>): () => void {
  const pending = meter.createObservableGauge(M.timersPending, {
    unit: "{timer}",
    description: "Timers scheduled that have not fired, failed or been cancelled.",
  });
  const overdue = meter.createObservableGauge(M.timersOverdue, {
    unit: "{timer}",
    description: "Pending timers already due: a consumer should be firing them.",
  });
  const collect: BatchObservableCallback = async (result) => {
    const stores = new Set<Store>(apps.map((app) => app.store));
    const now = new Date();
    let counted = { pending: 0, overdue: 0 };
    for (const store of stores) {
      if (!store.timers) continue;
      try {
        const counts = await store.timers.count(now);
        counted = { pending: counted.pending + counts.pending, overdue: counted.overdue + counts.overdue };
      } catch (error) {
        logger.warn(error, "act-otel: the timers could not be counted");
      }
    }
    result.observe(pending, counted.pending);
    result.observe(overdue, counted.overdue);
  };
  const observed = [pending, overdue];
  meter.addBatchObservableCallback(collect, observed);
  return () => meter.removeBatchObservableCallback(collect, observed);
}
