import { beforeEach, describe, expect, it, vi } from "vitest";
import { act, type Committed, projection, type Schemas, sleep, store } from "../../src/index.js";
import { correlate } from "../../src/reactions/correlate.js";
import { backoff } from "../../src/reactions/handle.js";
import { KEPT_EVENTS_LIMIT, RouteIndex } from "../../src/reactions/route-index.js";
import { Account, actor, freshStore } from "../fixtures.js";

beforeEach(async () => {
  await freshStore();
});

describe("drain with the default options", () => {
  it("routes one read of the log to every target stream: cycles grow with the events, not with targets × log", async () => {
    const handled = new Map<string, number>();
    const app = act()
      .with(Account)
      .on("Deposited")
      .do(async (_event, stream) => {
        handled.set(stream, (handled.get(stream) ?? 0) + 1);
      })
      .to((event) => ({ target: `ledger-${event.stream}` }))
      .build();
    // 1,000 events over 100 streams, interleaved as real traffic would be.
    for (let i = 0; i < 1_000; i++) await app.do("deposit", { stream: `acc-${i % 100}`, actor }, { amount: i });
    let cycles = 0;
    for (;;) {
      const { acked } = await app.drain();
      cycles++;
      if (!acked.length) break;
    }
    expect(handled.size).toBe(100);
    expect([...handled.values()].every((n) => n === 10)).toBe(true);
    // events ÷ (streamLimit × eventLimit) = 10, plus the empty drain that proves it is done
    expect(cycles).toBeLessThanOrEqual(1_000 / (10 * 10) + 2);
  });
});

/** The events the store's queries handed out while `work` ran, in order. */
async function eventsRead(work: () => Promise<void>): Promise<Committed<Schemas, string>[]> {
  const log = store();
  const query = log.query.bind(log);
  const read: Committed<Schemas, string>[] = [];
  const spy = vi.spyOn(log, "query").mockImplementation((callback, q) =>
    query((event) => {
      read.push(event as never);
      callback(event as never);
    }, q)
  );
  try {
    await work();
  } finally {
    spy.mockRestore();
  }
  return read;
}

/** An app whose one reaction records each deposit's amount, routed by `to`. */
function recording(
  to: (event: Committed<{ Deposited: { amount: number } }, "Deposited">) => { target: string } | undefined
) {
  const handled: number[] = [];
  const app = act()
    .with(Account)
    .on("Deposited")
    .do(async (event) => {
      handled.push(event.data.amount);
    })
    .to(to)
    .build();
  return { app, handled };
}

describe("a drain's reads of the log", () => {
  it("take the events this process's correlation just read from it: a long log after them costs nothing", async () => {
    // Only the first deposit reacts into "audit"; the 2,500 after it route nowhere.
    const { app, handled } = recording((event) => (event.data.amount === 0 ? { target: "audit" } : undefined));
    const meta = { correlation: "c", causation: {} };
    await store().commit({ stream: "acc-0", messages: [{ name: "Deposited", data: { amount: 0 } }], meta });
    for (let i = 1; i <= 2_500; i++)
      await store().commit({ stream: `acc-${i}`, messages: [{ name: "Deposited", data: { amount: i } }], meta });
    await app.correlate({ after: -1, limit: 10_000 });
    const read = await eventsRead(async () => {
      const { acked } = await app.drain();
      expect(acked.map((a) => a.stream)).toEqual(["audit"]);
    });
    expect(handled).toEqual([0]);
    expect(read).toHaveLength(0);
  });

  it("visit only the leased streams' own events once this process's correlation found them", async () => {
    const { app, handled } = recording((event) => ({ target: `ledger-${event.stream}` }));
    const meta = { correlation: "c", causation: {} };
    // Events over 100 streams, interleaved: a shared read for ten leased
    // streams would visit ten events for each one they handle.
    const events = KEPT_EVENTS_LIMIT + 1_000;
    for (let i = 0; i < events; i++)
      await store().commit({ stream: `acc-${i % 100}`, messages: [{ name: "Deposited", data: { amount: i } }], meta });
    await app.correlate({ after: -1, limit: 10_000 });
    const read = await eventsRead(async () => {
      while (handled.length < events) await app.drain();
    });
    // Correlation kept the latest events it read for the drains: only the
    // first 1,000 are read again, each once.
    expect(read.map((event) => event.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 1_000 }, (_, i) => i));
    expect([...handled].sort((a, b) => a - b)).toEqual(Array.from({ length: events }, (_, i) => i));
  });

  it("read the events a drain took but did not reach (its backlog allowance ran out) from the index next time, not the store", async () => {
    const handled: number[] = [];
    const app = act()
      .with(Account)
      .on("Deposited")
      .do(async (event) => {
        handled.push(event.data.amount);
        // Slow enough that the 1 ms allowance is always spent after the first events.
        const until = Date.now() + 2;
        while (Date.now() < until);
      })
      .to(() => ({ target: "ledger" }))
      .build();
    const meta = { correlation: "c", causation: {} };
    for (let i = 0; i < 30; i++)
      await store().commit({ stream: "acc", messages: [{ name: "Deposited", data: { amount: i } }], meta });
    await app.correlate({ after: -1, limit: 100 });
    const options = { eventLimit: 5, backlogMillis: 1 };
    const read = await eventsRead(async () => {
      await app.drain(options);
      expect(handled.length).toBeLessThan(30);
      while (handled.length < 30) await app.drain(options);
    });
    expect(handled).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(read).toEqual([]);
  });

  it("hold only the latest events of a long correlation pass for the drains, not every event it read", async () => {
    const { app } = recording((event) => ({ target: `ledger-${event.stream}` }));
    const meta = { correlation: "c", causation: {} };
    const events = KEPT_EVENTS_LIMIT * 2 + 500;
    for (let i = 0; i < events; i++)
      await store().commit({ stream: `acc-${i % 100}`, messages: [{ name: "Deposited", data: { amount: i } }], meta });
    const { found, routes } = await correlate(store(), app.registry.events, "test", { after: -1, limit: events });
    expect([...routes.values()].flat()).toHaveLength(events);
    expect(found.map((event) => event.id)).toEqual(
      Array.from({ length: KEPT_EVENTS_LIMIT }, (_, i) => events - KEPT_EVENTS_LIMIT + i)
    );
  });

  it("replay a reset stream from its start after earlier drains read past its first events", async () => {
    const { app, handled } = recording(() => ({ target: "audit" }));
    for (let i = 0; i < 3; i++) await app.do("deposit", { stream: "acc", actor }, { amount: i });
    for (let i = 0; i < 3; i++) await app.drain({ eventLimit: 1 });
    expect(handled).toEqual([0, 1, 2]);
    await app.reset("audit");
    while ((await app.drain()).acked.length);
    expect(handled).toEqual([0, 1, 2, 0, 1, 2]);
  });

  it("of the whole log, where the route index cannot vouch for a stream, skip events no reaction listens to", async () => {
    const app = act()
      .with(Account)
      .on("Deposited")
      .do(async () => {})
      .to(() => ({ target: "audit" }))
      .build();
    const meta = { correlation: "c", causation: {} };
    await store().commit({ stream: "acc", messages: [{ name: "Deposited", data: { amount: 1 } }], meta });
    for (let i = 0; i < 50; i++)
      await store().commit({ stream: "acc", messages: [{ name: "Posted", data: { amount: i } }], meta });
    await store().commit({ stream: "acc", messages: [{ name: "Deposited", data: { amount: 2 } }], meta });
    await app.correlate({ after: -1, limit: 10_000 });
    // As when another process correlated further than this one.
    const unknown = vi.spyOn(RouteIndex.prototype, "ids").mockReturnValue(undefined);
    try {
      const read = await eventsRead(async () => {
        const { acked } = await app.drain();
        expect(acked.map((a) => a.stream)).toEqual(["audit"]);
      });
      expect(read.map((e) => e.name)).toEqual(["Deposited", "Deposited"]);
    } finally {
      unknown.mockRestore();
    }
  });
});

describe("a new reaction's backfill", () => {
  /** Posts are ledgered (release 1); release 2 also audits each account's deposits on a stream of its own, with no `source`. */
  const release = (audits: boolean, audited: Map<string, number[]>) => {
    const first = act()
      .with(Account)
      .on("Posted")
      .do(async function ledger() {})
      .to(() => ({ target: "ledger" }));
    if (!audits) return first.build();
    return first
      .on("Deposited")
      .do(async function audit(event, stream) {
        audited.set(stream, [...(audited.get(stream) ?? []), event.data.amount]);
      })
      .to((event) => ({ target: `audit-${event.stream}` }))
      .build();
  };

  it("reads by id the events its discovery found for the streams only its events react into, not pages of the log per drain", async () => {
    const audited = new Map<string, number[]>();
    const old = release(false, audited);
    // 2,000 deposits interleaved over 100 accounts, a post every tenth event.
    for (let i = 0; i < 2_000; i++) {
      await old.do("deposit", { stream: `acc-${i % 100}`, actor }, { amount: i });
      if (i % 10 === 0) await old.do("post", { stream: `acc-${i % 100}`, actor }, { amount: i });
    }
    for (let drained = await old.drain(); drained.acked.length; drained = await old.drain());

    const next = release(true, audited);
    const read = await eventsRead(async () => {
      for (let i = 0, drained = await next.drain(); drained.acked.length && i < 100; i++) drained = await next.drain();
    });
    expect(audited.size).toBe(100);
    for (let a = 0; a < 100; a++)
      expect(audited.get(`audit-acc-${a}`)).toEqual(Array.from({ length: 20 }, (_, k) => a + 100 * k));
    // The discovery's pages read each deposit once; the drains read them by id
    // (most of them kept from discovery's read). Shared pages of the log from
    // the streams' watermarks would read the log's 2,200 events for every ten
    // streams leased: over 20,000.
    expect(read.length).toBeLessThan(2 * 2_000);
  });
});

describe("after the store is dropped or replaced", () => {
  /** An app whose reaction records each deposit, with five deposits already handled. */
  async function handledFive() {
    const { app, handled } = recording((event) => ({ target: `ledger-${event.stream}` }));
    for (let i = 0; i < 5; i++) await app.do("deposit", { stream: `acc-${i}`, actor }, { amount: i });
    while ((await app.drain()).acked.length);
    return { app, handled };
  }

  it("an app built before the drop runs the reactions to events committed after it", async () => {
    const { app, handled } = await handledFive();
    expect(handled).toEqual([0, 1, 2, 3, 4]);

    // The app has read the log up to its fifth event; the log starts over.
    await store().drop();
    await store().seed();
    const [after] = await app.do("deposit", { stream: "acc-new", actor }, { amount: 99 });
    expect(after.event!.id).toBeGreaterThan(4); // ids are never reused
    while ((await app.drain()).acked.length);
    expect(handled).toEqual([0, 1, 2, 3, 4, 99]);
  });

  it("an app that outlives its store reads the next store's log from the start", async () => {
    const { app, handled } = await handledFive();
    await freshStore(); // a new in-memory store: its ids start at 0 again
    await app.do("deposit", { stream: "acc-new", actor }, { amount: 99 });
    while ((await app.drain()).acked.length);
    expect(handled).toEqual([0, 1, 2, 3, 4, 99]);
  });
});

describe("retries", () => {
  it("back off exponentially with jitter, capped", () => {
    const options = { blockOnError: true, maxRetries: 5, retryBaseMillis: 100, retryMaxMillis: 1_000 };
    expect([1, 2, 3, 4, 5].map((retry) => backoff(retry, options, () => 1))).toEqual([100, 200, 400, 800, 1_000]);
    expect(backoff(3, options, () => 0)).toBe(200);
    expect(backoff(1, { blockOnError: true, maxRetries: 3 }, () => 1)).toBe(1_000);
  });

  it("do not busy-poll: a stream waiting for its retry is left alone until the delay passes", async () => {
    let calls = 0;
    const app = act()
      .with(Account)
      .on("Deposited")
      .do(
        async () => {
          calls++;
          throw new Error("down");
        },
        { maxRetries: 5, retryBaseMillis: 400, retryMaxMillis: 400 }
      )
      .build();
    await app.do("deposit", { stream: "a", actor }, { amount: 1 });
    await app.drain();
    expect(calls).toBe(1);
    for (let i = 0; i < 5; i++) expect((await app.drain()).leased).toEqual([]);
    expect(calls).toBe(1);
    await sleep(450); // the delay is 200–400 ms with jitter
    await app.drain();
    expect(calls).toBe(2);
  });
});

describe("recovery", () => {
  it("lists a blocked stream with its error, unblocks it to resume at its watermark, and resets it to replay", async () => {
    let broken = true;
    const seen: number[] = [];
    const app = act()
      .with(Account)
      .on("Deposited")
      .do(
        async function project(event) {
          if (broken && event.data.amount === 2) throw new Error("projection table missing");
          seen.push(event.data.amount);
        },
        { maxRetries: 0 }
      )
      .to("report")
      .build();
    for (const amount of [1, 2, 3]) await app.do("deposit", { stream: "a", actor }, { amount });
    await app.drain();
    const [blocked] = await app.blocked();
    expect(blocked).toMatchObject({ stream: "report", blocked: true, retry: 1 });
    expect(blocked.error).toMatch(
      /Reaction "project" to event "Deposited" #1 on stream "report" failed: projection table missing/
    );
    expect(seen).toEqual([1]);
    expect((await app.drain()).leased).toEqual([]); // blocked streams are not polled

    broken = false;
    expect(await app.unblock("report", "unknown")).toEqual(["report"]);
    expect(await app.blocked()).toEqual([]);
    await app.drain();
    expect(seen).toEqual([1, 2, 3]);

    expect(await app.reset("report")).toEqual(["report"]);
    await app.drain();
    expect(seen).toEqual([1, 2, 3, 1, 2, 3]);
  });

  it("reports each reaction stream's lag and the commit-to-handled latency", async () => {
    const app = act()
      .with(Account)
      .on("Deposited")
      .do(async () => {})
      .to("report")
      .build();
    for (const amount of [1, 2, 3]) await app.do("deposit", { stream: "a", actor }, { amount });
    await app.correlate();
    expect((await app.stats()).streams).toEqual([
      expect.objectContaining({ stream: "report", at: -1, lag: 3, blocked: false }),
    ]);
    await app.drain();
    const { streams, latency } = await app.stats();
    expect(streams).toEqual([expect.objectContaining({ stream: "report", lag: 0 })]);
    expect(latency.count).toBe(3);
    expect(latency.p99).toBeGreaterThanOrEqual(latency.p50);
  });
});

describe("a lost lease", () => {
  it("stops the batch and records nothing when another drainer took the stream", async () => {
    const order: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const app = act()
      .with(Account)
      .on("Deposited")
      .do(async (event) => {
        order.push(event.data.amount);
        if (event.data.amount === 1) await gate;
      })
      .build();
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    for (const amount of [1, 2]) await app.do("deposit", { stream: "a", actor }, { amount });
    const renew = vi.spyOn(store(), "lease");
    const draining = app.drain({ leaseMillis: 60 });
    await vi.waitFor(() => expect(order).toEqual([1]));
    // The store refuses the renewal, as it would after another drainer took the stream.
    renew.mockResolvedValue([]);
    await sleep(80);
    release();
    await draining;
    await vi.waitFor(() => expect(renew).toHaveBeenCalled());
    await sleep(20);
    expect(order).toEqual([1]); // event 2 was not started after the lease was lost
    errors.mockRestore();
  });
});

describe("long leases", () => {
  it("work beyond the longest timer (24.8 days): the drain waits for the handlers instead of giving up at once", async () => {
    const seen: number[] = [];
    const app = act()
      .with(Account)
      .on("Deposited")
      .do(async (event) => {
        await sleep(5);
        seen.push(event.data.amount);
      })
      .build();
    await app.do("deposit", { stream: "a", actor }, { amount: 1 });
    const { acked } = await app.drain({ leaseMillis: 30 * 24 * 3600 * 1000 });
    expect(seen).toEqual([1]);
    expect(acked).toHaveLength(1);
  });
});

describe("a stream with a backlog", () => {
  /** An app that counts the reactions to deposits, each on a ledger stream of its account; `tick` runs in each handler. */
  const ledger = (tick: () => void = () => {}) => {
    const handled: number[] = [];
    const app = act()
      .with(Account)
      .on("Deposited")
      .do(async (event) => {
        tick();
        handled.push(event.id);
      })
      .to((event) => ({ source: event.stream, target: `ledger-${event.stream}` }))
      .build();
    return { app, handled };
  };
  const deposit = async (app: ReturnType<typeof ledger>["app"], count: number) => {
    for (let i = 0; i < count; i++) await app.do("deposit", { stream: "acc", actor }, { amount: i });
  };

  it("goes on past eventLimit while the drain's allowance lasts, in order, and stops at eventLimit without one", async () => {
    const { app, handled } = ledger();
    await deposit(app, 150);
    await app.drain({ backlogMillis: 0 });
    expect(handled).toHaveLength(10);
    // Fast handlers: the backlog is handled in one drain (up to a page of the log).
    const { acked } = await app.drain();
    expect(handled).toHaveLength(150);
    expect(handled).toEqual([...handled].sort((a, b) => a - b));
    expect(new Set(handled).size).toBe(150);
    expect(acked.map((lease) => lease.at)).toEqual([handled[149]]);
  });

  it("stops at the first event after the allowance, once it handled eventLimit, and the next drain goes on from there", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      let step = 30;
      const { app, handled } = ledger(() => vi.setSystemTime(Date.now() + step));
      await deposit(app, 60);
      // 30 ms a handler: the 100 ms allowance is spent before eventLimit (10).
      await app.drain({ eventLimit: 10, backlogMillis: 100 });
      expect(handled).toHaveLength(10);
      // 5 ms a handler: 10 events take 50 ms, 10 more reach the 100 ms.
      step = 5;
      const { acked } = await app.drain({ eventLimit: 10, backlogMillis: 100 });
      expect(handled).toHaveLength(30);
      expect(acked.map((lease) => lease.at)).toEqual([handled[29]]);
      expect(new Set(handled).size).toBe(30);
    } finally {
      vi.useRealTimers();
    }
  });

  it("reads a shared page of the log for a target-only stream's backlog instead of eventLimit events of it per drain", async () => {
    const handled = new Map<string, number>();
    const app = act()
      .with(Account)
      .on("Deposited")
      .do(async (_event, stream) => {
        handled.set(stream, (handled.get(stream) ?? 0) + 1);
      })
      .to((event) => ({ target: `audit-${event.stream}` }))
      .build();
    for (let i = 0; i < 400; i++) await app.do("deposit", { stream: `acc-${i % 4}`, actor }, { amount: i });
    await app.drain();
    expect([...handled.values()]).toEqual([100, 100, 100, 100]);
  });

  it("reads about twice what a stream handled within the last allowance, not a page of its backlog, in the next drain", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      // 30 ms a handler: the 100 ms allowance is spent before eventLimit (10).
      const { app, handled } = ledger(() => vi.setSystemTime(Date.now() + 30));
      await deposit(app, 100);
      const first = await app.drain({ eventLimit: 10, backlogMillis: 100 });
      expect(first.fetched[0].events).toHaveLength(100);
      expect(handled).toHaveLength(10);
      const second = await app.drain({ eventLimit: 10, backlogMillis: 100 });
      expect(second.fetched[0].events.map((event) => event.id)).toEqual(
        first.fetched[0].events.slice(10, 30).map((event) => event.id)
      );
      expect(handled).toHaveLength(20);
      expect(new Set(handled).size).toBe(20);
    } finally {
      vi.useRealTimers();
    }
  });

  it("enlarges a projection's batch only between drains, from what the last one took", async () => {
    const applied: number[] = [];
    const Totals = projection("Totals")
      .with(Account)
      .on("Deposited", (event) => void applied.push(event.id))
      .build();
    const app = act().with(Account).with(Totals).build();
    await deposit(app as never, 35);
    // One transaction per drain: eventLimit first, then twice that after a
    // full batch well inside the (here generous) allowance.
    await app.drain({ eventLimit: 10, backlogMillis: 60_000 });
    expect(applied).toHaveLength(10);
    await app.drain({ eventLimit: 10, backlogMillis: 60_000 });
    expect(applied).toHaveLength(30);
    expect(new Set(applied).size).toBe(30);
  });

  it("keeps a projection's batch at eventLimit without a backlog allowance", async () => {
    const applied: number[] = [];
    const Totals = projection("Totals")
      .with(Account)
      .on("Deposited", (event) => void applied.push(event.id))
      .build();
    const app = act().with(Account).with(Totals).build();
    await deposit(app as never, 35);
    await app.drain({ eventLimit: 10, backlogMillis: 0 });
    expect(applied).toHaveLength(10);
    await app.drain({ eventLimit: 10, backlogMillis: 0 });
    expect(applied).toHaveLength(20);
  });
});

describe("a process that starts with a backlog it did not correlate", () => {
  /** The app of each process: one reaction per deposit, on an audit stream of its account (no source). */
  const audit = (handled: Map<string, number[]>) =>
    act()
      .with(Account)
      .on("Deposited")
      .do(async (event, stream) => {
        handled.set(stream, [...(handled.get(stream) ?? []), event.data.amount]);
      })
      .to((event) => ({ target: `audit-${event.stream}` }))
      .build();

  it("reads each page of the log once, and the streams it leases later take their events from those pages by id", async () => {
    const before = new Map<string, number[]>();
    // 1,000 deposits over 50 accounts in turn: each stream's events are spread over the whole log.
    const first = audit(before);
    for (let i = 0; i < 1_000; i++) await first.do("deposit", { stream: `acc-${i % 50}`, actor }, { amount: i });
    await first.correlate({ after: -1, limit: 10_000 });
    const handled = new Map<string, number[]>();
    const restarted = audit(handled);
    const shared: number[] = [];
    const log = store();
    const query = log.query.bind(log);
    const spy = vi.spyOn(log, "query").mockImplementation((callback, q) =>
      query((event) => {
        // A read of the log for the reactions' events, not of given ids or of a stream.
        if (q?.names && !q.ids && !q.stream) shared.push(event.id);
        callback(event as never);
      }, q)
    );
    try {
      for (let drains = 0; drains < 100; drains++) if (!(await restarted.drain()).acked.length) break;
    } finally {
      spy.mockRestore();
    }
    expect(handled.size).toBe(50);
    for (let account = 0; account < 50; account++)
      expect(handled.get(`audit-acc-${account}`)).toEqual(Array.from({ length: 20 }, (_, i) => account + 50 * i));
    expect(shared.length).toBeGreaterThan(0);
    expect(new Set(shared).size).toBe(shared.length);
  });
});
