/**
 * The tenants' consumer and timers: a timer coming due commits nothing, so
 * no wake-up announces it — the consumer must wait for the earliest due
 * timer itself, and a timer scheduled through a tenant's app must wake it.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { act, disposeAndExit, InMemoryStore } from "../../src/index.js";
import { actor, Counter } from "../fixtures.js";

process.env.LOG_LEVEL ??= "fatal";

afterEach(async () => {
  vi.useRealTimers();
  await disposeAndExit();
});

/** Lets the consumer's promises and its real `setImmediate` turns run (the fake clock does not move). */
const settled = async () => {
  for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
};

/**
 * Moves the fake clock in steps, letting the consumer run between them: the
 * consumer yields to the event loop on a real `setImmediate`, so one long
 * jump would pass its waits before it set them.
 */
const advance = async (millis: number, step = millis) => {
  for (let done = 0; done < millis; done += step) {
    await vi.advanceTimersByTimeAsync(Math.min(step, millis - done));
    await settled();
  }
};

const tenantsOf = () =>
  act()
    .with(Counter)
    .buildTenants({ store: () => new InMemoryStore() });

const timer = (id: string, afterMillis: number) => ({
  id,
  action: "increment" as const,
  target: { stream: "c-1", actor },
  payload: { by: 1 },
  afterMillis,
});

describe("the tenants' consumer and timers", () => {
  it("fires each tenant's timer when it comes due, though the idle poll waits longer and nothing is committed", async () => {
    // Fake timers and dates: the consumer's waits and the apps' clock move only when the test moves them.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const tenants = tenantsOf();
    const a = await tenants.add("a");
    const b = await tenants.add("b");
    await a.schedule(timer("soon", 60_000));
    await b.schedule(timer("later", 90_000));
    tenants.start({ pollMillis: 120_000 });
    await settled();
    // Backing off from 5 ms, the idle poll alone would next look after 81.9 s.
    await advance(60_000, 1_000);
    expect((await a.load(Counter, "c-1")).state.count).toBe(1);
    expect((await b.load(Counter, "c-1")).state.count).toBe(0);
    await advance(30_000, 1_000);
    expect((await b.load(Counter, "c-1")).state.count).toBe(1);
    // Each fired once, in its own tenant only.
    expect((await a.load(Counter, "c-1")).state.count).toBe(1);
    expect(await tenants.stop()).toBe(true);
  });

  it("wakes a tenant whose timer is scheduled through its app, and fires it when due", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const tenants = tenantsOf();
    const a = await tenants.add("a");
    await tenants.add("b");
    tenants.start({ pollMillis: 120_000 });
    // Ten idle minutes: every tenant now polls only every 120 s.
    await advance(600_000, 10_000);
    await a.schedule(timer("nudge", 1_000));
    await settled();
    await advance(1_000);
    expect((await a.load(Counter, "c-1")).state.count).toBe(1);
    expect((await tenants.app("b").load(Counter, "c-1")).state.count).toBe(0);
    expect(await tenants.stop()).toBe(true);
  });
});
