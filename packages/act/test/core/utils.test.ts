import { webcrypto } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { extend, patch, sleep, validate, ValidationError } from "../../src/index.js";
import { uuid } from "../../src/core/utils.js";

describe("patch", () => {
  it("deep-merges plain objects without mutating the inputs", () => {
    const original = { a: 1, b: { c: 2, d: { e: 3 } } };
    const partial = { b: { d: { f: 4 } } };
    const merged = patch<any>(original, partial);
    expect(merged).toEqual({ a: 1, b: { c: 2, d: { e: 3, f: 4 } } });
    expect(original).toEqual({ a: 1, b: { c: 2, d: { e: 3 } } });
    expect(partial).toEqual({ b: { d: { f: 4 } } });
    expect(merged.b).not.toBe(original.b);
  });

  it("removes keys set to undefined or null", () => {
    expect(patch<any>({ a: 1, b: 2, c: { d: 1, e: 2 } }, { a: undefined, c: { d: null } })).toEqual({
      b: 2,
      c: { e: 2 },
    });
  });

  it("replaces arrays, dates, maps, sets, typed arrays and class instances", () => {
    class Money {
      constructor(public cents: number) {}
    }
    const date = new Date(0);
    const next = {
      list: [3],
      when: new Date(1),
      map: new Map([["b", 2]]),
      set: new Set([2]),
      bytes: new Uint8Array([2]),
      money: new Money(2),
    };
    const merged = patch<any>(
      {
        list: [1, 2],
        when: date,
        map: new Map([["a", 1]]),
        set: new Set([1]),
        bytes: new Uint8Array([1]),
        money: new Money(1),
      },
      next
    );
    for (const key of Object.keys(next)) expect(merged[key]).toBe((next as any)[key]);
  });

  it("replaces a plain object with a primitive and back", () => {
    expect(patch<any>({ a: { b: 1 } }, { a: 5 })).toEqual({ a: 5 });
    expect(patch<any>({ a: 5 }, { a: { b: 1 } })).toEqual({ a: { b: 1 } });
  });

  it("merges objects without a prototype", () => {
    const bare = Object.assign(Object.create(null), { x: 1 });
    expect(patch<any>({ o: bare }, { o: { y: 2 } })).toEqual({ o: { x: 1, y: 2 } });
  });
});

describe("validate", () => {
  const Point = z.object({ x: z.number(), nested: z.object({ y: z.string() }) });

  it("returns the parsed payload", () => {
    expect(validate("point", { x: 1, nested: { y: "a" }, extra: true }, Point)).toEqual({ x: 1, nested: { y: "a" } });
  });

  it("returns a payload already in the schema's exact shape as it is, and parses any other", () => {
    const exact = { x: 1, nested: { y: "a" } };
    expect(validate("point", exact, Point)).toBe(exact);
    const withDefault = z.object({ x: z.number(), tags: z.array(z.string()).default([]) });
    expect(validate("tagged", { x: 1 }, withDefault)).toEqual({ x: 1, tags: [] });
    const extra = { x: 1, nested: { y: "a" }, extra: true };
    expect(validate("point", extra, Point)).not.toBe(extra);
  });

  it("returns the payload as is without a schema", () => {
    const payload = { any: 1 };
    expect(validate("anything", payload)).toBe(payload);
  });

  it("throws a ValidationError whose details name each bad field", () => {
    const error = (() => {
      try {
        validate("point", { x: "1", nested: { y: 2 } }, Point);
      } catch (e) {
        return e as ValidationError;
      }
    })()!;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.name).toBe("ERR_VALIDATION");
    expect(error.details.map((d) => d.path)).toEqual(["x", "nested.y"]);
    expect(error.message).toMatch(/^Invalid point: x: .*number.*; nested\.y: .*string/);
    expect(error.payload).toEqual({ x: "1", nested: { y: 2 } });
  });
});

describe("extend", () => {
  it("validates the source and merges it over the target", () => {
    const schema = z.object({ port: z.number() });
    expect(extend({ port: 8080 }, schema, { host: "localhost", port: 1 })).toEqual({ host: "localhost", port: 8080 });
    expect(extend({ port: 1 }, schema)).toEqual({ port: 1 });
    expect(() => extend({ port: "x" } as any, schema)).toThrow(/port/);
  });
});

describe("sleep", () => {
  /** Whether `promise` has resolved once the fake clock moved `ms` forward. */
  async function resolvedAfter(promise: Promise<void>, ms: number): Promise<boolean> {
    let resolved = false;
    void promise.then(() => {
      resolved = true;
    });
    await vi.advanceTimersByTimeAsync(ms);
    return resolved;
  }

  it("resolves after the delay, not before", async () => {
    vi.useFakeTimers();
    try {
      const slept = sleep(20);
      expect(await resolvedAfter(slept, 19)).toBe(false);
      expect(await resolvedAfter(slept, 1)).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it("defaults to SLEEP_MS", async () => {
    vi.useFakeTimers();
    process.env.SLEEP_MS = "60";
    try {
      const slept = sleep();
      expect(await resolvedAfter(slept, 59)).toBe(false);
      expect(await resolvedAfter(slept, 1)).toBe(true);
    } finally {
      delete process.env.SLEEP_MS;
      vi.useRealTimers();
    }
  });

  it("does not wait by default under NODE_ENV=test, and waits 100 ms elsewhere", async () => {
    vi.useFakeTimers();
    const env = process.env.NODE_ENV;
    try {
      expect(await resolvedAfter(sleep(), 0)).toBe(true);
      process.env.NODE_ENV = "production";
      const slept = sleep();
      expect(await resolvedAfter(slept, 99)).toBe(false);
      expect(await resolvedAfter(slept, 1)).toBe(true);
    } finally {
      process.env.NODE_ENV = env;
      vi.useRealTimers();
    }
  });
});

describe("uuid", () => {
  it("is a v4 UUID, also where crypto.randomUUID is missing", () => {
    const v4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    expect(uuid()).toMatch(v4);
    vi.stubGlobal("crypto", { getRandomValues: (a: Uint8Array) => webcrypto.getRandomValues(a) });
    const ids = new Set(Array.from({ length: 50 }, () => uuid()));
    vi.unstubAllGlobals();
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(v4);
  });
});

describe("hardening", () => {
  it("validate turns a schema that throws into a ValidationError naming the target", async () => {
    const { validate, ValidationError } = await import("../../src/index.js");
    const { z } = await import("zod");
    const exploding = z.string().transform(() => {
      throw new Error("boom");
    });
    expect(() => validate('payload of action "x"', "a", exploding)).toThrow(ValidationError);
    expect(() => validate('payload of action "x"', "a", exploding)).toThrow(
      /Invalid payload of action "x": the schema threw: boom/
    );
    const error = (() => {
      try {
        validate("payload", "a", exploding);
      } catch (e) {
        return e as ValidationError & { cause?: unknown };
      }
    })();
    expect(error?.details).toEqual([{ path: "", message: "the schema threw: boom" }]);
    expect((error?.cause as Error | undefined)?.message).toBe("boom");
  });

  it("patch ignores keys that would reach a prototype", async () => {
    const { patch } = await import("../../src/index.js");
    const merged = patch(
      { a: 1 } as Record<string, unknown>,
      JSON.parse('{"__proto__": {"polluted": 1}, "constructor": {"x": 1}, "prototype": 2, "b": 2}')
    );
    expect(merged).toEqual({ a: 1, b: 2 });
    expect(Object.hasOwn(merged, "__proto__")).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Nested objects are merged by the same rule.
    const nested = patch(
      { a: { b: 1 } } as Record<string, unknown>,
      JSON.parse('{"a": {"__proto__": {"polluted": 1}, "c": 2}}')
    );
    expect(nested).toEqual({ a: { b: 1, c: 2 } });
    expect(Object.hasOwn(nested.a as object, "__proto__")).toBe(false);
    expect(Object.getPrototypeOf(nested.a)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
