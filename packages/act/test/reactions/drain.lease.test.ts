import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { act, type InMemoryStore, projection, state } from "../../src/index.js";
import { logger } from "../../src/core/ports.js";
import type { Lease } from "../../src/types/lease.js";
import { Account, actor, freshStore } from "../fixtures.js";

// What a drain does with its leases while handlers run, driven by fake
// timers so every step is deterministic: renewals, a lease lost or run out,
// a batch that outlives its drain, what is recorded and reported afterwards.

let memory: InMemoryStore;
/** The store's own `lease`, for spies that change only renewals. */
let grant: InMemoryStore["lease"];
const renewal = (leases: Lease[]) => leases[0]?.token !== undefined;

beforeEach(async () => {
  memory = (await freshStore()) as InMemoryStore;
  grant = memory.lease.bind(memory);
  vi.useFakeTimers({ now: 1_000_000 });
  vi.spyOn(logger, "error").mockImplementation(() => {});
  vi.spyOn(logger, "warn").mockImplementation(() => {});
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const deposit = (app: { do: (...args: any[]) => Promise<unknown> }, stream: string, amount: number) =>
  app.do("deposit", { stream, actor }, { amount });

describe("a drain", () => {
  it("leases as many streams as streamLimit allows, half of them the most lagging", async () => {
    const app = act()
      .with(Account)
      .on("Deposited")
      .do(async () => {})
      .build();
    for (const stream of ["a", "b", "c", "d"]) await deposit(app, stream, 1);
    const { leased, fetched } = await app.drain({ streamLimit: 2 });
    expect(leased).toHaveLength(2);
    expect(fetched.map(({ lagging }) => lagging)).toEqual([true, false]);
  });

  it("hands each handler the lease's token, for systems that refuse an older one", async () => {
    const tokens: number[] = [];
    const app = act()
      .with(Account)
      .on("Deposited")
      .do(async (_event, _stream, _app, { token }) => void tokens.push(token))
      .build();
    await deposit(app, "a", 1);
    await app.drain();
    expect(tokens).toEqual([1]);
  });

  it("gives its leases back when it cannot read the events, so another drainer takes them at once", async () => {
    const builder = act()
      .with(Account)
      .on("Deposited")
      .do(async () => {})
      .to("out");
    const first = builder.build();
    const second = builder.build();
    await deposit(first, "a", 1);
    await second.correlate();
    // The read right after the lease fails (discovery's reads before it do not).
    let leased = false;
    vi.spyOn(memory, "lease").mockImplementation(async (leases, millis) => {
      const granted = await grant(leases, millis);
      leased = millis > 0 && granted.length > 0;
      return granted;
    });
    const query = memory.query.bind(memory);
    vi.spyOn(memory, "query").mockImplementation((...args) =>
      leased ? Promise.reject(new Error("connection reset")) : query(...args)
    );
    await expect(first.drain()).rejects.toThrow("connection reset");
    vi.mocked(memory.query).mockRestore();
    expect((await second.drain()).acked).toEqual([expect.objectContaining({ stream: "out", at: 0 })]);
  });

  it("reports the commit-to-handled latency of the reactions it ran: count, p50, p99 and max", async () => {
    const app = act()
      .with(Account)
      .on("Deposited")
      .do(async () => {})
      .to("out")
      .build();
    expect((await app.stats()).latency).toEqual({ count: 0, p50: 0, p99: 0, max: 0 });
    const start = Date.now();
    for (const [i, amount] of [1, 2, 3].entries()) {
      vi.setSystemTime(start + i * 10);
      await deposit(app, "a", amount);
    }
    vi.setSystemTime(start + 50);
    await app.drain();
    expect((await app.stats()).latency).toEqual({ count: 3, p50: 40, p99: 50, max: 50 });
    expect(logger.error).not.toHaveBeenCalled();
  });
});

describe("a lease kept while handlers run", () => {
  it("is renewed every third of its length, and no more once the batch is done", async () => {
    const app = act()
      .with(Account)
      .on("Deposited")
      .do(() => new Promise<void>((resolve) => setTimeout(resolve, 250)))
      .build();
    await deposit(app, "a", 1);
    await app.correlate();
    const leases = vi.spyOn(memory, "lease");
    const draining = app.drain({ leaseMillis: 300 });
    await vi.advanceTimersByTimeAsync(250);
    const { acked } = await draining;
    expect(acked).toHaveLength(1);
    expect(leases.mock.calls.filter(([l]) => renewal(l))).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(leases.mock.calls.filter(([l]) => renewal(l))).toHaveLength(2);
    expect(logger.error).not.toHaveBeenCalled();
  });

  it("is renewed before the next handler when less than half of it is left, which then starts", async () => {
    const seen: number[] = [];
    const app = act()
      .with(Account)
      .on("Deposited")
      .do(async (event) => {
        seen.push(event.data.amount);
        vi.setSystemTime(Date.now() + 200); // a long synchronous step: no timer ran meanwhile
      })
      .build();
    for (const amount of [1, 2]) await deposit(app, "a", amount);
    await app.correlate();
    const leases = vi.spyOn(memory, "lease");
    const { acked } = await app.drain({ leaseMillis: 300 });
    expect(seen).toEqual([1, 2]);
    expect(leases.mock.calls.filter(([l]) => renewal(l)).length).toBeGreaterThanOrEqual(1);
    expect(acked).toEqual([expect.objectContaining({ stream: "a", at: 1 })]);
  });

  it("starts no further handler once the store refuses the renewal", async () => {
    const seen: number[] = [];
    const app = act()
      .with(Account)
      .on("Deposited")
      .do(async (event) => {
        seen.push(event.data.amount);
        vi.setSystemTime(Date.now() + 200);
      })
      .build();
    for (const amount of [1, 2]) await deposit(app, "a", amount);
    await app.correlate();
    vi.spyOn(memory, "lease").mockImplementation((leases, millis) =>
      renewal(leases) ? Promise.resolve([]) : grant(leases, millis)
    );
    const { acked } = await app.drain({ leaseMillis: 300 });
    expect(seen).toEqual([1]);
    expect(acked).toEqual([expect.objectContaining({ stream: "a", at: 0 })]);
    expect(logger.error).toHaveBeenCalledWith(expect.stringContaining('lease of reaction stream "a" was lost'));
  });

  it("says what a renewal failed with, whatever the store threw", async () => {
    const signals: AbortSignal[] = [];
    const app = act()
      .with(Account)
      .on("Deposited")
      .do(async (_event, _stream, _app, { signal }) => {
        signals.push(signal);
        vi.setSystemTime(Date.now() + 200);
      })
      .build();
    for (const amount of [1, 2]) await deposit(app, "a", amount);
    await app.correlate();
    vi.spyOn(memory, "lease").mockImplementation((leases, millis) =>
      renewal(leases) ? Promise.reject(undefined) : grant(leases, millis)
    );
    await app.drain({ leaseMillis: 300 });
    expect(signals).toHaveLength(1);
    expect((signals[0].reason as Error).message).toMatch(
      /could not be renewed; stopping after the current handler: undefined$/
    );
  });

  it("starts no further handler once a renewal fails, and aborts the handlers' signal saying why", async () => {
    const seen: number[] = [];
    const signals: AbortSignal[] = [];
    const app = act()
      .with(Account)
      .on("Deposited")
      .do(async (event, _stream, _app, { signal }) => {
        seen.push(event.data.amount);
        signals.push(signal);
        vi.setSystemTime(Date.now() + 200);
      })
      .build();
    for (const amount of [1, 2]) await deposit(app, "a", amount);
    await app.correlate();
    vi.spyOn(memory, "lease").mockImplementation((leases, millis) =>
      renewal(leases) ? Promise.reject(new Error("connection reset")) : grant(leases, millis)
    );
    await app.drain({ leaseMillis: 300 });
    expect(seen).toEqual([1]);
    expect(signals.map((signal) => signal.aborted && (signal.reason as Error).message)).toEqual([
      'lease of reaction stream "a" could not be renewed; stopping after the current handler: connection reset',
    ]);
  });

  it("is lost at its deadline when no renewal answers (a paused process or a hung store), aborting the handler", async () => {
    const seen: number[] = [];
    const reasons: unknown[] = [];
    const app = act()
      .with(Account)
      .on("Deposited")
      .do(async (event, _stream, _app, { signal }) => {
        seen.push(event.data.amount);
        await new Promise((resolve) => setTimeout(resolve, 400));
        reasons.push(signal.aborted && (signal.reason as Error).message);
      })
      .build();
    for (const amount of [1, 2]) await deposit(app, "a", amount);
    await app.correlate();
    vi.spyOn(memory, "lease").mockImplementation((leases, millis) =>
      renewal(leases) ? new Promise<Lease[]>(() => {}) : grant(leases, millis)
    );
    const draining = app.drain({ leaseMillis: 300 });
    await vi.advanceTimersByTimeAsync(400);
    await draining;
    await vi.advanceTimersByTimeAsync(1);
    expect(seen).toEqual([1]);
    expect(reasons).toEqual([
      expect.stringContaining('lease of reaction stream "a" passed its deadline without a renewal'),
    ]);
  });
});

describe("a batch that outlives its drain", () => {
  it("keeps its stream from this process's next drains until it settles, even once the lease ran out", async () => {
    const seen: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const app = act()
      .with(Account)
      .on("Deposited")
      .do(async (event) => {
        seen.push(event.data.amount);
        if (event.data.amount === 1) await gate;
      })
      .to("out")
      .build();
    const reported: string[] = [];
    app.on("acked", (leases) => reported.push(...leases.map(({ stream, at }) => `${stream}@${at}`)));
    await deposit(app, "a", 1);
    await app.correlate();
    vi.spyOn(memory, "lease").mockImplementation((leases, millis) =>
      renewal(leases) ? Promise.reject(new Error("connection reset")) : grant(leases, millis)
    );
    const draining = app.drain({ leaseMillis: 60 });
    await vi.advanceTimersByTimeAsync(60);
    expect(await draining).toMatchObject({ acked: [], blocked: [] });
    await vi.advanceTimersByTimeAsync(100); // the store's lease has run out
    expect((await app.drain({ leaseMillis: 60 })).leased).toEqual([]);
    expect(seen).toEqual([1]);
    release();
    await vi.waitFor(() => expect(reported).toEqual(["out@0"]));
    expect(logger.warn).toHaveBeenCalledWith(
      expect.stringContaining('reactions on stream "out" still run after 60 ms')
    );
    vi.mocked(memory.lease).mockRestore();
    await deposit(app, "a", 2);
    await app.drain();
    expect(seen).toEqual([1, 2]);
  });
});

describe("what a drain records", () => {
  const Resettable = (fail: boolean, started: () => void, gate: Promise<void>) =>
    act()
      .with(Account)
      .on("Deposited")
      .do(
        async () => {
          started();
          await gate;
          if (fail) throw new Error("down");
        },
        { maxRetries: 0 }
      )
      .to("out")
      .build();

  for (const fail of [false, true])
    it(`logs ${fail ? "a block" : "an acknowledgement"} the store refused because the stream was reset meanwhile`, async () => {
      let release!: () => void;
      let running = false;
      const app = Resettable(fail, () => (running = true), new Promise<void>((resolve) => (release = resolve)));
      await deposit(app, "a", 1);
      const draining = app.drain();
      await vi.waitFor(() => expect(running).toBe(true));
      expect(await app.reset("out")).toEqual(["out"]);
      release();
      const { acked, blocked } = await draining;
      expect([acked, blocked]).toEqual([[], []]);
      expect(logger.error).toHaveBeenCalledWith(
        expect.stringContaining('reaction stream "out" was reset, unblocked, leased by another drainer')
      );
    });
});

describe("a blocked stream", () => {
  it("is reported blocked, not acknowledged, even when events before the failing one were handled", async () => {
    const app = act()
      .with(Account)
      .on("Deposited")
      .do(
        async (event) => {
          if (event.data.amount === 2) throw new Error("down");
        },
        { maxRetries: 0 }
      )
      .to("out")
      .build();
    for (const amount of [1, 2]) await deposit(app, "a", amount);
    const { acked, blocked } = await app.drain();
    expect(acked).toEqual([]);
    expect(blocked).toEqual([expect.objectContaining({ stream: "out", at: 0 })]);
    // The handler's failure is logged; the block itself was recorded, not refused.
    expect(vi.mocked(logger.error).mock.calls.map(([, message]) => message ?? "")).toEqual([
      expect.stringContaining("failed: down"),
    ]);
  });
});

describe("a projection's drain", () => {
  const Ticket = state("Ticket", z.object({ title: z.string() }))
    .init(() => ({ title: "" }))
    .emits({ Opened: z.object({ title: z.string() }) })
    .patch({ Opened: (e) => ({ title: e.data.title }) })
    .on("open", z.object({ title: z.string() }))
    .emit(({ title }) => ["Opened", { title }])
    .build();
  const open = (app: { do: (...args: any[]) => Promise<unknown> }, stream: string, title: string) =>
    app.do("open", { stream, actor }, { title });

  const tickets = (failOn?: string) =>
    projection("Tickets", { maxRetries: 3, retryBaseMillis: 0, retryMaxMillis: 0 })
      .with(Ticket)
      .on("Opened", (event) => {
        if (event.data.title === failOn) throw new Error("not yet");
      })
      .build();

  it("reports the projection's stream as acknowledged at its last event, and counts the latency", async () => {
    const p = tickets();
    const app = act().with(Ticket).with(p).build();
    await open(app, "t-1", "first");
    await open(app, "t-2", "second");
    expect((await app.drain()).acked).toEqual([expect.objectContaining({ stream: p.stream, at: 1 })]);
    expect((await app.stats()).latency.count).toBe(2);
    expect(logger.error).toHaveBeenCalledTimes(0);
  });

  it("applies nothing when its lease is lost before the projection starts", async () => {
    const applied: string[] = [];
    const p = projection("Tickets")
      .with(Ticket)
      .on("Opened", (event) => void applied.push(event.data.title))
      .build();
    const app = act().with(Ticket).with(p).build();
    await open(app, "t-1", "first");
    await app.correlate();
    // The drain is paused right after its lease (past half of it), and the renewal is refused.
    vi.spyOn(memory, "lease").mockImplementation(async (leases, millis) => {
      if (renewal(leases)) return [];
      const granted = await grant(leases, millis);
      vi.setSystemTime(Date.now() + 200);
      return granted;
    });
    expect((await app.drain({ leaseMillis: 300 })).acked).toEqual([]);
    expect(applied).toEqual([]);
  });

  it("applies nothing and reports nothing when an operator reset the stream before the projection ran", async () => {
    const applied: string[] = [];
    const p = projection("Tickets")
      .with(Ticket)
      .on("Opened", (event) => void applied.push(event.data.title))
      .build();
    const app = act().with(Ticket).with(p).build();
    await open(app, "t-1", "first");
    await app.correlate();
    vi.spyOn(memory, "lease").mockImplementation(async (leases, millis) => {
      const granted = await grant(leases, millis);
      if (millis > 0 && !renewal(leases)) await memory.reset([p.stream]);
      return granted;
    });
    const { acked, blocked } = await app.drain();
    expect([acked, blocked]).toEqual([[], []]);
    expect(applied).toEqual([]);
  });

  it("reports progress up to a failing event when events before it were applied, and none when the first fails", async () => {
    const p = tickets("second");
    const app = act().with(Ticket).with(p).build();
    await open(app, "t-1", "first");
    await open(app, "t-2", "second");
    expect((await app.drain()).acked).toEqual([expect.objectContaining({ stream: p.stream, at: 0 })]);
    await vi.advanceTimersByTimeAsync(1);
    expect((await app.drain()).acked).toEqual([]);
  });
});
