import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { deprecated } from "../src/core/deprecated.js";
import { act, logger, projection, ValidationError } from "../src/index.js";
import { actor, Counter, freshStore } from "./fixtures.js";

/** The deprecation warnings logged so far that name `name`. */
const warnings = (warn: ReturnType<typeof vi.spyOn>, name: string) =>
  warn.mock.calls.filter(([, message]) => String(message).startsWith(`${name} is deprecated`));

let warn: ReturnType<typeof vi.spyOn>;
beforeEach(async () => {
  await freshStore();
  warn = vi.spyOn(logger, "warn").mockImplementation(() => {});
});
afterEach(() => {
  warn.mockRestore();
});

/** An app whose reaction to Incremented runs `increment` on "audit", reacting to the event it handles. */
const withAudit = () =>
  act()
    .with(Counter)
    .on("Incremented")
    .do(async () => {})
    .to((event) => (event.stream === "audit" ? undefined : { target: "audit" }))
    .build();

describe("deprecated", () => {
  it("warns through the logger once per name, naming what to use instead", () => {
    deprecated("old.thing", "use new.thing");
    deprecated("old.thing", "use new.thing");
    deprecated("other.thing", "use another");
    expect(warn).toHaveBeenCalledTimes(2);
    expect(warn).toHaveBeenCalledWith(
      { deprecated: "old.thing" },
      "old.thing is deprecated and goes away in the next minor release: use new.thing"
    );
    expect(warnings(warn, "other.thing")).toHaveLength(1);
  });
});

describe("the call shapes of earlier releases", () => {
  it("do with a positional reactingTo keeps the correlation, like { reactingTo }, and warns once", async () => {
    const app = withAudit();
    const [cause] = await app.do("increment", { stream: "c-1", actor }, { by: 1 });
    const [old] = await app.do("increment", { stream: "audit", actor }, { by: 1 }, cause.event);
    const [again] = await app.do("increment", { stream: "audit", actor }, { by: 1 }, cause.event);
    const [now] = await app.do("increment", { stream: "audit", actor }, { by: 1 }, { reactingTo: cause.event });
    for (const snap of [old, again, now]) {
      expect(snap.event!.meta.correlation).toBe(cause.event!.meta.correlation);
      expect(snap.event!.meta.causation.event).toEqual({ id: cause.event!.id, name: "Incremented", stream: "c-1" });
    }
    expect(warnings(warn, "app.do(action, target, payload, reactingTo, skipValidation)")).toHaveLength(1);
  });

  it("do with a positional skipValidation skips validation, like { skipValidation: true }", async () => {
    const app = act().with(Counter).build();
    // A negative `by` fails the payload schema, unless validation is skipped.
    await expect(app.do("increment", { stream: "c-1", actor }, { by: -1 })).rejects.toBeInstanceOf(ValidationError);
    const [old] = await app.do("increment", { stream: "c-1", actor }, { by: -1 }, undefined, true);
    const [now] = await app.do("increment", { stream: "c-1", actor }, { by: -1 }, { skipValidation: true });
    expect([old.state.count, now.state.count]).toEqual([-1, -2]);
  });

  it("do with options or nothing after the payload does not warn", async () => {
    const app = act().with(Counter).build();
    await app.do("increment", { stream: "c-1", actor }, { by: 1 });
    await app.do("increment", { stream: "c-1", actor }, { by: 1 }, undefined);
    await app.do("increment", { stream: "c-1", actor }, { by: 1 }, {});
    expect(warn).not.toHaveBeenCalled();
  });

  it("load with a positional callback and point in time loads what { at, onSnapshot } loads, and warns once", async () => {
    const app = act().with(Counter).build();
    for (const by of [1, 2, 3]) await app.do("increment", { stream: "c-1", actor }, { by });
    const seen: number[] = [];
    const old = await app.load(Counter, "c-1", (s) => seen.push(s.state.count), { version: 1 });
    const now = await app.load(Counter, "c-1", { at: { version: 1 }, onSnapshot: (s) => seen.push(s.state.count) });
    expect(old.state.count).toBe(3);
    expect(now).toEqual(old);
    expect(seen).toEqual([1, 3, 1, 3]);
    expect((await app.load(Counter, "c-1", undefined, { version: 0 })).state.count).toBe(1);
    expect(warnings(warn, "app.load(State, stream, callback, at)")).toHaveLength(1);
    // The new shape with nothing, or an explicit undefined, is not the old one.
    await app.load(Counter, "c-1");
    await app.load(Counter, "c-1", undefined);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it("query_array returns what queryArray returns, and warns once", async () => {
    const app = act().with(Counter).build();
    await app.do("increment", { stream: "c-1", actor }, { by: 1 });
    expect(await app.query_array({ stream: "c-1" })).toEqual(await app.queryArray({ stream: "c-1" }));
    await app.query_array({});
    expect(warnings(warn, "app.query_array")).toHaveLength(1);
  });

  it("correlate's last_id reads lastId, warns once, and is not part of the result", async () => {
    const app = withAudit();
    await app.do("increment", { stream: "c-1", actor }, { by: 1 });
    const result = await app.correlate();
    expect(result).toEqual({ leased: [expect.objectContaining({ stream: "audit" })], lastId: 0, behind: false });
    expect(warn).not.toHaveBeenCalled();
    expect([result.last_id, result.last_id]).toEqual([0, 0]);
    expect(warnings(warn, "app.correlate().last_id")).toHaveLength(1);
  });

  it("start_correlations and stop_correlations start and stop the timer, and warn once each", () => {
    const app = withAudit();
    expect(app.start_correlations({}, 60_000)).toBe(true);
    expect(app.start_correlations({}, 60_000)).toBe(false);
    expect(app.startCorrelations()).toBe(false);
    app.stop_correlations();
    expect(app.startCorrelations({ intervalMillis: 60_000 })).toBe(true);
    app.stop_correlations();
    expect(() => app.start_correlations({}, 0)).toThrow(ValidationError);
    expect(warnings(warn, "app.start_correlations(query, frequency, callback)")).toHaveLength(1);
    expect(warnings(warn, "app.stop_correlations")).toHaveLength(1);
  });

  it("projected with a positional timeout waits like { timeoutMillis }, and warns once", async () => {
    const Totals = projection("Totals")
      .with(Counter)
      .on("Incremented", () => {})
      .build();
    const app = act().with(Counter).with(Totals).build();
    const snapshots = await app.do("increment", { stream: "c-1", actor }, { by: 1 });
    // Nothing drains: both give up after the timeout, naming the projection.
    await expect(app.projected(Totals, snapshots, 10)).rejects.toThrow(/Totals/);
    await expect(app.projected(Totals, snapshots, { timeoutMillis: 10 })).rejects.toThrow(/Totals/);
    await expect(app.projected(Totals, snapshots, -1)).rejects.toBeInstanceOf(ValidationError);
    expect(warnings(warn, "app.projected(projection, after, timeoutMillis)")).toHaveLength(1);
  });
});
