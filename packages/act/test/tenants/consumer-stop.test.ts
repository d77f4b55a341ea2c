/**
 * Stopping the tenants' consumer: the drains in progress finish within the
 * grace (`graceMillis`, as `app.start` takes it), a drain stuck longer does
 * not hold the stop, and no drain starts after it.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { act, disposeAndExit, InMemoryStore } from "../../src/index.js";
import { actor, Counter } from "../fixtures.js";

process.env.LOG_LEVEL ??= "fatal";

afterEach(async () => {
  await disposeAndExit();
});

/** A tenants' app whose reaction waits for the test to open its gate. */
function gated() {
  const handled: string[] = [];
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => (open = resolve));
  const tenants = act()
    .with(Counter)
    .on("Incremented")
    .do(async (event) => {
      handled.push(`${event.stream} started`);
      await gate;
      handled.push(`${event.stream} done`);
    })
    .buildTenants({ store: () => new InMemoryStore() });
  return { tenants, handled, open };
}

describe("stopping the tenants' consumer", () => {
  it("waits for a drain in progress within the grace, then starts no drain", async () => {
    const { tenants, handled, open } = gated();
    const a = await tenants.add("a");
    const b = await tenants.add("b");
    tenants.start({ pollMillis: 600_000, graceMillis: 60_000 });
    await a.do("increment", { stream: "a-1", actor }, { by: 1 });
    await vi.waitFor(() => expect(handled).toEqual(["a-1 started"]), { timeout: 4_000, interval: 5 });
    let stopped: boolean | undefined;
    const stopping = tenants.stop().then((finished) => (stopped = finished));
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The drain in progress holds the stop.
    expect(stopped).toBeUndefined();
    open();
    await stopping;
    expect(stopped).toBe(true);
    expect(handled).toEqual(["a-1 started", "a-1 done"]);
    // The drain finished its work: the reaction's watermark moved, nothing is left for A.
    expect((await a.drain()).leased).toEqual([]);
    // Stopped: B's commit wakes no drain.
    await b.do("increment", { stream: "b-1", actor }, { by: 1 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(handled).toEqual(["a-1 started", "a-1 done"]);
  });

  it("returns after the grace while a drain is stuck, and that drain still finishes", async () => {
    const { tenants, handled, open } = gated();
    const a = await tenants.add("a");
    tenants.start({ pollMillis: 600_000, graceMillis: 50 });
    await a.do("increment", { stream: "a-1", actor }, { by: 1 });
    await vi.waitFor(() => expect(handled).toEqual(["a-1 started"]), { timeout: 4_000, interval: 5 });
    // Without a grace this would wait for the gate, which opens only after it.
    expect(await tenants.stop()).toBe(false);
    open();
    await vi.waitFor(() => expect(handled).toEqual(["a-1 started", "a-1 done"]), { timeout: 4_000, interval: 5 });
  });

  it("returns true at once when nothing was draining, and refuses a grace out of range", async () => {
    const { tenants } = gated();
    await tenants.add("a");
    expect(await tenants.stop()).toBe(true);
    tenants.start();
    expect(await tenants.stop()).toBe(true);
    expect(() => tenants.start({ graceMillis: -1 })).toThrow(/graceMillis/);
  });
});
