/**
 * The timer metrics: the pending and overdue gauges, counted in the apps'
 * stores, and the lateness histogram of fired timers — each with bounded
 * attributes only (an action's name and the outcome; never a timer's id,
 * stream or payload).
 */
import { act, disposeAndExit, InMemoryStore, store } from "@act-root/act";
import type { Histogram } from "@opentelemetry/sdk-metrics";
import { testClock } from "@act-root/act/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { instrument, type Instrumented } from "../src/index.js";
import { actor, Order } from "./fixtures/apps.js";
import { telemetry } from "./support.js";

let otel: ReturnType<typeof telemetry>;
let instrumented: Instrumented | undefined;

beforeEach(async () => {
  await disposeAndExit();
  store(new InMemoryStore());
  otel = telemetry();
});

afterEach(async () => {
  instrumented?.stop();
  instrumented = undefined;
  await otel.shutdown();
});

const T0 = Date.parse("2026-01-01T00:00:00Z");

describe("timer metrics", () => {
  it("observe the pending and overdue timers of the apps' stores, one series each, with no attribute", async () => {
    const clock = testClock(new Date(Date.now() - 60_000));
    const app = act().with(Order).build({ clock });
    instrumented = instrument(app, { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider });
    for (const [n, afterMillis] of [0, 1_000, 3_600_000].entries())
      await app.schedule({
        id: `place-order-secret-${n}`,
        action: "place",
        target: { stream: `order-carla@example.com-${n}`, actor },
        payload: { sku: "pen" },
        afterMillis,
      });
    // Counted by the collector's (real) clock: the first two were due a minute after the test clock's start.
    expect((await otel.points("act.timers.pending")).map((p) => [p.attributes, p.value])).toEqual([[{}, 3]]);
    expect((await otel.points("act.timers.overdue")).map((p) => [p.attributes, p.value])).toEqual([[{}, 2]]);
  });

  it("record how late each timer fired, per action and outcome only", async () => {
    const clock = testClock(new Date(T0));
    const app = act().with(Order).build({ clock });
    instrumented = instrument(app, { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider });
    const schedule = (n: number) =>
      app.schedule({
        id: `place-secret-${n}`,
        action: "place",
        target: { stream: "order-carla@example.com", actor },
        payload: { sku: `sku-${n}` },
        at: new Date(T0 + 1_000),
      });
    await schedule(1);
    await schedule(2); // the order is placed once: the second is refused and fails
    clock.advance(31_000);
    const { fired = [] } = await app.drain();
    expect(fired).toHaveLength(2);
    const points = await otel.points("act.timer.lateness");
    const byOutcome = Object.fromEntries(points.map((p) => [String(p.attributes["act.outcome"]), p]));
    expect(points.map((p) => p.attributes)).toEqual(
      expect.arrayContaining([
        { "act.action": "place", "act.outcome": "fired" },
        { "act.action": "place", "act.outcome": "failed" },
      ])
    );
    expect(points).toHaveLength(2);
    const fired30 = byOutcome.fired.value as Histogram;
    expect(fired30).toMatchObject({ count: 1, sum: 30 });
    const values = points.flatMap((p) => Object.values(p.attributes).map(String));
    expect(values.filter((v) => v.includes("secret") || v.includes("@") || v.includes("sku"))).toEqual([]);
  });
});
