/**
 * A request that arrives with vendor trace data (`tracestate`, beside
 * `traceparent`) keeps it across the store: in the event's metadata and in
 * the link from the reaction that handles the event later.
 */
import { context, createTraceState, TraceFlags, trace } from "@opentelemetry/api";
import { disposeAndExit, InMemoryStore, store } from "@act-root/act";
import { afterEach, beforeEach, expect, it } from "vitest";
import { instrument, type Instrumented } from "../src/index.js";
import { actor, orders, shipping } from "./fixtures/apps.js";
import { parentOf, telemetry } from "./support.js";

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

it("the caller's tracestate is kept in the event and reaches the reaction's link", async () => {
  const placing = orders();
  const shipper = shipping();
  instrumented = instrument([placing, shipper], {
    tracerProvider: otel.tracerProvider,
    meterProvider: otel.meterProvider,
  });
  const tracestate = "vendor=abc123,other=x:y";
  // What an HTTP server's instrumentation leaves active for an incoming request.
  const incoming = trace.setSpanContext(context.active(), {
    traceId: "0af7651916cd43dd8448eb211c80319c",
    spanId: "b7ad6b7169203331",
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
    traceState: createTraceState(tracestate),
  });

  const [snap] = await context.with(incoming, () => placing.do("place", { stream: "order-1", actor }, { sku: "book" }));
  const place = otel.span("do place");
  expect(parentOf(place)).toBe("b7ad6b7169203331");
  const { traceId, spanId } = place.spanContext();
  expect(traceId).toBe("0af7651916cd43dd8448eb211c80319c");
  expect(snap.event!.meta.trace).toEqual({ traceparent: `00-${traceId}-${spanId}-01`, tracestate });
  const [stored] = await placing.queryArray({ stream: "order-1" });
  expect(stored.meta.trace).toEqual(snap.event!.meta.trace);

  // The reaction runs later, under a drain of its own: the event's trace
  // context, tracestate included, is its link back to the action.
  await placing.drain();
  const placed = otel.span("process Placed");
  expect(placed.links).toHaveLength(1);
  const [link] = placed.links;
  expect(link.context).toMatchObject({ traceId, spanId, isRemote: true });
  expect(link.context.traceState?.serialize()).toBe(tracestate);
  expect(link.context.traceState?.get("vendor")).toBe("abc123");
});
