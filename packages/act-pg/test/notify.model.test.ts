/**
 * The store's announcements to other processes (`notify.ts`) against a
 * trivial model, on a fake clock: random programs of commits that start,
 * overlap and finish or fail at random moments. Whatever the interleaving,
 * every committed event name reaches other processes in a notification
 * delivered no earlier than its commit became visible, and no two
 * notifications are sent less than the spacing apart. Seeded and shrinkable
 * (see `seeds.ts` for replaying a failure: `NOTIFY_MODEL_SEED`).
 */
import fc from "fast-check";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { announce, replayPath, seedLabel, seedRuns } from "../../act/test/seeds.js";
import type { Database } from "../src/database.js";
import { Notifier, type Ride } from "../src/notify.js";

const SPACING = 5;

/** A commit of the program: when it starts after the one before, how long it takes, and how it ends. */
type Step = { after: number; takes: number; ends: "committed" | "failed" };
/** A notification as other processes see it: what it names, when it was sent and when it was delivered. */
type Delivered = { names: string[]; sentAt: number; deliveredAt: number };

beforeEach(() => {
  vi.useFakeTimers({ now: 0, toFake: ["setTimeout", "clearTimeout", "performance", "Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Runs a program of commits against a notifier whose own notifications take `sendTakes` ms. */
async function run(program: Step[], sendTakes: number) {
  const delivered: Delivered[] = [];
  const sent: number[] = [];
  /** Notifications sent as statements of their own. */
  let own = 0;
  const db = {
    disposed: false,
    names: { channel: "channel" },
    statements: { notify: "SELECT pg_notify" },
    background: (_operation: string, _text: string, values: unknown[]) => {
      const sentAt = performance.now();
      sent.push(sentAt);
      own++;
      return new Promise<void>((resolve) =>
        setTimeout(() => {
          delivered.push({ names: JSON.parse(values[1] as string).names, sentAt, deliveredAt: performance.now() });
          resolve();
        }, sendTakes)
      );
    },
  } as unknown as Database;
  const notifier = new Notifier(db);
  const visible = new Map<string, number>();
  let at = 0;
  program.forEach(({ after, takes, ends }, i) => {
    at += after;
    const name = `E${i}`;
    setTimeout(() => {
      const ride: Ride | undefined = notifier.ride([name]);
      if (ride) sent.push(performance.now());
      setTimeout(() => {
        if (ends === "failed") return notifier.failed(ride);
        visible.set(name, performance.now());
        // A notification a commit carried is delivered when the commit is.
        if (ride)
          delivered.push({
            names: JSON.parse(ride.payload).names,
            sentAt: performance.now() - takes,
            deliveredAt: performance.now(),
          });
        notifier.committed([{ name }], ride);
      }, takes);
    }, at);
  });
  await vi.advanceTimersByTimeAsync(at + 100);
  return { delivered, sent, visible, own };
}

for (const seedRun of seedRuns("NOTIFY_MODEL", { seed: 20261130, numRuns: 300 }, 300))
  it(`announces every commit after it is visible, notifications at least ${SPACING} ms apart (property, ${seedLabel(seedRun)})`, async () => {
    announce("notify model", "NOTIFY_MODEL", seedRun);
    const step = fc.record({
      after: fc.integer({ min: 0, max: 12 }),
      takes: fc.integer({ min: 0, max: 12 }),
      ends: fc.constantFrom("committed", "committed", "committed", "failed"),
    }) as fc.Arbitrary<Step>;
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 0, max: 6 }),
        async (program, sendTakes) => {
          vi.setSystemTime(0);
          const { delivered, sent, visible } = await run(program, sendTakes);
          // Every committed name, in a notification delivered once the commit was visible.
          for (const [name, at] of visible)
            expect(
              delivered.some((d) => d.names.includes(name) && d.deliveredAt >= at),
              `${name} (visible at ${at} ms) announced afterwards`
            ).toBe(true);
          const sorted = [...sent].sort((a, b) => a - b);
          for (let i = 1; i < sorted.length; i++) expect(sorted[i]! - sorted[i - 1]!).toBeGreaterThanOrEqual(SPACING);
        }
      ),
      { seed: seedRun.seed, numRuns: seedRun.numRuns, ...replayPath("NOTIFY_MODEL") }
    );
  });

it("a steady stream of commits sends its notifications inside commits: one of its own only after the last", async () => {
  const program: Step[] = Array.from({ length: 200 }, () => ({ after: 1, takes: 1, ends: "committed" }));
  const { delivered, visible, own } = await run(program, 1);
  expect(visible.size).toBe(200);
  expect(delivered.length).toBeLessThanOrEqual(200 / SPACING + 2);
  expect(own).toBeLessThanOrEqual(1);
});
