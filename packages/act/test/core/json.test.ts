import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { copyJson, stringifyJson } from "../../src/core/json.js";
import { seedRuns } from "../seeds.js";

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

/** `value` and everything in it is frozen. */
function frozenAllDown(value: unknown): boolean {
  if (!value || typeof value !== "object") return true;
  return Object.isFrozen(value) && Object.values(value).every(frozenAllDown);
}

describe("copyJson", () => {
  /** What a store that keeps the JSON text gives back. */
  const roundTrip = (value: unknown) => JSON.parse(stringifyJson(value, "data"));

  it("gives back what the JSON text would, frozen: dates as text, -0 as 0, undefined dropped or null", () => {
    const value = { at: new Date(0), bad: new Date(Number.NaN), n: -0, u: undefined, list: [undefined, -0, "x"] };
    const copy = copyJson(value, "data");
    expect(copy).toStrictEqual(roundTrip(value));
    expect(Object.is((copy as { n: number }).n, 0)).toBe(true);
    expect(frozenAllDown(copy)).toBe(true);
    // A copy: the caller's value is neither shared nor frozen.
    expect(Object.isFrozen(value)).toBe(false);
  });

  it("keeps a key named __proto__ as a key, as parsing the text does", () => {
    const value = JSON.parse('{"__proto__":{"x":1},"y":2}');
    const copy = copyJson(value, "data");
    expect(Object.keys(copy)).toEqual(["__proto__", "y"]);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(copy).toStrictEqual(roundTrip(value));
  });

  it("refuses what stringifyJson refuses, with the same message", () => {
    for (const bad of [undefined, { n: 1n }, { f: () => 1 }, { s: "a\0b" }, { m: new Map() }, [Number.NaN]]) {
      expect(() => copyJson(bad, "data")).toThrow(TypeError);
      expect(() => copyJson(bad, "data")).toThrow(
        (() => {
          try {
            stringifyJson(bad, "data");
          } catch (error) {
            return (error as Error).message;
          }
          return "stringifyJson accepted it";
        })()
      );
    }
  });

  it("equals the JSON round trip for any value, key order and -0 included (property)", () => {
    // Values of every kind JSON meets: plain ones, dates (valid or not), -0,
    // undefined, objects with toJSON or a null prototype, class instances,
    // keys like __proto__, NUL characters.
    const leaf = fc.oneof(
      fc.jsonValue({ maxDepth: 1 }),
      fc.constantFrom(-0, undefined, Number.NaN, "a\0", new Date(0), new Date(Number.NaN), 1n),
      fc.date({ noInvalidDate: true })
    );
    const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
      tree: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        leaf,
        fc.array(tie("tree"), { maxLength: 4 }),
        fc.dictionary(
          fc.oneof(fc.string({ maxLength: 3 }), fc.constantFrom("__proto__", "toJSON", "a\0")),
          tie("tree"),
          {
            maxKeys: 4,
          }
        ),
        fc.record({ toJSON: fc.constant(() => "own") }),
        tie("tree").map((inner) => Object.assign(Object.create(null), { inner })),
        fc.constant(new Map())
      ),
    }));
    let copied = 0;
    for (const { seed, numRuns } of seedRuns("COPY_JSON", { seed: 1_406_317, numRuns: 1_000 }, 1_000)) {
      fc.assert(
        fc.property(tree, (value) => {
          let expected: unknown;
          let refusal: string | undefined;
          try {
            expected = roundTrip(value);
          } catch (error) {
            refusal = (error as Error).message;
          }
          if (refusal !== undefined) {
            expect(() => copyJson(value, "data")).toThrow(refusal);
            return;
          }
          const copy = copyJson(value, "data");
          copied++;
          expect(copy).toStrictEqual(expected);
          expect(JSON.stringify(copy)).toBe(stringifyJson(value, "data"));
          expect(frozenAllDown(copy)).toBe(true);
        }),
        { seed, numRuns }
      );
    }
    // Both outcomes must be common for the property to test them.
    expect(copied).toBeGreaterThan(200);
  });
});
