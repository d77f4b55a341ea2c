import { beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { act, type Committed, type Schemas, sleep, state, store, ZodEmpty } from "../src/index.js";
import { actor, Counter, freshStore } from "./fixtures.js";

beforeEach(async () => {
  await freshStore();
});

/** Drains until several drains in a row find nothing to do (waiting out short retry delays). */
async function settle(
  app: { drain: (o?: any) => Promise<{ acked: unknown[]; blocked: unknown[] }> },
  options?: object
) {
  let idle = 0;
  for (let i = 0; i < 500; i++) {
    const { acked, blocked } = await app.drain(options);
    if (acked.length || blocked.length) idle = 0;
    else if (++idle >= 5) return;
    else await sleep(5);
  }
  throw new Error("drain did not settle");
}

describe("reactions", () => {
  /** Order → Payment → Shipment: two reactions chained across three streams. */
  const Order = state("Order", z.object({ placed: z.boolean() }))
    .init(() => ({ placed: false }))
    .emits({ OrderPlaced: z.object({ total: z.number() }) })
    .patch({ OrderPlaced: () => ({ placed: true }) })
    .on("placeOrder", z.object({ total: z.number() }))
    .emit(({ total }) => ["OrderPlaced", { total }])
    .build();
  const Payment = state("Payment", z.object({ paid: z.number() }))
    .init(() => ({ paid: 0 }))
    .emits({ PaymentTaken: z.object({ amount: z.number(), order: z.string() }) })
    .patch({ PaymentTaken: (e) => ({ paid: e.data.amount }) })
    .on("takePayment", z.object({ amount: z.number(), order: z.string() }))
    .emit((p) => ["PaymentTaken", p])
    .build();
  const Shipment = state("Shipment", z.object({ shipped: z.boolean() }))
    .init(() => ({ shipped: false }))
    .emits({ Shipped: z.object({ order: z.string() }) })
    .patch({ Shipped: () => ({ shipped: true }) })
    .on("ship", z.object({ order: z.string() }))
    .emit(({ order }) => ["Shipped", { order }])
    .build();

  let app: ReturnType<typeof build>;
  beforeEach(() => {
    app = build();
  });
  const build = () =>
    act()
      .with(Order)
      .with(Payment)
      .with(Shipment)
      .on("OrderPlaced")
      .do(async function pay(event, _stream, app) {
        await app.do(
          "takePayment",
          { stream: `payment-${event.stream}`, actor },
          { amount: event.data.total, order: event.stream },
          { reactingTo: event }
        );
      })
      .on("PaymentTaken")
      .do(async function ship(event, _stream, app) {
        await app.do(
          "ship",
          { stream: `shipment-${event.data.order}`, actor },
          { order: event.data.order },
          { reactingTo: event }
        );
      })
      .build();

  it("runs two chained reactions across three streams with correlation and causation on every event", async () => {
    const [placed] = await app.do("placeOrder", { stream: "order-1", actor }, { total: 42 });
    await settle(app);
    const events = await app.queryArray({});
    expect(events.map((e) => [e.stream, e.name])).toEqual([
      ["order-1", "OrderPlaced"],
      ["payment-order-1", "PaymentTaken"],
      ["shipment-order-1", "Shipped"],
    ]);
    const correlation = placed.event!.meta.correlation;
    expect(events.every((e) => e.meta.correlation === correlation)).toBe(true);
    const [order, payment, shipment] = events;
    expect(order.meta.causation).toEqual({ action: { name: "placeOrder", stream: "order-1", actor } });
    expect(payment.meta.causation).toEqual({
      action: { name: "takePayment", stream: "payment-order-1", actor },
      event: { id: order.id, name: "OrderPlaced", stream: "order-1" },
    });
    expect(shipment.meta.causation).toEqual({
      action: { name: "ship", stream: "shipment-order-1", actor },
      event: { id: payment.id, name: "PaymentTaken", stream: "payment-order-1" },
    });
    expect(await app.query({ correlation })).toMatchObject({ count: 3 });
  });

  it("reports fetched, leased and acked, emits acked, and handles each event once", async () => {
    const acked: string[] = [];
    app.on("acked", (leases) => acked.push(...leases.map((l) => l.stream)));
    await app.do("placeOrder", { stream: "order-2", actor }, { total: 1 });
    const first = await app.drain();
    expect(first.fetched.map((f) => [f.stream, f.events.length])).toEqual([["order-2", 1]]);
    expect(first.leased.map((l) => l.stream)).toEqual(["order-2"]);
    expect(first.acked).toEqual([
      expect.objectContaining({ stream: "order-2", at: first.fetched[0].events[0].id, retry: 0 }),
    ]);
    expect(acked).toEqual(["order-2"]);
    await settle(app);
    expect(await app.drain()).toEqual({ fetched: [], leased: [], acked: [], blocked: [] });
    expect((await app.queryArray({ names: ["PaymentTaken"] })).length).toBe(1);
  });

  it("runs one drain at a time per app", async () => {
    await app.do("placeOrder", { stream: "order-3", actor }, { total: 1 });
    const [a, b] = await Promise.all([app.drain(), app.drain()]);
    expect([a.acked.length, b.acked.length].sort()).toEqual([0, 1]);
  });
});

describe("failing reactions", () => {
  const Thing = state("Thing", z.object({ n: z.number() }))
    .init(() => ({ n: 0 }))
    .emits({ Happened: z.object({ i: z.number() }) })
    .patch({ Happened: (_, s) => ({ n: s.n + 1 }) })
    .on("happen", z.object({ i: z.number() }))
    .emit(({ i }) => ["Happened", { i }])
    .build();

  /** Fast retries for tests: 1–2 ms apart. */
  const quick = { retryBaseMillis: 2, retryMaxMillis: 2 };

  it("retries after a backoff, then blocks the stream after maxRetries retries and emits blocked", async () => {
    const calls: number[] = [];
    const app = act()
      .with(Thing)
      .on("Happened")
      .do(
        async function fails(event) {
          calls.push(event.data.i);
          if (event.data.i === 2) throw new Error("downstream is down");
        },
        { maxRetries: 2, ...quick }
      )
      .build();
    const blockedSeen = vi.fn();
    app.on("blocked", blockedSeen);
    for (const i of [1, 2, 3]) await app.do("happen", { stream: "t", actor }, { i });
    const results = [];
    for (let i = 0; i < 4; i++) {
      results.push(await app.drain());
      await sleep(5);
    }
    // Only real progress counts as acknowledged: event 1, in the first drain.
    expect(results.map((r) => r.acked.map((a) => [a.retry, a.at]))).toEqual([[[1, 0]], [], [], []]);
    expect(results[2].blocked).toEqual([
      expect.objectContaining({
        stream: "t",
        at: 0,
        retry: 3,
        error: expect.stringMatching(
          /Reaction "fails" to event "Happened" #1 on stream "t" failed: downstream is down/
        ),
      }),
    ]);
    // event 1 handled once, event 2 tried 1 + maxRetries times, event 3 never
    expect(calls).toEqual([1, 2, 2, 2]);
    expect(blockedSeen).toHaveBeenCalledTimes(1);
  });

  it("skips the failing event after maxRetries when blockOnError is off", async () => {
    const handled: number[] = [];
    const app = act()
      .with(Thing)
      .on("Happened")
      .do(
        async (event) => {
          if (event.data.i === 1) throw new Error("bad event");
          handled.push(event.data.i);
        },
        { blockOnError: false, maxRetries: 1, ...quick }
      )
      .build();
    await app.do("happen", { stream: "t", actor }, { i: 1 });
    await app.do("happen", { stream: "t", actor }, { i: 2 });
    await settle(app);
    expect(handled).toEqual([2]);
  });

  it("counts retries per event: an event that fails after one that needed retries starts at zero", async () => {
    const attempts = new Map<number, number>();
    const app = act()
      .with(Thing)
      .on("Happened")
      .do(
        async (event) => {
          const n = (attempts.get(event.data.i) ?? 0) + 1;
          attempts.set(event.data.i, n);
          if (n <= 2) throw new Error(`attempt ${n} fails`);
        },
        { maxRetries: 2, ...quick }
      )
      .build();
    const blocked = vi.fn();
    app.on("blocked", blocked);
    for (const i of [1, 2, 3]) await app.do("happen", { stream: "t", actor }, { i });
    await settle(app);
    expect([...attempts]).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    expect(blocked).not.toHaveBeenCalled();
  });

  it("retries only the reaction that failed when another reaction to the same event succeeded", async () => {
    const calls: string[] = [];
    let failures = 1;
    const app = act()
      .with(Thing)
      .on("Happened")
      .do(async function first(event) {
        calls.push(`first ${event.data.i}`);
      }, quick)
      .on("Happened")
      .do(async function second(event) {
        calls.push(`second ${event.data.i}`);
        if (failures-- > 0) throw new Error("flaky");
      }, quick)
      .build();
    await app.do("happen", { stream: "t", actor }, { i: 1 });
    await app.do("happen", { stream: "t", actor }, { i: 2 });
    await settle(app);
    expect(calls).toEqual(["first 1", "second 1", "second 1", "first 2", "second 2"]);
  });

  it("keeps a slow handler's stream leased past leaseMillis, so no other drainer runs it twice", async () => {
    let calls = 0;
    const build = () =>
      act()
        .with(Thing)
        .on("Happened")
        .do(async () => {
          calls++;
          await sleep(600);
        })
        .build();
    const [one, two] = [build(), build()];
    const acked = vi.fn();
    one.on("acked", acked);
    await one.do("happen", { stream: "t", actor }, { i: 1 });
    const first = await one.drain({ leaseMillis: 120 });
    expect(first.leased).toHaveLength(1);
    expect(first.acked).toEqual([]); // still running: reported later
    for (let i = 0; i < 10; i++) {
      expect((await two.drain({ leaseMillis: 120 })).leased).toEqual([]);
      expect((await one.drain({ leaseMillis: 120 })).leased).toEqual([]);
      await sleep(40);
    }
    await vi.waitFor(() => expect(acked).toHaveBeenCalledWith([expect.objectContaining({ stream: "t", at: 0 })]));
    await settle(two);
    expect(calls).toBe(1);
  });

  it("leaves a stream leased by another drainer alone until the lease expires", async () => {
    const handled = vi.fn(async () => {});
    const build = () => act().with(Thing).on("Happened").do(handled).build();
    const [one, two] = [build(), build()];
    await one.do("happen", { stream: "t", actor }, { i: 1 });
    await one.correlate();
    await store().lease([{ stream: "t", by: "someone-else", at: 0, retry: 0 }], 100);
    expect((await two.drain()).acked).toEqual([]);
    expect(handled).not.toHaveBeenCalled();
    await sleep(150);
    expect((await two.drain()).acked).toHaveLength(1);
    expect(handled).toHaveBeenCalledTimes(1);
  });
});

describe("resolvers and correlation", () => {
  const Note = state("Note", z.object({ text: z.string() }))
    .init(() => ({ text: "" }))
    .emits({ Written: z.object({ text: z.string() }), Archived: ZodEmpty })
    .patch({ Written: (e) => ({ text: e.data.text }), Archived: () => ({ text: "" }) })
    .on("write", z.object({ text: z.string() }))
    .emit(({ text }) => ["Written", { text }])
    .on("archive", ZodEmpty)
    .emit(() => ["Archived", {}])
    .build();

  it("routes to a static stream, a resolved stream, or nowhere", async () => {
    const seen: Array<[string, string]> = [];
    const record = (label: string) => async (e: Committed<Schemas, string>, stream: string) => {
      seen.push([label, `${stream}<-${e.stream}`]);
    };
    const app = act()
      .with(Note)
      .on("Written")
      .do(record("audit"), { name: "audit" })
      .to("audit")
      .on("Written")
      .do(record("mirror"), { name: "mirror" })
      .to((e) => ({ target: `mirror-${e.stream}`, source: e.stream }))
      .on("Archived")
      .do(record("never"), { name: "never" })
      .void()
      .build();
    await app.do("write", { stream: "n1", actor }, { text: "a" });
    await app.do("write", { stream: "n2", actor }, { text: "b" });
    await app.do("archive", { stream: "n2", actor }, {});
    await settle(app);
    expect(seen.sort()).toEqual([
      ["audit", "audit<-n1"],
      ["audit", "audit<-n2"],
      ["mirror", "mirror-n1<-n1"],
      ["mirror", "mirror-n2<-n2"],
    ]);
  });

  it("correlate registers target streams once and reports the last id scanned", async () => {
    const app = act()
      .with(Note)
      .on("Written")
      .do(async () => {})
      .to((e) => ({ target: `t-${e.data.text}` }))
      .build();
    await app.do("write", { stream: "n", actor }, { text: "x" });
    await app.do("write", { stream: "n", actor }, { text: "y" });
    const first = await app.correlate();
    expect(first.leased.map((l) => l.stream).sort()).toEqual(["t-x", "t-y"]);
    expect(first.lastId).toBe(1);
    expect(await app.correlate()).toEqual({ leased: [], lastId: 1, behind: false });
    expect((await store().poll({ lagging: 10, leading: 10 })).map((p) => [p.stream, p.at]).sort()).toEqual([
      ["t-x", -1],
      ["t-y", 0],
    ]);
  });

  it("registers a stream that reactions from two source streams target without a source, so its drain reads both", async () => {
    const seen: string[] = [];
    const app = act()
      .with(Note)
      .on("Written")
      .do(async (e) => void seen.push(`${e.stream}:${e.data.text}`))
      .to((e) => ({ target: "digest", source: e.stream }))
      .build();
    await app.do("write", { stream: "n1", actor }, { text: "x" });
    await app.do("write", { stream: "n2", actor }, { text: "y" });
    const { leased } = await app.correlate();
    expect(leased.map((l) => [l.stream, l.source])).toEqual([["digest", undefined]]);
    await settle(app);
    expect(seen).toEqual(["n1:x", "n2:y"]);
  });

  it("startCorrelations registers streams on a timer until stopped", async () => {
    const app = act()
      .with(Note)
      .on("Written")
      .do(async () => {})
      .to("audit")
      .build();
    const callback = vi.fn();
    expect(app.startCorrelations({ intervalMillis: 20, onCorrelated: callback })).toBe(true);
    expect(app.startCorrelations({ intervalMillis: 20 })).toBe(false);
    await app.do("write", { stream: "n", actor }, { text: "x" });
    await vi.waitFor(() => expect(callback).toHaveBeenCalledWith([expect.objectContaining({ stream: "audit" })]));
    app.stopCorrelations();
    await app.do("write", { stream: "n", actor }, { text: "y" });
    await sleep(60);
    expect(callback).toHaveBeenCalledTimes(1);
  });
});

describe("the act builder", () => {
  it("counts a state added twice once", async () => {
    const app = act().with(Counter).with(Counter).build();
    expect(Object.keys(app.registry.actions)).toEqual(["increment", "tag", "reset"]);
  });

  it("throws when two states share an action or an event name", () => {
    const Twin = state("Twin", z.object({}))
      .init(() => ({}))
      .emits({ Other: ZodEmpty })
      .patch({ Other: () => ({}) })
      .on("increment", z.object({ by: z.number() }))
      .emit(() => ["Other", {}])
      .build();
    expect(() => act().with(Counter).with(Twin)).toThrow(
      'Action "increment" of state "Twin" is already handled by state "Counter"'
    );
    const Echo = state("Echo", z.object({}))
      .init(() => ({}))
      .emits({ Incremented: z.object({ by: z.number() }) })
      .patch({ Incremented: () => ({}) })
      .on("echo", ZodEmpty)
      .emit(() => ["Incremented", { by: 1 }])
      .build();
    expect(() => act().with(Counter).with(Echo)).toThrow(
      'Event "Incremented" of state "Echo" is already emitted by state "Counter"'
    );
  });

  it("applies reaction option defaults", () => {
    const app = act()
      .with(Counter)
      .on("Incremented")
      .do(async () => {})
      .build();
    const [reaction] = app.registry.events.Incremented.reactions.values();
    expect(reaction.options).toEqual({ blockOnError: true, maxRetries: 3 });
  });
});

describe("the state builder", () => {
  it("throws on a duplicate action name", () => {
    const builder = state("S", z.object({}))
      .init(() => ({}))
      .emits({ E: ZodEmpty })
      .patch({ E: () => ({}) })
      .on("go", ZodEmpty)
      .emit(() => ["E", {}]);
    expect(() => (builder as any).on("go", ZodEmpty)).toThrow('Duplicate action "go" in state "S"');
  });

  it("builds the state with its schemas, handlers, invariants and snap rule", () => {
    const rule = () => true;
    const built = state("S", z.object({ n: z.number() }))
      .init(() => ({ n: 1 }))
      .emits({ E: ZodEmpty })
      .patch({ E: () => ({}) })
      .on("go", ZodEmpty)
      .given([{ description: "d", valid: () => true }])
      .emit(() => ["E", {}])
      .snap(rule)
      .build();
    expect(built.name).toBe("S");
    expect(built.init()).toEqual({ n: 1 });
    expect(Object.keys(built.actions)).toEqual(["go"]);
    expect(built.given.go?.[0].description).toBe("d");
    expect(built.snap).toBe(rule);
  });
});

describe("stats", () => {
  /** The counter with one reaction posting each increment to `ledger-<stream>`: a new app each call, as a new process. */
  const ledgers = () =>
    act()
      .with(Counter)
      .on("Incremented")
      .do(async () => {})
      .to((event) => ({ target: `ledger-${event.stream}` }));

  it("reads the log once for every stream with work, however many streams there are — or not at all in the app that correlated them", async () => {
    const memory = store();
    const build = () =>
      ledgers()
        .on("Tagged")
        .do(async () => {})
        .to((event) => ({ target: `tags-${event.stream}`, source: event.stream }))
        .build();
    const app = build();
    // Another process showing the same app's stats, which never correlated.
    const dashboard = build();
    for (let i = 0; i < 40; i++) await app.do("increment", { stream: `c-${i % 20}`, actor }, { by: 1 });
    await app.do("tag", { stream: "c-3", actor }, { tags: ["a", "b"] });
    await app.correlate();
    // The first ten ledgers catch up; the rest keep their work.
    for (let i = 0; i < 30; i++) await app.drain({ streamLimit: 10 });
    await app.do("increment", { stream: "c-0", actor }, { by: 1 });
    await app.do("tag", { stream: "c-5", actor }, { tags: ["c"] });
    await app.correlate();
    const reads = vi.spyOn(memory, "query");
    // Besides the lags' read, one of the log's last event (how far discovery is behind).
    const lagReads = () => reads.mock.calls.filter(([, q]) => !(q?.backward && q.limit === 1));
    const { streams } = await dashboard.stats();
    expect(lagReads()).toHaveLength(1);
    expect(reads).toHaveBeenCalledTimes(2);
    reads.mockClear();
    // The app that correlated counts its streams without a source from what
    // it remembers; the one with a source still takes the read.
    const own = await app.stats();
    expect(lagReads()).toHaveLength(1);
    expect(lagReads()[0][1]).toMatchObject({ after: streams.find((s) => s.stream === "tags-c-5")!.at });
    reads.mockRestore();
    expect(own.streams.map((s) => [s.stream, s.lag])).toEqual(streams.map((s) => [s.stream, s.lag]));
    // Each lag is what routing the log says is left after that stream's watermark.
    for (const s of streams) {
      let expected = 0;
      await memory.query((event) => {
        if (event.id <= s.at) return;
        if (event.name === "Incremented" && s.stream === `ledger-${event.stream}`) expected++;
        if (event.name === "Tagged" && s.stream === `tags-${event.stream}`) expected++;
      });
      expect({ stream: s.stream, lag: s.lag }).toEqual({ stream: s.stream, lag: expected });
    }
    expect(streams.some((s) => s.lag === 0)).toBe(true);
  });

  it("reads 1,000 events by default for the lags; a larger lagLimit counts further behind; the app that correlated counts all", async () => {
    const build = () =>
      act()
        .with(Counter)
        .on("Incremented")
        .do(async () => {})
        .to(() => ({ target: "ledger" }))
        .build();
    const app = build();
    const dashboard = build();
    const meta = { correlation: "c", causation: {} };
    for (let i = 0; i < 15; i++)
      await store().commit({
        stream: "c",
        messages: Array.from({ length: 100 }, () => ({ name: "Incremented", data: { by: 1 } })),
        meta,
      });
    await app.correlate({ after: -1, limit: 10_000 });
    expect((await dashboard.stats()).streams.map((s) => [s.stream, s.lag])).toEqual([["ledger", 1_000]]);
    expect((await dashboard.stats(5_000)).streams.map((s) => [s.stream, s.lag])).toEqual([["ledger", 1_500]]);
    expect((await app.stats()).streams.map((s) => [s.stream, s.lag])).toEqual([["ledger", 1_500]]);
  });

  it("counts an event once per stream however many of its reactions go there", async () => {
    const app = act()
      .with(Counter)
      .on("Incremented")
      .do(async () => {})
      .to(() => ({ target: "ledger" }))
      .on("Incremented")
      .do(async function second() {})
      .to(() => ({ target: "ledger" }))
      .build();
    for (let i = 0; i < 3; i++) await app.do("increment", { stream: "c", actor }, { by: 1 });
    await app.correlate();
    expect((await app.stats()).streams.map((s) => [s.stream, s.lag])).toEqual([["ledger", 3]]);
  });

  it("counts a stream whose work lies beyond the read as at least 1", async () => {
    const build = () => ledgers().build();
    const app = build();
    for (let i = 0; i < 5; i++) await app.do("increment", { stream: `c-${i}`, actor }, { by: 1 });
    await app.correlate();
    const { streams } = await build().stats(1);
    expect(streams.map((s) => [s.stream, s.lag]).sort()).toEqual([
      ["ledger-c-0", 1],
      ["ledger-c-1", 1],
      ["ledger-c-2", 1],
      ["ledger-c-3", 1],
      ["ledger-c-4", 1],
    ]);
  });
});
