import { z } from "zod";
import { act } from "../act-builder.js";
import { state } from "../builders/state-builder.js";
import { ConcurrencyError, ValidationError } from "../core/errors.js";
import { ZodEmpty } from "../core/schemas.js";
import type { Store } from "../types/ports.js";
import type { ScheduledTimer, TimerStore } from "../types/timers.js";
import { testClock } from "./test-clock.js";
import type { TestApi } from "./test-api.js";

const actor = { id: "u-1", name: "User" };
const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const at = (ms: number) => new Date(T0 + ms);
const meta = { correlation: "c-1", causation: {} };
const timer = (id: string, due: number): ScheduledTimer => ({
  id,
  action: "escalate",
  stream: "t-1",
  actor,
  payload: { reason: id },
  due: at(due),
  correlation: "c-1",
});

/**
 * A ticket whose opening sets an escalation deadline, cancelled when it is
 * answered; `remind` emits nothing but schedules, and `reopen` schedules a
 * payload the escalation refuses.
 */
const Ticket = state("Ticket", z.object({ open: z.boolean(), answered: z.boolean(), escalated: z.number() }))
  .init(() => ({ open: false, answered: false, escalated: 0 }))
  .emits({ Opened: ZodEmpty, Answered: ZodEmpty, Escalated: z.object({ reason: z.string() }) })
  .patch({
    Opened: () => ({ open: true }),
    Answered: () => ({ answered: true }),
    Escalated: (_, s) => ({ escalated: s.escalated + 1 }),
  })
  .on("escalate", z.object({ reason: z.string() }))
  .given([{ description: "Ticket must not be answered", valid: (s) => !s.answered }])
  .emit(({ reason }) => ["Escalated", { reason }])
  .on("open", z.object({ slaMillis: z.number() }))
  .emit(({ slaMillis }, _, { stream }, { schedule }) => {
    schedule({ id: `escalate-${stream}`, action: "escalate", payload: { reason: "sla" }, afterMillis: slaMillis });
    return ["Opened", {}];
  })
  .on("answer", ZodEmpty)
  .emit((_, __, { stream }, { cancel }) => {
    cancel(`escalate-${stream}`);
    return ["Answered", {}];
  })
  .on("remind", ZodEmpty)
  .emit((_, __, { stream }, { schedule }) => {
    schedule({ id: `remind-${stream}`, action: "escalate", payload: { reason: "reminder" }, afterMillis: 5 });
    return undefined;
  })
  .on("misfile", ZodEmpty)
  .emit((_, __, ___, { schedule }) => {
    schedule({ id: "bad", action: "escalate", payload: { reason: 42 } as never, afterMillis: 5 });
    return ["Opened", {}];
  })
  .build();

/**
 * The part of the store conformance suite about timers written with a
 * commit (`InlineCommit.timers`): kept and cancelled exactly when the
 * events commit — never by a commit refused for its version or by inline
 * work that threw — and, through an app, deadlines an action handler sets
 * and cancels, firing once, their events correlated with the action that
 * set them. Registered by {@link storeConformance}.
 *
 * @param store - the store under test (seeded and empty before each test)
 * @param test - the test runner's functions
 */
export function actionTimersConformance(store: () => Store, test: TestApi): void {
  const { describe, expect, it } = test;
  const timers = (): TimerStore => {
    const kept = store().timers;
    if (!kept) throw new Error("the store keeps no timers (Store.timers)");
    return kept;
  };
  const inline = () => {
    const commitInline = store().commitInline?.bind(store());
    if (!commitInline) throw new Error("the store does not commit inline (Store.commitInline)");
    return commitInline;
  };
  const status = async (id: string) => (await timers().list({ ids: [id] }))[0]?.status;

  describe("timers written with a commit", () => {
    it("keeps and cancels timers with the events, the correlation with each timer", async () => {
      await timers().schedule([timer("old", 50)]);
      const events = await inline()(
        {
          stream: "t-1",
          messages: [{ name: "Opened", data: {} }],
          meta,
          expectedVersion: -1,
          timers: { schedule: [timer("new", 10)], cancel: ["old"], now: at(0) },
        },
        () => undefined
      );
      expect(events).toHaveLength(1);
      expect(await timers().list()).toMatchObject([
        { id: "new", status: "pending", correlation: "c-1", due: at(10) },
        { id: "old", status: "cancelled" },
      ]);
    });

    it("writes no timer when the commit is refused for its version", async () => {
      await store().commit({ stream: "t-1", messages: [{ name: "Opened", data: {} }], meta, expectedVersion: -1 });
      await timers().schedule([timer("old", 50)]);
      await expect(
        inline()(
          {
            stream: "t-1",
            messages: [{ name: "Answered", data: {} }],
            meta,
            expectedVersion: -1,
            timers: { schedule: [timer("new", 10)], cancel: ["old"], now: at(0) },
          },
          () => undefined
        )
      ).rejects.toThrow(ConcurrencyError);
      expect(await timers().list()).toMatchObject([{ id: "old", status: "pending" }]);
    });

    it("writes no timer when the inline work throws", async () => {
      await expect(
        inline()(
          {
            stream: "t-1",
            messages: [{ name: "Opened", data: {} }],
            meta,
            timers: { schedule: [timer("new", 10)], cancel: [], now: at(0) },
          },
          () => {
            throw new Error("projection down");
          }
        )
      ).rejects.toThrow("projection down");
      expect(await timers().list()).toEqual([]);
      expect(await store().query(() => undefined, { stream: "t-1" })).toBe(0);
    });

    it("sets a deadline from an action and fires it once, its events correlated with the action that set it", async () => {
      const clock = testClock(at(0));
      const app = act().with(Ticket).build({ store: store(), clock });
      const [opened] = await app.do("open", { stream: "t-1", actor }, { slaMillis: 4_000 });
      expect(await timers().list()).toMatchObject([
        { id: "escalate-t-1", action: "escalate", stream: "t-1", actor, payload: { reason: "sla" }, due: at(4_000) },
      ]);
      clock.advance(3_999);
      expect((await app.drain()).fired).toBeUndefined();
      clock.advance(1);
      const { fired = [] } = await app.drain();
      expect(fired.map((t) => t.id)).toEqual(["escalate-t-1"]);
      clock.advance(60_000);
      expect((await app.drain()).fired).toBeUndefined();
      const events = await app.queryArray({ stream: "t-1" });
      expect(events.map((e) => e.name)).toEqual(["Opened", "Escalated"]);
      expect(events[1].meta.correlation).toBe(opened.event!.meta.correlation);
    });

    it("cancels the deadline from the action that answers, so it never fires", async () => {
      const clock = testClock(at(0));
      const app = act().with(Ticket).build({ store: store(), clock });
      await app.do("open", { stream: "t-1", actor }, { slaMillis: 4_000 });
      await app.do("answer", { stream: "t-1", actor }, {});
      expect(await status("escalate-t-1")).toBe("cancelled");
      clock.advance(10_000);
      expect((await app.drain()).fired).toBeUndefined();
      expect((await app.queryArray({ stream: "t-1" })).map((e) => e.name)).toEqual(["Opened", "Answered"]);
    });

    it("keeps no deadline when the store refuses the action's commit for its version", async () => {
      const clock = testClock(at(0));
      const app = act().with(Ticket).build({ store: store(), clock });
      const other = act().with(Ticket).build({ store: store(), clock });
      await app.do("remind", { stream: "t-1", actor }, {});
      await app.do("answer", { stream: "t-1", actor }, {});
      // Another process moves the stream; this app's cached state still says version 0, so its handler runs.
      await other.do("answer", { stream: "t-1", actor }, {});
      await expect(app.do("open", { stream: "t-1", actor, expectedVersion: 0 }, { slaMillis: 10 })).rejects.toThrow(
        ConcurrencyError
      );
      expect((await timers().list()).map((t) => t.id)).toEqual(["remind-t-1"]);
    });

    it("refuses a deadline whose payload the action's schema rejects, committing nothing", async () => {
      const app = act()
        .with(Ticket)
        .build({ store: store(), clock: testClock(at(0)) });
      await expect(app.do("misfile", { stream: "t-1", actor }, {})).rejects.toThrow(ValidationError);
      await expect(app.do("misfile", { stream: "t-1", actor }, {})).rejects.toThrow(/payload of action "escalate"/);
      expect(await timers().list()).toEqual([]);
      expect(await app.queryArray({ stream: "t-1" })).toEqual([]);
    });

    it("keeps the timer of an action that emits no events", async () => {
      const app = act()
        .with(Ticket)
        .build({ store: store(), clock: testClock(at(0)) });
      await app.do("remind", { stream: "t-1", actor }, {});
      expect(await timers().list()).toMatchObject([{ id: "remind-t-1", status: "pending", due: at(5) }]);
    });
  });
}
