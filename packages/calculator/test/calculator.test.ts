import { InvariantError, SNAP_EVENT, ValidationError } from "@act-root/act";
import { describe, expect, it } from "vitest";
import { app, Calculator, compute, display, expression, type Key, press, toKey } from "../src/index.js";

let n = 0;
/** A fresh calculator stream per test: the in-memory store is shared by the file. */
const fresh = () => `calc-${++n}`;

/** Presses the keys in order and returns the display. */
async function type(stream: string, keys: string) {
  for (const char of keys.replace(/\s+/g, "")) await press(toKey(char)!, stream);
  const { state } = await app.load(Calculator, stream);
  return display(state);
}

const names = async (stream: string) => (await app.queryArray({ stream })).map((e) => e.name);

describe("arithmetic", () => {
  it("adds", async () => {
    expect(await type(fresh(), "1+2=")).toBe("3");
  });

  it.each([
    ["12-20=", "-8"],
    ["6*7=", "42"],
    ["9/4=", "2.25"],
    ["0.1+0.2=", "0.3"],
    ["1/3=", "0.333333333333"],
  ])("%s shows %s", async (keys, shown) => {
    expect(await type(fresh(), keys)).toBe(shown);
  });

  it("chains operators left to right, computing at each operator", async () => {
    const stream = fresh();
    expect(await type(stream, "12+7*")).toBe("19");
    expect(await type(stream, "2=")).toBe("38");
  });

  it("replaces the operator when two are pressed in a row", async () => {
    expect(await type(fresh(), "8+-3=")).toBe("5");
  });

  it("starts a new number after = but continues with an operator", async () => {
    const stream = fresh();
    expect(await type(stream, "2+3=")).toBe("5");
    expect(await type(stream, "*2=")).toBe("10");
    expect(await type(stream, "7")).toBe("7");
  });

  it("an operator first uses 0 as the first operand", async () => {
    expect(await type(fresh(), "-5=")).toBe("-5");
  });

  it("computes with the helpers the state uses", () => {
    expect(compute("1", "÷", "4")).toBe(0.25);
    expect(compute("", "+", "")).toBe(0);
    expect(expression({ left: "1", operator: "+", right: "2" })).toBe("1 + 2");
    expect(display({ left: "", right: "" })).toBe("0");
  });
});

describe("typing numbers", () => {
  it("drops leading zeros and reads '.' as '0.'", async () => {
    expect(await type(fresh(), "005")).toBe("5");
    expect(await type(fresh(), ".5")).toBe("0.5");
  });

  it("ignores a second '.': nothing is emitted", async () => {
    const stream = fresh();
    await type(stream, "1.");
    const [snapshot] = await press(".", stream);
    expect(snapshot.state.left).toBe("1.");
    expect(await names(stream)).toEqual(["DigitPressed", "DigitPressed"]);
  });

  it("ignores digits past twelve", async () => {
    expect(await type(fresh(), "1234567890123")).toBe("123456789012");
  });

  it("'=' with nothing pending does nothing", async () => {
    const stream = fresh();
    await type(stream, "4");
    const snapshots = await press("=", stream);
    expect(snapshots).toHaveLength(1);
    expect(await names(stream)).toEqual(["DigitPressed"]);
  });
});

describe("events", () => {
  it("records key presses, with results computed by the action", async () => {
    const stream = fresh();
    await type(stream, "12+3=");
    const events = await app.queryArray({ stream });
    expect(events.map((e) => [e.name, e.data])).toEqual([
      ["DigitPressed", { digit: "1" }],
      ["DigitPressed", { digit: "2" }],
      ["OperatorPressed", { operator: "+" }],
      ["DigitPressed", { digit: "3" }],
      ["EqualsPressed", { result: 15 }],
    ]);
    expect(events.map((e) => e.version)).toEqual([0, 1, 2, 3, 4]);
    expect(events.every((e) => e.meta.causation.action?.actor.id === "user")).toBe(true);
  });

  it("removes the operator from the state after '=' (patch drops undefined keys)", async () => {
    const stream = fresh();
    await type(stream, "1+1=");
    const { state } = await app.load(Calculator, stream);
    expect(state).toEqual({ left: "2", right: "", result: 2 });
    expect("operator" in state).toBe(false);
  });
});

describe("invariants and validation", () => {
  it("refuses to divide by zero, at '=' and at a chained operator", async () => {
    const stream = fresh();
    await type(stream, "1/0");
    await expect(press("=", stream)).rejects.toThrow(InvariantError);
    await expect(press("+", stream)).rejects.toMatchObject({
      description: "Cannot divide by zero",
      action: "PressOperator",
    });
    expect(await type(stream, "5=")).toBe("0.2"); // "1 ÷ 05": keep typing, then it works
  });

  it("refuses Clear on a clean calculator, then clears a used one", async () => {
    const stream = fresh();
    const error = await press("C", stream).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvariantError);
    expect((error as InvariantError).description).toBe("Calculator must not be clean");
    expect(await app.queryArray({ stream })).toHaveLength(0);

    await type(stream, "7+");
    const [cleared] = await press("C", stream);
    expect(cleared.state).toEqual({ left: "", right: "" });
    await expect(press("C", stream)).rejects.toThrow("Calculator must not be clean");
  });

  it("rejects a payload that is not a key", async () => {
    await expect(
      app.do("PressDigit", { stream: fresh(), actor: { id: "u", name: "U" } }, { digit: "a" as Key as never })
    ).rejects.toThrow(ValidationError);
  });

  it("reads keyboard spellings", () => {
    expect(["*", "x", "/", "-", "c", "AC", "+", "="].map(toKey)).toEqual(["×", "×", "÷", "−", "C", "C", "+", "="]);
    expect(toKey("?")).toBeUndefined();
  });
});

describe("snapshots", () => {
  it("commits a snapshot every 10 events and loads from it", async () => {
    const stream = fresh();
    // 12 key presses → 12 events, a snapshot after the tenth.
    expect(await type(stream, "11+22+33+44=")).toBe("110");
    const all = await app.queryArray({ stream, with_snaps: true });
    expect(all.map((e) => e.name).filter((name) => (name as string) === SNAP_EVENT)).toHaveLength(1);
    const snap = all.find((e) => (e.name as string) === SNAP_EVENT)!;
    expect(snap.version).toBe(10);

    const loaded = await app.load(Calculator, stream);
    expect(loaded.snaps).toBe(1);
    expect(loaded.patches).toBe(2); // only the tail after the snapshot was folded
    expect(loaded.state.result).toBe(110);
  });

  it("a snapshot changes nothing: the state equals the replay of every event", async () => {
    const stream = fresh();
    await type(stream, "9*9*9*9*9=");
    const events = await app.queryArray({ stream });
    let replayed = Calculator.init();
    for (const e of events) replayed = { ...replayed, ...(Calculator.patch as any)[e.name](e, replayed) };
    const { state } = await app.load(Calculator, stream);
    expect(display(state)).toBe("59049");
    expect(display(replayed as any)).toBe(display(state));
  });
});
