import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  act,
  EventMetaSchema,
  observe,
  type Observer,
  type ProjectionInfo,
  projection,
  type ReactionInfo,
} from "../../src/index.js";
import { actor, Counter, freshStore } from "../fixtures.js";

const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
let stop: (() => void) | undefined;

beforeEach(async () => {
  await freshStore();
});
afterEach(() => stop?.());

/** An observer that records what each hook saw, in order. */
function recorder() {
  const seen: Array<[string, unknown]> = [];
  const wrap =
    (hook: string) =>
    async <I, T>(info: I, run: () => Promise<T>) => {
      seen.push([`${hook}:start`, info]);
      try {
        const result = await run();
        seen.push([`${hook}:end`, result]);
        return result;
      } catch (error) {
        seen.push([`${hook}:error`, error]);
        throw error;
      }
    };
  const observer: Observer = {
    action: wrap("action"),
    load: wrap("load"),
    drain: wrap("drain"),
    reaction: wrap("reaction"),
    projection: wrap("projection"),
    trace: () => ({ traceparent }),
  };
  return { seen, observer, hooks: () => seen.map(([hook]) => hook) };
}

describe("observe", () => {
  it("wraps actions and their loads, and keeps the observer's trace context in the committed events", async () => {
    const { observer, hooks, seen } = recorder();
    stop = observe(observer);
    const app = act().with(Counter).build();
    const [snap] = await app.do("increment", { stream: "c-1", actor }, { by: 2 });
    expect(hooks()).toEqual(["action:start", "load:start", "load:end", "action:end"]);
    expect(seen[0][1]).toMatchObject({ state: "Counter", action: "increment", target: { stream: "c-1" } });
    // Each hook names the app's store, so an observer traces the store the app really uses.
    expect((seen[0][1] as { store: unknown }).store).toBe(app.store);
    expect(seen[1][1]).toEqual({ state: "Counter", stream: "c-1", store: app.store });
    expect(seen[3][1]).toMatchObject({ committed: true });
    expect(snap.event?.meta.trace).toEqual({ traceparent });
    const [stored] = await app.queryArray({ stream: "c-1" });
    expect(stored.meta.trace).toEqual({ traceparent });
    expect(EventMetaSchema.parse(stored.meta)).toEqual(stored.meta);
  });

  it("sees failed actions throw through the hook", async () => {
    const { observer, hooks } = recorder();
    stop = observe(observer);
    const app = act().with(Counter).build();
    await expect(app.do("reset", { stream: "c-2", actor }, {})).rejects.toThrow("Counter must not be zero");
    expect(hooks()).toEqual(["action:start", "load:start", "load:end", "action:error"]);
  });

  it("wraps each drain and each reaction run with the reaction, event, stream and attempt", async () => {
    let fail = true;
    const app = act()
      .with(Counter)
      .on("Incremented")
      .do(
        async function audit() {
          if (fail) throw new Error("not yet");
        },
        { maxRetries: 2, blockOnError: true, retryBaseMillis: 1, retryMaxMillis: 1 }
      )
      .to("audit")
      .build();
    await app.do("increment", { stream: "c-3", actor }, { by: 1 });
    const { observer, seen } = recorder();
    stop = observe(observer);
    await app.drain();
    await new Promise((resolve) => setTimeout(resolve, 5));
    fail = false;
    await app.drain();
    const reactions = seen.filter(([hook]) => hook === "reaction:start").map(([, info]) => info as ReactionInfo);
    expect(
      reactions.map(({ reaction, stream, attempt, event }) => ({ reaction, stream, attempt, id: event.id }))
    ).toEqual([
      { reaction: "Incremented/audit", stream: "audit", attempt: 1, id: 0 },
      { reaction: "Incremented/audit", stream: "audit", attempt: 2, id: 0 },
    ]);
    expect(reactions[0].options).toMatchObject({ maxRetries: 2, blockOnError: true });
    // The app's store, as for actions and drains: whose work it is (a tenant's, say).
    expect(reactions.map((info) => info.store)).toEqual([app.store, app.store]);
    expect(seen.filter(([hook]) => hook.startsWith("drain")).map(([hook]) => hook)).toEqual([
      "drain:start",
      "drain:end",
      "drain:start",
      "drain:end",
    ]);
    expect(seen.filter(([hook]) => hook === "reaction:error")).toHaveLength(1);
  });

  it("wraps each projection batch with the projection, its stream, the events and the attempt", async () => {
    let fail = true;
    const Totals = projection("Totals", { maxRetries: 2, retryBaseMillis: 1, retryMaxMillis: 1 })
      .with(Counter)
      .on("Incremented", () => {
        if (fail) throw new Error("not yet");
      })
      .build();
    const app = act().with(Counter).with(Totals).build();
    await app.do("increment", { stream: "c-4", actor }, { by: 1 });
    await app.do("increment", { stream: "c-4", actor }, { by: 2 });
    const { observer, seen } = recorder();
    stop = observe(observer);
    await app.drain();
    await new Promise((resolve) => setTimeout(resolve, 5));
    fail = false;
    await app.drain();
    const batches = seen.filter(([hook]) => hook.startsWith("projection:"));
    expect(batches.map(([hook]) => hook)).toEqual([
      "projection:start",
      "projection:error",
      "projection:start",
      "projection:end",
    ]);
    const infos = batches.filter(([hook]) => hook === "projection:start").map(([, info]) => info as ProjectionInfo);
    expect(
      infos.map(({ projection, stream, attempt, events }) => ({
        projection,
        stream,
        attempt,
        ids: events.map((e) => e.id),
      }))
    ).toEqual([
      { projection: "Totals", stream: "projection:Totals", attempt: 1, ids: [0, 1] },
      { projection: "Totals", stream: "projection:Totals", attempt: 2, ids: [0, 1] },
    ]);
    expect(infos[0].options).toMatchObject({ maxRetries: 2 });
    expect(infos.map((info) => info.store)).toEqual([app.store, app.store]);
    expect(batches[1][1]).toMatchObject({
      message: expect.stringMatching(/Projection "Totals" failed on event "Incremented" #0: not yet/),
    });
    expect(batches[3][1]).toBe(true);
  });

  it("calls nothing and keeps no trace once removed, and a stale remover leaves the newer observer", async () => {
    const first = recorder();
    const second = recorder();
    const removeFirst = observe(first.observer);
    stop = observe(second.observer);
    removeFirst();
    const app = act().with(Counter).build();
    await app.do("increment", { stream: "c-4", actor }, { by: 1 });
    expect(first.seen).toEqual([]);
    expect(second.hooks()).toContain("action:end");
    stop();
    const [snap] = await app.do("increment", { stream: "c-4", actor }, { by: 1 });
    expect(second.hooks().filter((h) => h === "action:end")).toHaveLength(1);
    expect(snap.event?.meta).not.toHaveProperty("trace");
  });

  it("refuses a malformed trace context in event metadata", () => {
    expect(() =>
      EventMetaSchema.parse({ correlation: "c", causation: {}, trace: { traceparent: "not-a-traceparent" } })
    ).toThrow("not a W3C traceparent");
  });
});
