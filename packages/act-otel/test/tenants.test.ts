/**
 * Metrics of tenants: given a `Tenants`, every `act.*` metric of a tenant's
 * work carries its id as `act.tenant` (one series per tenant), and each
 * tenant's series counts its own work only; scoped to one tenant, nothing of
 * another shows. Spans are never scoped, and each says whose work it was.
 */
import { act, disposeAndExit, InMemoryStore, projection, store } from "@act-root/act";
import { testClock } from "@act-root/act/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { instrument, type Instrumented } from "../src/index.js";
import { actor, Inventory, Order } from "./fixtures/apps.js";
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

/** Orders reserve stock; a projection counts them; each tenant on a store of its own. */
const model = () => {
  const Placed = projection("PlacedCount")
    .with(Order)
    .on("Placed", () => {})
    .build();
  return act()
    .with(Order)
    .with(Inventory)
    .with(Placed)
    .on("Placed")
    .do(async function reserve(event, _stream, app) {
      await app.do("reserve", { stream: "inventory", actor }, { order: event.stream }, { reactingTo: event });
    })
    .to("inventory-reactions")
    .buildTenants({ store: () => new InMemoryStore(), clock: testClock(new Date(T0)) });
};

/** Acme places `acme` orders and globex `globex`, each drained, with a timer fired and one pending each. */
async function work(tenants: ReturnType<typeof model>, counts: { acme: number; globex: number }) {
  for (const [tenant, n] of Object.entries(counts)) {
    const app = await tenants.add(tenant);
    for (let i = 0; i < n; i++) await app.do("place", { stream: `order-${i}`, actor }, { sku: "pen" });
    await app.schedule({
      id: "soon",
      action: "place",
      target: { stream: "order-timer", actor },
      payload: { sku: "x" },
      at: new Date(T0),
    });
    await app.schedule({
      id: "later",
      action: "place",
      target: { stream: "order-later", actor },
      payload: { sku: "y" },
      at: new Date(T0 + 3_600_000),
    });
    await app.correlate();
  }
}

const options = (tenant?: string) => ({
  tracerProvider: otel.tracerProvider,
  meterProvider: otel.meterProvider,
  ...(tenant && { tenant }),
});

/** Every tenant attribute a metric's points carry (undefined: a point without one). */
const tenantsOf = async (name: string) =>
  [...new Set((await otel.points(name)).map((p) => p.attributes["act.tenant"]))].sort();

describe("metrics of tenants", () => {
  it("carry act.tenant, each tenant's series counting its own work only", async () => {
    const tenants = model();
    instrumented = instrument(tenants, options());
    await work(tenants, { acme: 3, globex: 1 });
    const acme = { "act.tenant": "acme" };
    const globex = { "act.tenant": "globex" };
    const place = { "act.action": "place" };
    // Before the drain: the lag of each tenant's reaction, and its timers.
    expect(await otel.value("act.reaction.lag", { ...acme, "act.reaction": "Placed/reserve" })).toBe(3);
    expect(await otel.value("act.reaction.lag", { ...globex, "act.reaction": "Placed/reserve" })).toBe(1);
    expect(await otel.value("act.timers.pending", acme)).toBe(2);
    expect(await otel.value("act.timers.pending", globex)).toBe(2);
    await tenants.drain();

    expect(await otel.value("act.action.commits", { ...acme, ...place })).toBe(4); // 3 orders and the timer's
    expect(await otel.value("act.action.commits", { ...globex, ...place })).toBe(2);
    expect(await otel.value("act.action.commits", { ...acme, "act.action": "reserve" })).toBe(3);
    expect(await otel.value("act.action.commits", { ...globex, "act.action": "reserve" })).toBe(1);
    expect(await otel.value("act.reaction.duration", { ...acme, "act.reaction": "Placed/reserve" })).toBe(3);
    expect(await otel.value("act.reaction.duration", { ...globex, "act.reaction": "Placed/reserve" })).toBe(1);
    expect(await otel.value("act.reaction.duration", { ...acme, "act.reaction": "projection:PlacedCount" })).toBe(1);
    expect(await otel.value("act.drain.cycles", acme)).toBe(1);
    expect(await otel.value("act.drain.cycles", globex)).toBe(1);
    expect(await otel.value("act.timer.lateness", acme)).toBe(1);
    expect(await otel.value("act.timer.lateness", globex)).toBe(1);
    expect(await otel.value("act.timers.pending", acme)).toBe(1);
    for (const name of [
      "act.action.commits",
      "act.action.duration",
      "act.action.events",
      "act.reaction.duration",
      "act.reaction.latency",
      "act.reaction.lag",
      "act.reaction.streams.blocked",
      "act.drain.cycles",
      "act.drain.duration",
      "act.drain.leases",
      "act.timers.pending",
      "act.timers.overdue",
      "act.timer.lateness",
    ])
      expect(await tenantsOf(name), name).toEqual(["acme", "globex"]);
  });

  it("scoped to one tenant, show nothing of another", async () => {
    const tenants = model();
    instrumented = instrument(tenants, options("globex"));
    await work(tenants, { acme: 3, globex: 1 });
    expect(await otel.value("act.reaction.lag", { "act.reaction": "Placed/reserve" })).toBe(1);
    await tenants.drain();
    await otel.points("act.action.commits"); // collects every metric
    const names = otel.metrics().map((m) => m.descriptor.name);
    expect(names).toEqual(expect.arrayContaining(["act.action.commits", "act.timer.lateness", "act.drain.cycles"]));
    for (const name of names) expect(await tenantsOf(name), name).toEqual(["globex"]);
    expect(await otel.value("act.action.commits", { "act.action": "place" })).toBe(2);
    expect(await otel.value("act.reaction.duration", { "act.reaction": "Placed/reserve" })).toBe(1);
    expect(await otel.value("act.timers.pending")).toBe(1);
  });

  it("leave spans unscoped, each span of a tenant's work naming its tenant", async () => {
    const tenants = model();
    // Scoped to globex: acme's work records no metric, but its spans still say whose they are.
    instrumented = instrument(tenants, options("globex"));
    await work(tenants, { acme: 2, globex: 1 });
    await tenants.drain();
    const owners = (prefix: string) =>
      otel
        .spans()
        .filter((span) => span.name.startsWith(prefix))
        .map((span) => span.attributes["act.tenant"]);
    const count = (prefix: string, tenant: string) => owners(prefix).filter((owner) => owner === tenant).length;
    // Acme: 2 orders and its timer's; globex: 1 and its timer's. Each order reserved once.
    expect([count("do place", "acme"), count("do place", "globex")]).toEqual([3, 2]);
    expect([count("do reserve", "acme"), count("do reserve", "globex")]).toEqual([2, 1]);
    expect([count("process Placed", "acme"), count("process Placed", "globex")]).toEqual([2, 1]);
    expect(count("project PlacedCount", "acme")).toBeGreaterThan(0);
    expect(count("drain", "acme")).toBeGreaterThan(0);
    expect(count("drain", "globex")).toBeGreaterThan(0);
    const loads = count("load Order", "acme");
    await tenants.app("acme").load(Order, "order-0");
    expect(count("load Order", "acme")).toBe(loads + 1);
    for (const prefix of ["do ", "process ", "project ", "drain", "load "])
      expect(
        owners(prefix).filter((owner) => owner === undefined),
        prefix
      ).toEqual([]);
  });

  it("label the apps of a process that serves one tenant; refuse a tenant that is not a tenant id", async () => {
    const app = act().with(Order).build();
    instrumented = instrument(app, options("acme"));
    await app.do("place", { stream: "order-1", actor }, { sku: "pen" });
    expect(await tenantsOf("act.action.commits")).toEqual(["acme"]);
    expect(() => instrument(app, options("Not A Tenant"))).toThrow(/tenant/);
  });
});
