import type { Attributes, BatchObservableCallback, Meter } from "@opentelemetry/api";
import { logger, type Store } from "@act-root/act";
import { M } from "./names.js";
import type { Scope } from "./tenant-scope.js";

/**
 * Observes the pending timers and those of them overdue (due, not yet
 * fired: a consumer should be firing them), counted in the stores of the
 * apps — each store once, however many apps share it — at each collection,
 * by the collector's clock. Totals, with no attribute but the tenant (a
 * series per tenant when the apps are tenants'): a timer's id, stream or
 * payload never becomes a series.
 *
 * @param meter - where the gauges go
 * @param scope - the apps whose stores' timers are counted, each with its tenant attribute
 * @returns how to stop observing
 */
export function observeTimers(meter: Meter, scope: Scope): () => void {
  const pending = meter.createObservableGauge(M.timersPending, {
    unit: "{timer}",
    description: "Timers scheduled that have not fired, failed or been cancelled.",
  });
  const overdue = meter.createObservableGauge(M.timersOverdue, {
    unit: "{timer}",
    description: "Pending timers already due: a consumer should be firing them.",
  });
  const collect: BatchObservableCallback = async (result) => {
    // Each store once, with its tenant's attributes; the totals by tenant (one without tenants).
    const stores = new Map<Store, Attributes>(scope.apps().map(({ app, attributes }) => [app.store, attributes]));
    const totals = new Map<string, { attributes: Attributes; pending: number; overdue: number }>();
    for (const attributes of stores.values())
      totals.set(JSON.stringify(attributes), { attributes, pending: 0, overdue: 0 });
    const now = new Date();
    for (const [store, attributes] of stores) {
      if (!store.timers) continue;
      try {
        const counts = await store.timers.count(now);
        const total = totals.get(JSON.stringify(attributes))!;
        total.pending += counts.pending;
        total.overdue += counts.overdue;
      } catch (error) {
        logger.warn(error, "act-otel: the timers could not be counted");
      }
    }
    for (const { attributes, pending: p, overdue: o } of totals.values()) {
      result.observe(pending, p, attributes);
      result.observe(overdue, o, attributes);
    }
  };
  const observed = [pending, overdue];
  meter.addBatchObservableCallback(collect, observed);
  return () => meter.removeBatchObservableCallback(collect, observed);
}
