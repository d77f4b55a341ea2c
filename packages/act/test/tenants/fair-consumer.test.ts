/**
 * One consumer for all tenants of a process, fair between them: a tenant
 * with a long backlog is drained one bounded share per cycle, so another
 * tenant's new event is reacted to while that backlog is still draining.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { type Act, act, disposeAndExit, InMemoryStore } from "../../src/index.js";
import { actor, Counter } from "../fixtures.js";

afterEach(async () => {
  await disposeAndExit();
});

const BACKLOG = 20_000;
const STREAMS = 20;
/** One drain's share with these options: 10 streams of at most 10 events. */
const SHARE = 10 * 10;

describe("the tenants' consumer", () => {
  it("reacts to B's new event while A's backlog of 20,000 events is still draining", async () => {
    const handled: string[] = [];
    let committedAt = -1;
    let b: Act<any, any, any> | undefined;
    const tenants = act()
      .with(Counter)
      .on("Incremented")
      .do(async (event) => {
        handled.push(event.stream);
        // B commits while A's first share runs: from here on, the two compete.
        if (handled.length === 1 && b) {
          committedAt = handled.length;
          void b.do("increment", { stream: "b-new", actor }, { by: 1 });
        }
      })
      .buildTenants({ store: () => new InMemoryStore() });
    const a = await tenants.add("a");
    b = await tenants.add("b");
    const meta = { correlation: "backlog", causation: {} };
    for (let s = 0; s < STREAMS; s++)
      await a.store.commit({
        stream: `a-${s}`,
        messages: Array.from({ length: BACKLOG / STREAMS }, () => ({ name: "Incremented", data: { by: 1 } })),
        meta,
      });
    // eventLimit and streamLimit bound a share; backlogMillis 0 keeps time out of it.
    tenants.start({ concurrency: 1, streamLimit: 10, eventLimit: 10, backlogMillis: 0, pollMillis: 50 });
    try {
      await vi.waitFor(() => expect(handled.length).toBe(BACKLOG + 1), { timeout: 60_000, interval: 20 });
    } finally {
      await tenants.stop();
    }
    const at = handled.indexOf("b-new");
    expect(committedAt).toBe(1);
    // Between B's commit and its reaction, A got at most the rest of the
    // share in progress, one more in the cycle under way and one in the next.
    expect(at - committedAt).toBeLessThanOrEqual(3 * SHARE);
    // A's backlog was far from drained, and A was not starved either: every
    // event of each of its streams was handled once.
    expect(handled.slice(at + 1).length).toBeGreaterThan(BACKLOG - 4 * SHARE);
    for (let s = 0; s < STREAMS; s++) expect(handled.filter((x) => x === `a-${s}`)).toHaveLength(BACKLOG / STREAMS);
  });

  it("wakes a tenant for its own commits only, and drains tenants added after the start", async () => {
    const handled: string[] = [];
    const tenants = act()
      .with(Counter)
      .on("Incremented")
      .do(async (event) => void handled.push(event.stream))
      .buildTenants({ store: () => new InMemoryStore() });
    const a = await tenants.add("a");
    // A poll this long never fires during the test: only wake-ups drain.
    tenants.start({ pollMillis: 600_000 });
    try {
      await new Promise((r) => setTimeout(r, 50));
      const [snap] = await a.do("increment", { stream: "a-1", actor }, { by: 1 });
      await a.settled([snap], { timeoutMillis: 4_000 });
      const late = await tenants.add("late");
      const [other] = await late.do("increment", { stream: "late-1", actor }, { by: 1 });
      await late.settled([other], { timeoutMillis: 4_000 });
      expect(handled).toEqual(["a-1", "late-1"]);
    } finally {
      await tenants.stop();
    }
  });

  it("serves B while A's drain waits on a slow handler", async () => {
    const handled: string[] = [];
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const tenants = act()
      .with(Counter)
      .on("Incremented")
      .do(async (event) => {
        if (event.stream === "a-slow") await gate;
        handled.push(event.stream);
      })
      .buildTenants({ store: () => new InMemoryStore() });
    const a = await tenants.add("a");
    const b = await tenants.add("b");
    // A drain waits for its handlers up to the lease: long here, so only the consumer's own scheduling can serve B.
    tenants.start({ pollMillis: 600_000, leaseMillis: 60_000 });
    try {
      await a.do("increment", { stream: "a-slow", actor }, { by: 1 });
      const [snap] = await b.do("increment", { stream: "b-1", actor }, { by: 1 });
      await b.settled([snap], { timeoutMillis: 4_000 });
      expect(handled).toEqual(["b-1"]);
    } finally {
      open();
      await tenants.stop();
    }
    expect(handled).toEqual(["b-1", "a-slow"]);
  });

  it("refuses options out of range, naming them", () => {
    const tenants = act()
      .with(Counter)
      .buildTenants({ store: () => new InMemoryStore() });
    expect(() => tenants.start({ concurrency: 0 })).toThrow(/concurrency/);
    expect(() => tenants.start({ pollMillis: -1 })).toThrow(/pollMillis/);
  });
});
