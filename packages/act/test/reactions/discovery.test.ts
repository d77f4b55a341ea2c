import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { act, disposeAndExit, InMemoryStore, StoreError, state, store } from "../../src/index.js";
import { discoverySuite } from "./discovery.suite.js";

process.env.LOG_LEVEL ??= "fatal";

discoverySuite(
  "InMemoryStore",
  async () => {
    await disposeAndExit();
    return store(new InMemoryStore());
  },
  { runs: 100 }
);

const Counter = state("Counter", z.object({ n: z.number() }))
  .init(() => ({ n: 0 }))
  .emits({ Added: z.object({}) })
  .patch({ Added: (_, s) => ({ n: s.n + 1 }) })
  .on("add", z.object({}))
  .emit(() => ["Added", {}])
  .build();

describe("discovery positions per store", () => {
  it("a store swapped in is read from its own positions, not the last store's", async () => {
    await disposeAndExit();
    const first = store(new InMemoryStore());
    const ran: number[] = [];
    const app = act()
      .with(Counter)
      .on("Added")
      .do(async function count(e) {
        ran.push(e.id);
      })
      .to("counts")
      .build();
    const actor = { id: "u", name: "U" };
    for (let i = 0; i < 3; i++) await app.do("add", { stream: "c", actor }, {});
    await app.drain();
    await app.drain();
    const [name] = [...app.registry.events.Added.reactions.keys()].map((key) => `Added/${key}`);
    expect(await first.discovered([name])).toEqual(new Map([[name, 2]]));

    // A new adapter: its log has moved on past events it says were discovered.
    await disposeAndExit();
    const second = store(new InMemoryStore());
    for (let i = 0; i < 5; i++) await app.do("add", { stream: "c", actor }, {});
    await second.discover([name], 1);
    ran.length = 0;
    await app.drain();
    await app.drain();
    // Events up to its position were not registered again; the ones after were.
    expect(ran).toEqual([2, 3, 4]);
    expect(await second.discovered([name])).toEqual(new Map([[name, 4]]));
  });

  it("a store that refuses the positions still runs every reaction: the process reads the log from its start", async () => {
    await disposeAndExit();
    class Refusing extends InMemoryStore {
      async discovered(): Promise<Map<string, number>> {
        throw new StoreError("discovered", "rejected", "permission denied for table events_discovery");
      }
      async discover(): Promise<void> {
        throw new StoreError("discover", "rejected", "permission denied for table events_discovery");
      }
    }
    store(new Refusing());
    const ran: number[] = [];
    const app = act()
      .with(Counter)
      .on("Added")
      .do(async function count(e) {
        ran.push(e.id);
      })
      .to("counts")
      .build();
    const actor = { id: "u", name: "U" };
    for (let i = 0; i < 3; i++) await app.do("add", { stream: "c", actor }, {});
    await app.drain();
    await app.do("add", { stream: "c", actor }, {});
    await app.drain();
    expect(ran).toEqual([0, 1, 2, 3]);
  });

  it("a new reaction with since backfills without reading the events before its start", async () => {
    await disposeAndExit();
    const log = store(new InMemoryStore());
    const actor = { id: "u", name: "U" };
    const count = async function count() {};
    const audit = async function audit() {};
    const old = act().with(Counter).on("Added").do(count).to("counts").build();
    for (let i = 0; i < 5; i++)
      await log.commit({
        stream: "bulk",
        messages: Array.from({ length: 1_000 }, () => ({ name: "Added", data: {} })),
        meta: {
          correlation: "bulk",
          causation: {},
        },
      });
    for (let after = -1; ; ) {
      const { lastId } = await old.correlate({ after, limit: 10_000 });
      if (lastId <= after) break;
      after = lastId;
    }
    const next = act()
      .with(Counter)
      .on("Added")
      .do(count)
      .to("counts")
      .on("Added")
      .do(audit, { since: new Date(Date.now() + 1) })
      .to("audits")
      .build();
    const query = log.query.bind(log);
    let read = 0;
    log.query = ((callback: (event: never) => void, q?: object) =>
      query((event) => {
        read++;
        callback(event as never);
      }, q)) as typeof log.query;
    const { behind } = await next.correlate();
    expect(read).toBe(0); // 1,000 (a page of the backfill) without the start
    expect(behind).toBe(false);
    const names = [...next.registry.events.Added.reactions.keys()].map((key) => `Added/${key}`);
    expect(await log.discovered(names)).toEqual(new Map(names.map((n) => [n, 4_999])));
    await next.do("add", { stream: "c", actor }, {});
    await next.drain();
    expect((await log.reactions()).map((r) => r.stream)).toEqual(["audits", "counts"]);
  });

  it("a running consumer drains again at once while discovery is behind the log, without waiting for its poll", async () => {
    await disposeAndExit();
    const log = store(new InMemoryStore());
    const actor = { id: "u", name: "U" };
    const ran: number[] = [];
    const build = () =>
      act()
        .with(Counter)
        .on("Added")
        .do(async function count(e) {
          ran.push(e.id);
        })
        .to("counts")
        .build();
    const first = build();
    await first.do("add", { stream: "c", actor }, {});
    await first.drain();
    // More than a drain's 10,000 events that no reaction handles, then one it does.
    for (let i = 0; i < 25; i++)
      await log.commit({
        stream: "other",
        messages: Array.from({ length: 1_000 }, () => ({ name: "Other", data: {} })),
        meta: {
          correlation: "other",
          causation: {},
        },
      });
    const [added] = await first.do("add", { stream: "c", actor }, {});
    // Timers never fire: the consumer gets to the reaction only by draining without waiting.
    vi.useFakeTimers({ toFake: ["setTimeout", "setInterval", "clearTimeout", "clearInterval"] });
    const restarted = build();
    try {
      restarted.start({ pollMillis: 60_000 });
      for (let tick = 0; tick < 5_000 && ran.length < 2; tick++) await new Promise((r) => setImmediate(r));
    } finally {
      const stopped = restarted.stop();
      vi.useRealTimers();
      await stopped;
    }
    expect(ran).toEqual([0, added.event!.id]);
  });
});
