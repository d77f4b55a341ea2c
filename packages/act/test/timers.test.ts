/**
 * Timers through an app: a deadline set by a reaction and cancelled by
 * another when the event it waits for arrives first, the checks made when a
 * timer is scheduled, and how a timer's action that fails is recorded.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  type Act,
  act,
  BuilderError,
  disposeAndExit,
  InMemoryStore,
  state,
  type Store,
  ValidationError,
} from "../src/index.js";
import { settle, testClock } from "../src/testing/index.js";

process.env.LOG_LEVEL ??= "fatal";

const agent = { id: "ada", name: "Ada" };
const bot = { id: "bot", name: "Escalation bot" };
const HOUR = 3_600_000;

const Ticket = state("Ticket", z.object({ status: z.enum(["new", "open", "answered", "escalated"]) }))
  .init(() => ({ status: "new" as const }))
  .emits({
    Opened: z.object({ title: z.string() }),
    Answered: z.object({ by: z.string() }),
    Escalated: z.object({ level: z.number().int() }),
  })
  .patch({
    Opened: () => ({ status: "open" as const }),
    Answered: () => ({ status: "answered" as const }),
    Escalated: () => ({ status: "escalated" as const }),
  })
  .on("open", z.object({ title: z.string() }))
  .emit(({ title }) => ["Opened", { title }])
  .on("answer", z.object({ by: z.string() }))
  .emit(({ by }) => ["Answered", { by }])
  .on("escalate", z.object({ level: z.number().int().positive() }))
  .given([{ description: "only an open ticket is escalated", valid: (s) => s.status === "open" }])
  .emit(({ level }) => ["Escalated", { level }])
  .build();

/** The support workflow: a 4-hour deadline when a ticket opens, cancelled when it is answered. */
function build(clock = testClock(), bound?: Store) {
  return act()
    .with(Ticket)
    .on("Opened")
    .do(async function deadline(event, _stream, app) {
      await app.schedule({
        id: `escalate-${event.stream}`,
        action: "escalate",
        target: { stream: event.stream, actor: bot },
        payload: { level: 1 },
        afterMillis: 4 * HOUR,
      });
    })
    .to("deadlines")
    .on("Answered")
    .do(async function answered(event, _stream, app) {
      await app.cancel(`escalate-${event.stream}`);
    })
    .to("deadlines")
    .build({ clock, store: bound ?? new InMemoryStore() });
}

afterEach(async () => {
  await disposeAndExit();
});

describe("a deadline", () => {
  it("fires when nothing arrives before it, once, and reports how late it was", async () => {
    const clock = testClock();
    const app = build(clock);
    await app.do("open", { stream: "t-1", actor: agent }, { title: "Printer" });
    await settle(app);
    expect((await app.stats()).timers).toMatchObject({ pending: 1, overdue: 0 });
    clock.advance(4 * HOUR - 1);
    await settle(app);
    expect((await app.load(Ticket, "t-1")).state.status).toBe("open");
    clock.advance(1);
    const { drains } = await settle(app);
    expect(drains).toBeGreaterThan(0);
    expect((await app.load(Ticket, "t-1")).state.status).toBe("escalated");
    const { timers } = await app.stats();
    expect(timers).toMatchObject({ pending: 0, overdue: 0, lateness: { count: 1, max: 0 } });
    clock.advance(HOUR);
    await settle(app);
    expect(await app.queryArray({ stream: "t-1", names: ["Escalated"] })).toHaveLength(1);
    expect(await app.cancel("escalate-t-1")).toEqual([]);
  });

  it("never fires when the event it waits for arrives first", async () => {
    const clock = testClock();
    const app = build(clock);
    await app.do("open", { stream: "t-1", actor: agent }, { title: "Printer" });
    await settle(app);
    clock.advance(HOUR);
    await app.do("answer", { stream: "t-1", actor: agent }, { by: "ada" });
    await settle(app);
    clock.advance(10 * HOUR);
    await settle(app);
    expect((await app.load(Ticket, "t-1")).state.status).toBe("answered");
    const [timer] = await app.store.timers!.list({ ids: ["escalate-t-1"] });
    expect(timer.status).toBe("cancelled");
  });

  it("fires at the next drain of a restarted app when its time passed while nothing ran", async () => {
    const clock = testClock();
    const log = new InMemoryStore();
    const first = build(clock, log);
    await first.do("open", { stream: "t-1", actor: agent }, { title: "Printer" });
    await settle(first);
    clock.advance(6 * HOUR);
    const second = build(clock, log);
    expect((await second.stats()).timers).toMatchObject({ pending: 1, overdue: 1 });
    const { fired = [] } = await second.drain();
    expect(fired.map((t) => [t.id, t.at.getTime() - t.due.getTime()])).toEqual([["escalate-t-1", 2 * HOUR]]);
    expect((await second.stats()).timers.lateness).toMatchObject({ count: 1, max: 2 * HOUR });
  });

  it("is recorded as failed, and not tried again, when the model refuses its action", async () => {
    const clock = testClock();
    const app = build(clock);
    await app.schedule({
      id: "early",
      action: "escalate",
      target: { stream: "t-9", actor: bot },
      payload: { level: 2 },
      afterMillis: 0,
    });
    const { fired = [] } = await app.drain();
    expect(fired).toMatchObject([{ id: "early", error: expect.stringMatching(/only an open ticket is escalated/) }]);
    const [timer] = await app.store.timers!.list({ ids: ["early"] });
    expect(timer).toMatchObject({ status: "failed", attempts: 1 });
    expect(await app.queryArray({ stream: "t-9" })).toEqual([]);
  });

  it("is tried again after a failure that may pass, then fires", async () => {
    const clock = testClock();
    const log = new InMemoryStore();
    const commit = log.commit.bind(log);
    let failures = 1;
    log.commit = (async (...args: Parameters<Store["commit"]>) => {
      if (failures-- > 0) throw new Error("connection lost");
      return commit(...args);
    }) as Store["commit"];
    const app = build(clock, log);
    await app.schedule({
      id: "x",
      action: "open",
      target: { stream: "t-2", actor: bot },
      payload: { title: "X" },
      afterMillis: 0,
    });
    expect((await app.drain()).fired).toBeUndefined();
    expect(await log.timers.list({ ids: ["x"] })).toMatchObject([{ status: "pending", error: "connection lost" }]);
    clock.advance(1_000);
    expect((await app.drain()).fired).toMatchObject([{ id: "x" }]);
    expect(await app.queryArray({ stream: "t-2" })).toHaveLength(1);
  });
});

describe("a running consumer", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /**
   * Ticket t-1 escalated. The fired action may still be on its way through
   * callbacks the fake clock does not run, so this checks again in real time
   * for up to 2 s — moving the fake clock on by as much (vi.waitFor does,
   * with fake timers): far less than the consumer's next poll in these tests.
   */
  const escalated = (app: Act<any, any, any>) =>
    vi.waitFor(async () => expect((await app.load(Ticket, "t-1")).state.status).toBe("escalated"), {
      timeout: 2_000,
      interval: 10,
    });

  it("wakes when the next timer is due, though its idle poll waits longer and nothing is committed", async () => {
    // Fake timers and dates: the consumer's waits and the system clock move only when the test moves them.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const settled = async () => {
      for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    const app = act().with(Ticket).build({ store: new InMemoryStore() });
    app.start({ pollMillis: 120_000 });
    await settled();
    await app.do("open", { stream: "t-1", actor: agent }, { title: "Printer" });
    await app.schedule({
      id: "soon",
      action: "escalate",
      target: { stream: "t-1", actor: bot },
      payload: { level: 1 },
      afterMillis: 60_000,
    });
    await settled();
    // Backing off from 5 ms, the idle poll alone would next look after 81.9 s.
    await vi.advanceTimersByTimeAsync(60_000);
    await escalated(app);
    await app.stop();
  });

  // An action that only schedules a timer commits no event, so no commit wakes the consumer: the
  // timer change itself must, or a timer due before the consumer's next poll fires only at that poll.
  const Reminder = state("Reminder", z.object({}))
    .init(() => ({}))
    .emits({ Noted: z.object({}) })
    .patch({ Noted: () => ({}) })
    .on("remind", z.object({ ticket: z.string(), afterMillis: z.number().int() }))
    .emit(({ ticket, afterMillis }, _, __, { schedule }) => {
      schedule({
        id: `escalate-${ticket}`,
        action: "escalate",
        target: { stream: ticket, actor: bot },
        payload: { level: 1 },
        afterMillis,
      });
      return [];
    })
    .build();

  /** An app whose consumer has idled for 100 s, so its poll next looks only at 163.8 s (backing off from 5 ms). */
  async function idled() {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const app = act().with(Ticket).with(Reminder).build({ store: new InMemoryStore() });
    app.start({ pollMillis: 120_000 });
    await vi.advanceTimersByTimeAsync(100_000);
    await app.do("open", { stream: "t-1", actor: agent }, { title: "Printer" });
    return app;
  }

  it("looks again when an action that emits no event schedules a timer due before its next poll", async () => {
    const app = await idled();
    await app.do("remind", { stream: "r-1", actor: agent }, { ticket: "t-1", afterMillis: 10_000 });
    // A second past its due time: long before the consumer's poll would look.
    await vi.advanceTimersByTimeAsync(11_000);
    await escalated(app);
    await app.stop();
  });
});

describe("scheduling", () => {
  const app = () => build();
  const target = { stream: "t-1", actor: bot };

  it("checks the payload against the action's schema when scheduled, naming the action and the field", async () => {
    const error = await app()
      .schedule({ id: "a", action: "escalate", target, payload: { level: "high" as never }, afterMillis: 1 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toMatch(/payload of action "escalate" in timer "a".*level/);
  });

  it.each([
    [{ action: "close" }, /action: unknown action "close"; known actions: open, answer, escalate/],
    [{ afterMillis: undefined }, /give exactly one of at and afterMillis/],
    [{ at: new Date() }, /give exactly one of at and afterMillis/],
    [{ afterMillis: -1 }, /afterMillis: must be a whole number of ms, at least 0/],
    [{ afterMillis: undefined, at: new Date(Number.NaN) }, /at: must be a valid Date/],
    [{ id: "" }, /Invalid id of timer ""/],
    [{ target: { stream: "", actor: bot } }, /Invalid target of timer "a"/],
  ])("refuses %o with a clear error", async (change, message) => {
    const request = { id: "a", action: "escalate", target, payload: { level: 1 }, afterMillis: 1, ...change };
    await expect(app().schedule(request as never)).rejects.toThrow(message);
  });

  it("keeps an id once, so a reaction that runs again schedules nothing more", async () => {
    const a = app();
    const timer = { id: "once", action: "escalate" as const, target, payload: { level: 1 }, afterMillis: 5 };
    expect(await a.schedule(timer)).toBe(true);
    expect(await a.schedule({ ...timer, afterMillis: 99 })).toBe(false);
    const [kept] = await a.store.timers!.list();
    expect(kept.due.getTime() - Date.parse("2026-01-01T00:00:00Z")).toBe(5);
  });

  it("says so on a store that keeps no timers", async () => {
    const bare = new InMemoryStore();
    Object.defineProperty(bare, "timers", { value: undefined });
    const a = build(testClock(), bare);
    await expect(
      a.schedule({ id: "a", action: "escalate", target, payload: { level: 1 }, afterMillis: 1 })
    ).rejects.toThrow(/app.schedule needs a store that keeps timers/);
  });

  it("refuses a clock without now()", () => {
    expect(() =>
      act()
        .with(Ticket)
        .build({ clock: {} as never })
    ).toThrow(BuilderError);
  });
});

describe("testClock", () => {
  it("moves only forward, by whole milliseconds", () => {
    const clock = testClock("2026-05-01T10:00:00Z");
    expect(clock.advance(90_000).toISOString()).toBe("2026-05-01T10:01:30.000Z");
    expect(clock.set("2026-05-02T00:00:00Z").toISOString()).toBe("2026-05-02T00:00:00.000Z");
    expect(() => clock.advance(-1)).toThrow(ValidationError);
    expect(() => clock.advance(0.5)).toThrow(/whole number/);
    expect(() => clock.set("2026-05-01T00:00:00Z")).toThrow(/must not be before/);
    expect(() => testClock("not a date")).toThrow(/valid Date/);
  });
});
