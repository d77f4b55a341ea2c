/**
 * The keeper of one stream's lease while its handlers run, on its own:
 * when it renews, when it counts the lease as lost, and that it neither
 * keeps the process alive nor renews a lease it lost. Fake timers and dates,
 * so each boundary is hit to the millisecond.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { logger } from "../../src/core/ports.js";
import { Keeper } from "../../src/reactions/lease-keeper.js";
import type { Store } from "../../src/types/ports.js";
import type { Lease } from "../../src/types/lease.js";

const lease: Lease = { stream: "s-1", by: "drainer-1", at: 4, retry: 0, token: 7 };
const DAY = 24 * 60 * 60 * 1000;

/** A store whose `lease` answers as `answer` says; only renewals reach it. */
const storeOf = (answer: (leases: Lease[]) => Promise<Lease[]>) => {
  const renewals = vi.fn(answer);
  return { store: { lease: renewals } as unknown as Store, renewals };
};
/** Grants every renewal. */
const granting = () => storeOf(async (leases) => leases);
/** Never answers: a database that hangs. */
const hanging = () => storeOf(() => new Promise<Lease[]>(() => {}));

let keepers: Keeper[] = [];
const keep = (store: Store, millis: number, grantedAt = Date.now()) => {
  const keeper = new Keeper(store, lease, millis, grantedAt);
  keepers.push(keeper);
  return keeper;
};

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000, toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
  vi.spyOn(logger, "error").mockImplementation(() => {});
});
afterEach(() => {
  for (const keeper of keepers) keeper.stop();
  keepers = [];
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("a lease keeper", () => {
  it("renews every third of the lease with the lease's token, and hands the token on", async () => {
    const { store, renewals } = granting();
    const keeper = keep(store, 900);
    expect(keeper.token).toBe(7);
    await vi.advanceTimersByTimeAsync(299);
    expect(renewals).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(renewals).toHaveBeenCalledTimes(1);
    expect(renewals).toHaveBeenLastCalledWith([lease], 900);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(renewals).toHaveBeenCalledTimes(11);
    expect(keeper.lost).toBe(false);
  });

  it("is ready without asking the store while more than half the lease is left, and renews first at exactly half", async () => {
    const { store, renewals } = granting();
    // Granted 499 ms ago: 501 of 1,000 ms left.
    const young = keep(store, 1_000, Date.now() - 499);
    expect(young.fresh).toBe(true);
    expect(await young.ready()).toBe(true);
    expect(renewals).not.toHaveBeenCalled();
    // Granted 500 ms ago: exactly half left — renewed before a handler starts.
    const half = keep(store, 1_000, Date.now() - 500);
    expect(half.fresh).toBe(false);
    expect(await half.ready()).toBe(true);
    expect(renewals).toHaveBeenCalledTimes(1);
    expect(half.fresh).toBe(true);
  });

  it("gives a signal first asked for after the loss already aborted, with the loss's reason", async () => {
    const keeper = keep(hanging().store, 1_000);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(keeper.fresh).toBe(false);
    expect(keeper.reason?.message).toContain("passed its deadline without a renewal");
    expect(keeper.signal.aborted).toBe(true);
    expect(keeper.signal.reason).toBe(keeper.reason);
  });

  it("counts the lease lost at its deadline, to the millisecond, when no renewal comes back (a hung database or a paused process)", async () => {
    const keeper = keep(hanging().store, 1_000);
    await vi.advanceTimersByTimeAsync(999);
    expect(keeper.lost).toBe(false);
    expect(keeper.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(keeper.lost).toBe(true);
    expect(String(keeper.signal.reason)).toContain('"s-1" passed its deadline without a renewal');
    expect(await keeper.ready()).toBe(false);
  });

  it("is not ready once the deadline passes while the renewal before a handler hangs: the batch ends instead of waiting for the store", async () => {
    const { store, renewals } = hanging();
    // Granted 600 ms ago: 400 of 1,000 ms left, so the next handler needs a renewal first.
    const keeper = keep(store, 1_000, Date.now() - 600);
    let answer: boolean | undefined;
    void keeper.ready().then((ready) => (answer = ready));
    await vi.advanceTimersByTimeAsync(399);
    expect(renewals).toHaveBeenCalled();
    expect(answer).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(answer).toBe(false);
    expect(keeper.lost).toBe(true);
  });

  it("waits out a lease longer than the longest timer in steps, and loses it only at its real deadline", async () => {
    const { store, renewals } = hanging();
    const keeper = keep(store, 30 * DAY);
    // The first step ends at about 24.8 days, the longest delay a timer takes.
    await vi.advanceTimersByTimeAsync(25 * DAY);
    expect(keeper.lost).toBe(false);
    await vi.advanceTimersByTimeAsync(5 * DAY - 1);
    expect(keeper.lost).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(keeper.lost).toBe(true);
    // Renewals every 10 days (a third), each hanging.
    expect(renewals).toHaveBeenCalledTimes(3);
  });

  it("renews a lease longer than three longest timers at the longest timer's pace, not every millisecond", async () => {
    const { store, renewals } = granting();
    keep(store, 100 * DAY);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(renewals).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(2 ** 31 - 1 - 1_000);
    expect(renewals).toHaveBeenCalledTimes(1);
  });

  it("moves the deadline with each renewal granted", async () => {
    const keeper = keep(granting().store, 1_000);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(keeper.lost).toBe(false);
  });

  it("keeps the later deadline when two renewals answer out of order", async () => {
    const answers: Array<(leases: Lease[]) => void> = [];
    const { store } = storeOf(() => new Promise<Lease[]>((resolve) => answers.push(resolve)));
    const keeper = keep(store, 900);
    await vi.advanceTimersByTimeAsync(300); // the interval's renewal, asked at 300
    await vi.advanceTimersByTimeAsync(160);
    const ready = keeper.ready(); // 440 ms left, under half: a second renewal, asked at 460
    answers[1]([lease]); // deadline 1,360
    expect(await ready).toBe(true);
    answers[0]([lease]); // would be 1,200: earlier, so kept at 1,360
    await vi.advanceTimersByTimeAsync(1_359 - 460);
    expect(keeper.lost).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(keeper.lost).toBe(true);
  });

  it("stops for good once the store refuses a renewal, and never asks again", async () => {
    const { store, renewals } = storeOf(async () => []);
    const keeper = keep(store, 900);
    await vi.advanceTimersByTimeAsync(300);
    expect(keeper.lost).toBe(true);
    expect(String(keeper.signal.reason)).toContain("was lost while its handlers ran");
    await vi.advanceTimersByTimeAsync(3_000);
    expect(renewals).toHaveBeenCalledTimes(1);
    expect(await keeper.ready()).toBe(false);
  });

  it("stops for good when a renewal fails with an error, naming the error", async () => {
    const { store, renewals } = storeOf(async () => {
      throw new Error("connection reset");
    });
    const keeper = keep(store, 900);
    await vi.advanceTimersByTimeAsync(300);
    expect(keeper.lost).toBe(true);
    expect(String(keeper.signal.reason)).toContain("could not be renewed");
    expect(String(keeper.signal.reason)).toContain("connection reset");
    await vi.advanceTimersByTimeAsync(3_000);
    expect(renewals).toHaveBeenCalledTimes(1);
  });

  it("after an operator command took the lease back, renews nothing and is not ready — even when a renewal in flight is granted", async () => {
    let answer!: (leases: Lease[]) => void;
    const { store, renewals } = storeOf(() => new Promise<Lease[]>((resolve) => (answer = resolve)));
    const keeper = keep(store, 1_000, Date.now() - 600);
    const ready = keeper.ready(); // less than half left: renews first
    expect(renewals).toHaveBeenCalledTimes(1);
    keeper.revoke();
    answer([lease]);
    expect(await ready).toBe(false);
    expect(String(keeper.signal.reason)).toContain("given up for an operator command");
    await vi.advanceTimersByTimeAsync(10_000);
    expect(renewals).toHaveBeenCalledTimes(1);
  });

  it("keeps the first reason it was lost for", async () => {
    const keeper = keep(hanging().store, 1_000);
    keeper.revoke();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(String(keeper.signal.reason)).toContain("given up for an operator command");
  });
});

describe("a lease keeper's timers", () => {
  it("do not keep the process alive", () => {
    vi.useRealTimers();
    const intervals = vi.spyOn(globalThis, "setInterval");
    const timeouts = vi.spyOn(globalThis, "setTimeout");
    keep(granting().store, 60_000);
    const made = [...intervals.mock.results, ...timeouts.mock.results].map(
      ({ value }) => value as { hasRef: () => boolean }
    );
    expect(made).toHaveLength(2);
    for (const timer of made) expect(timer.hasRef()).toBe(false);
  });
});
