/**
 * The instrumentation on the SQLite store: its methods read private fields,
 * so the spans must wrap the store itself rather than a stand-in for it.
 */
import { disposeAndExit, store } from "@act-root/act";
import { SqliteStore } from "@act-root/act-sqlite";
import { afterEach, beforeEach, expect, it } from "vitest";
import { instrument, type Instrumented } from "../src/index.js";
import { actor, orders } from "./fixtures/apps.js";
import { telemetry } from "./support.js";

let otel: ReturnType<typeof telemetry>;
let instrumented: Instrumented | undefined;

beforeEach(async () => {
  await disposeAndExit();
  store(new SqliteStore({ filename: ":memory:" }));
  await store().seed();
  otel = telemetry();
});

afterEach(async () => {
  instrumented?.stop();
  await otel.shutdown();
  await disposeAndExit();
});

it("traces actions, store calls and reactions on SQLite", async () => {
  const app = orders();
  instrumented = instrument(app, { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider });
  await app.do("place", { stream: "order-1", actor }, { sku: "mug" });
  const { acked } = await app.drain();
  expect(acked).toHaveLength(1);

  const place = otel.span("do place");
  const commits = otel.spans().filter((s) => s.name === "commit");
  expect(commits.map((s) => s.attributes["db.system.name"])).toEqual(["sqlite", "sqlite"]);
  expect(otel.span("process Placed").links.map((l) => l.context.spanId)).toEqual([place.spanContext().spanId]);
  expect(await otel.value("act.action.commits")).toBe(2);
  expect(await otel.value("act.reaction.lag", { "act.reaction": "Placed/reserve" })).toBe(0);
});
