import { describe, expect, it } from "vitest";
import { stringifyJson } from "../src/json.js";

describe("stringifyJson", () => {
  it("serialises plain data, dates as ISO strings", () => {
    const when = new Date("2025-01-02T03:04:05.678Z");
    expect(stringifyJson({ a: [1, "x", null, true], when }, "data")).toBe(
      '{"a":[1,"x",null,true],"when":"2025-01-02T03:04:05.678Z"}'
    );
  });

  it.each([
    ["a function", { nested: { fn: () => 1 } }, /data\.nested\.fn is a function/],
    ["a symbol", { s: Symbol("x") }, /data\.s is a symbol/],
    ["a bigint", { list: [1, 2n] }, /data\.list\[1\] is a bigint/],
    ["NaN", { n: Number.NaN }, /data\.n is NaN/],
    ["Infinity", { n: Number.POSITIVE_INFINITY }, /data\.n is Infinity/],
    ["a Map", { m: new Map([["k", 1]]) }, /data\.m is a Map/],
    ["a Set", { s: new Set([1]) }, /data\.s is a Set/],
    ["a class instance", { u: new Uint8Array(2) }, /data\.u is a Uint8Array/],
    ["a NUL character", { t: "a\u0000b" }, /data\.t contains a NUL character/],
    ["a NUL character in a key", { "a\u0000": 1 }, /NUL character/],
  ])("refuses %s, naming its path", (_, value, message) => {
    expect(() => stringifyJson(value, "data")).toThrow(message);
    expect(() => stringifyJson(value, "data")).toThrow(TypeError);
  });

  it("refuses circular structures and undefined", () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    expect(() => stringifyJson(cycle, "data")).toThrow(/data is a circular structure/);
    expect(() => stringifyJson(undefined, "data")).toThrow(/data is undefined/);
  });

  it("writes values nested deeper than its fast check the same way, and still names a bad value there", () => {
    let deep: Record<string, unknown> = { leaf: [1, "a", true, null, new Date(0)] };
    for (let i = 0; i < 100; i++) deep = { down: deep };
    expect(stringifyJson(deep, "data")).toBe(JSON.stringify(deep));
    let bad: Record<string, unknown> = { leaf: Number.NaN };
    for (let i = 0; i < 100; i++) bad = { d: bad };
    expect(() => stringifyJson(bad, "data")).toThrow(new RegExp(`^data${"\\.d".repeat(100)}\\.leaf is NaN`));
  });

  it("drops undefined object keys and writes undefined array items as null, as JSON does", () => {
    expect(stringifyJson({ a: undefined, b: [undefined, 1] }, "data")).toBe('{"b":[null,1]}');
  });

  it("accepts objects with toJSON that return plain values and null prototypes", () => {
    const bare = Object.assign(Object.create(null), { x: 1 });
    expect(stringifyJson({ bare, v: { toJSON: () => "v" } }, "data")).toBe('{"bare":{"x":1},"v":"v"}');
  });
});
