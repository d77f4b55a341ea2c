import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { act, disposeAndExit, InMemoryStore, projection, store } from "@act-root/act";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { instrument, type Instrumented } from "../src/index.js";
import { actor, Order, orders, shipping } from "./fixtures/apps.js";
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

const on = (apps?: Parameters<typeof instrument>[0]) =>
  (instrumented = instrument(apps, { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider }));

describe("spans", () => {
  it("an action: its span, the load and store calls under it, and its trace context kept in the event", async () => {
    const app = orders();
    on(app);
    const [snap] = await app.do("place", { stream: "order-1", actor }, { sku: "book" });

    const action = otel.span("do place");
    expect(action.kind).toBe(SpanKind.INTERNAL);
    expect(action.attributes).toMatchObject({
      "act.state": "Order",
      "act.action": "place",
      "act.stream": "order-1",
      "act.expected_version": -1,
      "act.committed_version": 0,
      "act.events": 1,
      "act.outcome": "committed",
      "act.correlation": snap.event!.meta.correlation,
    });
    expect(action.status.code).toBe(SpanStatusCode.UNSET);

    const load = otel.span("load Order");
    expect(parentOf(load)).toBe(action.spanContext().spanId);
    expect(load.attributes).toMatchObject({ "act.state": "Order", "act.stream": "order-1", "act.stream_version": -1 });

    const commit = otel.span("commit");
    expect(commit.kind).toBe(SpanKind.CLIENT);
    expect(parentOf(commit)).toBe(action.spanContext().spanId);
    expect(commit.attributes).toMatchObject({
      "db.system.name": "act.in_memory",
      "db.operation.name": "commit",
      "act.stream": "order-1",
      "act.events": 1,
      "act.expected_version": -1,
      "db.response.returned_rows": 1,
    });
    const query = otel.spans().find((s) => s.name === "query")!;
    expect(parentOf(query)).toBe(load.spanContext().spanId);

    const { traceId, spanId } = action.spanContext();
    expect(snap.event!.meta.trace).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });
    const [stored] = await app.queryArray({ stream: "order-1" });
    expect(stored.meta.trace).toEqual(snap.event!.meta.trace);
  });

  it("a chain of two reactions across two apps sharing a store: each handler span is linked to the action that caused it, and its own action is its child", async () => {
    const placing = orders();
    const shipper = shipping();
    on([placing, shipper]);

    await placing.do("place", { stream: "order-7", actor }, { sku: "lamp" });
    await placing.drain();
    await shipper.drain();

    const place = otel.span("do place");
    const placed = otel.span("process Placed");
    const reserve = otel.span("do reserve");
    const reserved = otel.span("process Reserved");
    const ship = otel.span("do ship");
    const drains = otel.spans().filter((s) => s.name === "drain");
    expect(drains).toHaveLength(2);

    // Each reaction is a consumer span, a child of the drain that ran it …
    expect(placed.kind).toBe(SpanKind.CONSUMER);
    expect(parentOf(placed)).toBe(drains[0].spanContext().spanId);
    expect(parentOf(reserved)).toBe(drains[1].spanContext().spanId);
    // … linked to the span of the action that committed its event …
    expect(placed.links.map((l) => l.context.spanId)).toEqual([place.spanContext().spanId]);
    expect(placed.links[0].context.traceId).toBe(place.spanContext().traceId);
    expect(placed.links[0].attributes).toMatchObject({ "act.event.name": "Placed" });
    expect(reserved.links.map((l) => l.context.spanId)).toEqual([reserve.spanContext().spanId]);
    // … and the parent of the action its handler asks for.
    expect(parentOf(reserve)).toBe(placed.spanContext().spanId);
    expect(parentOf(ship)).toBe(reserved.spanContext().spanId);
    expect(reserve.spanContext().traceId).toBe(drains[0].spanContext().traceId);

    expect(placed.attributes).toMatchObject({
      "messaging.system": "act",
      "messaging.operation.type": "process",
      "messaging.destination.name": "Placed",
      "messaging.consumer.group.name": "Placed/reserve",
      "messaging.message.id": "0",
      "act.reaction": "Placed/reserve",
      "act.reaction.stream": "inventory-reactions",
      "act.event.stream": "order-7",
      "act.reaction.attempt": 1,
      "act.outcome": "handled",
    });
    expect(reserve.attributes).toMatchObject({ "act.event.name": "Placed", "act.correlation": expect.any(String) });
    expect(drains[0].attributes).toMatchObject({ "act.drain.leased": 1, "act.drain.fetched": 1, "act.drain.acked": 1 });
    // The drain's poll and lease, made before it knew it had work, are its children too.
    const drainChildren = otel
      .spans()
      .filter((s) => parentOf(s) === drains[0].spanContext().spanId)
      .map((s) => s.name);
    expect(drainChildren).toEqual(expect.arrayContaining(["poll", "lease", "ack", "process Placed"]));
    // The event itself came from the correlation pass just before: the drain read nothing.
    expect(drainChildren).not.toContain("query");
  });

  it("a drain that leases nothing records no span", async () => {
    const app = orders();
    on(app);
    await app.drain();
    await app.drain();
    expect(otel.spans()).toEqual([]);
    expect(await otel.value("act.drain.cycles", { "act.drain.idle": true })).toBe(2);
  });

  it("failures: error status on the action and on each failed reaction run, with what the drain does next", async () => {
    let failures = 2;
    const app = act()
      .with(Order)
      .on("Placed")
      .do(
        async function flaky() {
          if (failures-- > 0) throw new Error("warehouse offline");
        },
        { maxRetries: 1, retryBaseMillis: 1, retryMaxMillis: 1 }
      )
      .to("flaky")
      .build();
    on(app);
    await app.do("place", { stream: "order-2", actor }, { sku: "cup" });
    await expect(app.do("place", { stream: "order-2", actor }, { sku: "cup" })).rejects.toThrow("placed once");
    await expect(app.do("place", { stream: "order-3", actor }, { sku: 1 as never })).rejects.toThrow("Invalid");
    await expect(app.do("place", { stream: "order-2", actor, expectedVersion: 5 }, { sku: "cup" })).rejects.toThrow(
      "Concurrency"
    );

    const actions = otel.spans().filter((s) => s.name === "do place");
    expect(actions.map((s) => s.attributes["act.outcome"])).toEqual([
      "committed",
      "InvariantError",
      "ValidationError",
      "ConcurrencyError",
    ]);
    for (const failed of actions.slice(1)) {
      expect(failed.status.code).toBe(SpanStatusCode.ERROR);
      expect(failed.events.map((e) => e.name)).toContain("exception");
    }
    expect(actions[3].attributes).toMatchObject({ "act.expected_version": 5, "act.stream_version": 0 });
    expect(actions[1].attributes["error.type"]).toBe("InvariantError");

    await app.drain();
    await new Promise((resolve) => setTimeout(resolve, 10));
    await app.drain();
    const runs = otel.spans().filter((s) => s.name === "process Placed");
    expect(runs.map((s) => [s.attributes["act.reaction.attempt"], s.attributes["act.outcome"]])).toEqual([
      [1, "retry"],
      [2, "blocked"],
    ]);
    expect(runs.every((s) => s.status.code === SpanStatusCode.ERROR && s.status.message === "warehouse offline")).toBe(
      true
    );
    const blockedDrain = otel.spans().filter((s) => s.name === "drain")[1];
    expect(blockedDrain.attributes).toMatchObject({ "act.drain.blocked": 1, "act.drain.acked": 0 });
    expect(await otel.value("act.reaction.retries", { "act.reaction": "Placed/flaky" })).toBe(1);
    expect(await otel.value("act.reaction.blocks", { "act.reaction": "Placed/flaky" })).toBe(1);
    expect(await otel.value("act.reaction.streams.blocked")).toBe(1);
  });
});

describe("projections", () => {
  it("a span per batch, linked to the actions that committed its events, with the store call that records its position under it", async () => {
    const placed: string[] = [];
    const Placed = projection("PlacedOrders")
      .with(Order)
      .on("Placed", (event) => void placed.push(event.stream))
      .build();
    const app = act().with(Order).with(Placed).build();
    on(app);
    const [one] = await app.do("place", { stream: "order-1", actor }, { sku: "pen" });
    const [two] = await app.do("place", { stream: "order-2", actor }, { sku: "ink" });
    await app.drain();
    expect(placed).toEqual(["order-1", "order-2"]);

    const batch = otel.span("project PlacedOrders");
    expect(batch.kind).toBe(SpanKind.CONSUMER);
    expect(batch.attributes).toMatchObject({
      "act.projection": "PlacedOrders",
      "act.reaction": "projection:PlacedOrders",
      "act.reaction.stream": "projection:PlacedOrders",
      "act.events": 2,
      "messaging.batch.message_count": 2,
      "act.projection.first_event_id": one.event!.id,
      "act.projection.last_event_id": two.event!.id,
      "act.reaction.attempt": 1,
      "act.outcome": "handled",
    });
    expect(parentOf(batch)).toBe(otel.span("drain").spanContext().spanId);
    const actions = otel.spans().filter((s) => s.name === "do place");
    expect(batch.links.map((l) => l.context.spanId)).toEqual(actions.map((a) => a.spanContext().spanId));
    const recorded = otel.span("project");
    expect(recorded.kind).toBe(SpanKind.CLIENT);
    expect(parentOf(recorded)).toBe(batch.spanContext().spanId);
    expect(recorded.attributes).toMatchObject({
      "db.operation.name": "project",
      "act.reaction.stream": "projection:PlacedOrders",
    });
    const measured = { "act.reaction": "projection:PlacedOrders" };
    expect(await otel.value("act.reaction.duration", { ...measured, "act.outcome": "handled" })).toBe(1);
    // One latency per event, as app.stats() counts them.
    expect(await otel.value("act.reaction.latency", measured)).toBe(2);
    expect((await app.stats()).latency.count).toBe(2);
  });

  it("a failing batch: error status on each run, then the retry and block counters", async () => {
    const Broken = projection("Broken", { maxRetries: 1, retryBaseMillis: 1, retryMaxMillis: 1 })
      .with(Order)
      .on("Placed", () => {
        throw new Error("table missing");
      })
      .build();
    const app = act().with(Order).with(Broken).build();
    on(app);
    await app.do("place", { stream: "order-1", actor }, { sku: "pen" });
    await app.drain();
    await new Promise((resolve) => setTimeout(resolve, 10));
    await app.drain();
    const runs = otel.spans().filter((s) => s.name === "project Broken");
    expect(runs.map((s) => [s.attributes["act.reaction.attempt"], s.attributes["act.outcome"]])).toEqual([
      [1, "retry"],
      [2, "blocked"],
    ]);
    expect(runs.every((s) => s.status.code === SpanStatusCode.ERROR && /table missing/.test(s.status.message!))).toBe(
      true
    );
    const measured = { "act.reaction": "projection:Broken" };
    expect(await otel.value("act.reaction.retries", measured)).toBe(1);
    expect(await otel.value("act.reaction.blocks", measured)).toBe(1);
    expect(await otel.value("act.reaction.duration", { ...measured, "act.outcome": "blocked" })).toBe(1);
  });

  it("a local projection: each page it catches up in this process is a span too", async () => {
    const placed = new Map<string, string>();
    const Local = projection("PlacedHere", { local: true })
      .with(Order)
      .on("Placed", (event) => void placed.set(event.stream, event.data.sku))
      .build();
    const app = act().with(Order).with(Local).build();
    on(app);
    await app.do("place", { stream: "order-1", actor }, { sku: "pen" });
    await app.drain();
    expect([...placed]).toEqual([["order-1", "pen"]]);
    const batch = otel.span("project PlacedHere");
    expect(batch.attributes).toMatchObject({
      "act.projection": "PlacedHere",
      "act.events": 1,
      "act.outcome": "handled",
    });
    expect(batch.links.map((l) => l.context.spanId)).toEqual([otel.span("do place").spanContext().spanId]);
  });

  it("an action with an inline projection: its commit is a store span under the action", async () => {
    const placed: string[] = [];
    const Inline = projection("PlacedNow", { inline: true })
      .with(Order)
      .on("Placed", (event) => void placed.push(event.stream))
      .build();
    const app = act().with(Order).with(Inline).build();
    on(app);
    await app.do("place", { stream: "order-1", actor }, { sku: "pen" });
    expect(placed).toEqual(["order-1"]);
    const action = otel.span("do place");
    const commit = otel.span("commitInline");
    expect(commit.kind).toBe(SpanKind.CLIENT);
    expect(parentOf(commit)).toBe(action.spanContext().spanId);
    expect(commit.attributes).toMatchObject({
      "db.operation.name": "commitInline",
      "act.stream": "order-1",
      "act.events": 1,
      "act.expected_version": -1,
      "db.response.returned_rows": 1,
    });
  });
});

describe("metrics", () => {
  it("after a known workload", async () => {
    const placing = orders();
    const shipper = shipping();
    on([placing, shipper]);
    for (const n of [1, 2, 3]) await placing.do("place", { stream: `order-${n}`, actor }, { sku: "pen" });
    await expect(
      placing.do("place", { stream: "order-1", actor, expectedVersion: -1 }, { sku: "pen" })
    ).rejects.toThrow("Concurrency");
    const place = { "act.state": "Order", "act.action": "place" };

    expect(await otel.value("act.action.commits", place)).toBe(3);
    expect(await otel.value("act.action.conflicts", place)).toBe(1);
    expect(await otel.value("act.action.duration", { ...place, "act.outcome": "committed" })).toBe(3);
    expect(await otel.value("act.action.duration", { ...place, "act.outcome": "ConcurrencyError" })).toBe(1);
    const [events] = await otel.points("act.action.events");
    expect(events.value).toMatchObject({ count: 3, sum: 3 });
    // Once correlated, three placed orders wait for the inventory reaction.
    await placing.correlate();
    expect(await otel.value("act.reaction.lag", { "act.reaction": "Placed/reserve" })).toBe(3);

    await placing.drain();
    await shipper.drain();
    expect(await otel.value("act.reaction.lag", { "act.reaction": "Placed/reserve" })).toBe(0);
    expect(await otel.value("act.reaction.lag", { "act.reaction": "Reserved/ship" })).toBe(0);
    expect(await otel.value("act.reaction.streams.blocked")).toBe(0);
    expect(await otel.value("act.reaction.duration", { "act.reaction": "Placed/reserve" })).toBe(3);
    expect(
      await otel.value("act.reaction.duration", { "act.reaction": "Reserved/ship", "act.outcome": "handled" })
    ).toBe(3);
    const [latency] = await otel.points("act.reaction.latency");
    expect(latency.value).toMatchObject({ count: 3 });
    expect((latency.value as { sum: number }).sum).toBeGreaterThanOrEqual(0);
    expect(await otel.value("act.action.commits", { "act.action": "reserve" })).toBe(3);
    expect(await otel.value("act.drain.cycles", { "act.drain.idle": false })).toBe(2);
    expect(await otel.value("act.drain.leases")).toBe(2);
    expect(await otel.value("act.drain.duration")).toBe(2);
    expect(await otel.value("act.reaction.retries")).toBe(0);
  });
});

describe("off", () => {
  it("records nothing, keeps no trace context and leaves the store as it was, before instrument and after stop", async () => {
    const app = orders();
    const adapter = store();
    await app.do("place", { stream: "order-1", actor }, { sku: "a" });
    on(app);
    await app.do("place", { stream: "order-2", actor }, { sku: "b" });
    expect(Object.hasOwn(adapter, "commit")).toBe(true);
    instrumented!.stop();
    expect(Object.keys(adapter).filter((k) => ["commit", "query", "lease", "poll"].includes(k))).toEqual([]);
    const before = otel.spans().length;
    await app.do("place", { stream: "order-3", actor }, { sku: "c" });
    await app.drain();

    expect(otel.spans()).toHaveLength(before);
    expect(otel.spans().filter((s) => s.name === "do place")).toHaveLength(1);
    const events = await app.queryArray({});
    expect(events.map((e) => e.meta.trace !== undefined)).toEqual([false, true, false, false, false, false]);
    expect(await otel.value("act.action.commits")).toBe(1);
    expect(await otel.value("act.drain.cycles")).toBe(0);
  });

  it("with no SDK registered (the API's no-op providers), apps run and keep no trace context", async () => {
    const app = orders();
    instrumented = instrument(app);
    const [snap] = await app.do("place", { stream: "order-1", actor }, { sku: "a" });
    const { acked } = await app.drain();
    expect(acked).toHaveLength(1);
    expect(snap.event!.meta).not.toHaveProperty("trace");
    expect(otel.spans()).toEqual([]);
  });

  it("a second instrument replaces the first instead of doubling the spans", async () => {
    const app = orders();
    on(app);
    on(app);
    await app.do("place", { stream: "order-1", actor }, { sku: "a" });
    expect(otel.spans().filter((s) => s.name === "commit")).toHaveLength(1);
  });
});

describe("metric cardinality", () => {
  /** Orders whose reaction runs on each order's own stream: a stream per order, named by the client. */
  const perOrder = () =>
    act()
      .with(Order)
      .on("Placed")
      .do(async function confirm() {})
      .build();

  /** Every attribute value of every data point of every metric, as of now. */
  async function attributeValues(): Promise<string[]> {
    const names = ["act.action.duration", "act.action.commits", "act.action.events", "act.reaction.lag"];
    names.push("act.reaction.stream.lag", "act.reaction.streams.blocked", "act.drain.cycles", "act.drain.leases");
    const points = (await Promise.all(names.map((name) => otel.points(name)))).flat();
    return points.flatMap((p) => Object.values(p.attributes).map(String));
  }

  it("observe one lag series per reaction, with no stream name, however many streams it runs on", async () => {
    const app = perOrder();
    on(app);
    for (let n = 0; n < 20; n++)
      await app.do("place", { stream: `order-carla@example.com-${n}`, actor }, { sku: "pen" });
    await app.correlate();
    const lag = await otel.points("act.reaction.lag");
    expect(lag.map((p) => p.attributes)).toEqual([{ "act.reaction": "Placed/confirm" }]);
    expect(lag[0].value).toBe(20);
    expect(await otel.points("act.reaction.stream.lag")).toEqual([]);
    expect((await attributeValues()).filter((v) => v.includes("order-") || v.includes("@"))).toEqual([]);
  });

  it("observe the streams furthest behind by name only when asked, at most lagStreams of them", async () => {
    // Orders grouped by their first letter: "group-a" gets 1 order, "group-b" 3, "group-c" 2.
    const app = act()
      .with(Order)
      .on("Placed")
      .do(async function confirm() {})
      .to((event) => ({ target: `group-${event.stream[0]}` }))
      .build();
    instrumented = instrument(app, {
      tracerProvider: otel.tracerProvider,
      meterProvider: otel.meterProvider,
      lagStreams: 2,
    });
    for (const stream of ["a1", "b1", "b2", "b3", "c1", "c2"]) await app.do("place", { stream, actor }, { sku: "pen" });
    await app.correlate();
    const detail = await otel.points("act.reaction.stream.lag");
    expect(detail.map((p) => [p.attributes["act.reaction.stream"], p.value])).toEqual([
      ["group-b", 3],
      ["group-c", 2],
    ]);
    expect(await otel.value("act.reaction.lag", { "act.reaction": "Placed/confirm" })).toBe(6);
  });

  it("refuses a lagStreams that is not a whole number from 0 to 1,000", () => {
    for (const lagStreams of [-1, 1.5, 1_001, Number.NaN])
      expect(() => instrument(undefined, { meterProvider: otel.meterProvider, lagStreams })).toThrow(
        /lagStreams must be a whole number from 0 to 1,000/
      );
  });
});
