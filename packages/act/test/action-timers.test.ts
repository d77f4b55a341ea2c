/**
 * Timers set by action handlers (the handler's fourth argument), beyond
 * what the store conformance suite checks on every store: a deadline set
 * by an action a reaction asked for carries the reaction chain's
 * correlation to the action it fires, a handler run again on fresh state
 * schedules only what its last run asked for. The payload types a
 * handler's `schedule` takes are checked by tsc in `types.test-d.ts`.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { act, InMemoryStore, state, type Store } from "../src/index.js";
import { testClock } from "../src/testing/index.js";

process.env.LOG_LEVEL ??= "fatal";

const customer = { id: "c-1", name: "Customer" };
const HOUR = 3_600_000;

const Ticket = state("Ticket", z.object({ status: z.enum(["new", "open", "answered", "escalated"]), sla: z.number() }))
  .init(() => ({ status: "new" as const, sla: 0 }))
  .emits({
    Opened: z.object({ title: z.string() }),
    SlaSet: z.object({ hours: z.number() }),
    Escalated: z.object({ level: z.number().int() }),
  })
  .patch({
    Opened: () => ({ status: "open" as const }),
    SlaSet: ({ data }) => ({ sla: data.hours }),
    Escalated: () => ({ status: "escalated" as const }),
  })
  .on("escalate", z.object({ level: z.number().int().positive() }))
  .given([{ description: "only an open ticket is escalated", valid: (s) => s.status === "open" }])
  .emit(({ level }) => ["Escalated", { level }])
  .on("open", z.object({ title: z.string() }))
  .emit(({ title }) => ["Opened", { title }])
  // The deadline's id names the SLA the handler decided on and the new one.
  .on("setSla", z.object({ hours: z.number().positive() }))
  .emit(({ hours }, { state }, { stream }, { schedule }) => {
    schedule({
      id: `escalate-${stream}-${state.sla}h-to-${hours}h`,
      action: "escalate",
      payload: { level: 1 },
      afterMillis: hours * HOUR,
    });
    return ["SlaSet", { hours }];
  })
  .build();

function build(store: Store = new InMemoryStore(), clock = testClock()) {
  return act()
    .with(Ticket)
    .on("Opened")
    .do(async function sla(event, _stream, app) {
      await app.do("setSla", { stream: event.stream, actor: customer }, { hours: 4 }, { reactingTo: event });
    })
    .to((event) => ({ target: event.stream }))
    .build({ store, clock });
}

describe("timers set by action handlers", () => {
  it("carries the correlation of the request whose reaction set the deadline to the action it fires", async () => {
    const clock = testClock();
    const app = build(new InMemoryStore(), clock);
    const [opened] = await app.do("open", { stream: "t-1", actor: customer }, { title: "Printer" });
    await app.drain();
    const [pending] = await app.store.timers!.list({ status: "pending" });
    expect(pending).toMatchObject({ id: "escalate-t-1-0h-to-4h", correlation: opened.event!.meta.correlation });
    clock.advance(4 * HOUR);
    const { fired = [] } = await app.drain();
    expect(fired.map((t) => t.id)).toEqual(["escalate-t-1-0h-to-4h"]);
    const events = await app.queryArray({ stream: "t-1" });
    expect(events.map((e) => e.name)).toEqual(["Opened", "SlaSet", "Escalated"]);
    expect(new Set(events.map((e) => e.meta.correlation))).toEqual(new Set([opened.event!.meta.correlation]));
  });

  it("schedules only what the handler's last run asked for when a stale cached state makes it run again", async () => {
    const store = new InMemoryStore();
    const app = act().with(Ticket).build({ store, clock: testClock() });
    const other = act().with(Ticket).build({ store, clock: testClock() });
    await app.do("open", { stream: "t-1", actor: customer }, { title: "Printer" });
    // Another process sets the SLA first: this app's cached state (sla 0) is stale, its commit conflicts,
    // and the handler runs again on the stored state.
    await other.do("setSla", { stream: "t-1", actor: customer }, { hours: 2 });
    await app.do("setSla", { stream: "t-1", actor: customer }, { hours: 4 });
    // Not "0h-to-4h": the run on the stale state asked for it, and its commit was refused.
    expect((await store.timers.list()).map((t) => t.id)).toEqual(["escalate-t-1-0h-to-2h", "escalate-t-1-2h-to-4h"]);
  });
});
