/**
 * The fast path of reading events: a plain-JSON schema's matcher accepts only
 * values the full decode would return unchanged, so the two paths cannot
 * disagree. Reproduce a property failure with the seed fast-check prints:
 * `PLAIN_SEED=<seed> npx vitest run --project act packages/act/test/core/plain-shape.test.ts`.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { act, dispose, InMemoryStore, NameSchema, StreamSchema, state, store, upcaster } from "../../src/index.js";
import { decode } from "../../src/committing/load.js";
import { plainMatcher } from "../../src/core/plain-shape.js";
import { readSchema } from "../../src/builders/revive.js";
import { actor } from "../fixtures.js";

const seed = Number(process.env.PLAIN_SEED ?? 2_911_461);

/** A new ticket schema (each compiles a matcher of its own, in the mode in force then). */
const ticket = () =>
  z.object({
    title: z.string().min(1),
    priority: z.enum(["low", "high"]),
    points: z.int().nonnegative(),
    open: z.boolean(),
    tags: z.array(z.string()),
    owner: z.string().nullable(),
    note: z.string().optional(),
    nested: z.object({ n: z.number(), any: z.unknown() }),
  });
const Ticket = ticket();

/** A stored event of `data`, as a store hands it out. */
const event = (data: unknown) =>
  ({
    id: 1,
    stream: "s",
    version: 0,
    name: "E",
    data,
    created: new Date(0),
    meta: { correlation: "c", causation: {} },
  }) as never;

describe("plainMatcher", () => {
  it("compiles plain JSON schemas and leaves the rest to the full decode", () => {
    expect(plainMatcher(Ticket)).toBeTypeOf("function");
    // A date compiles, but only a `Date` matches: a stored date is text, which takes the full decode.
    expect(plainMatcher(z.object({ at: z.date() }))!({ at: new Date(0) })).toBe(true);
    expect(plainMatcher(z.object({ at: z.date() }))!({ at: new Date(0).toISOString() })).toBe(false);
    expect(plainMatcher(z.date())!(new Date(Number.NaN))).toBe(false);
    expect(plainMatcher(z.object({ n: z.number().default(1) }))).toBeUndefined();
    expect(plainMatcher(z.object({ n: z.string().transform((s) => s.length) }))).toBeUndefined();
    expect(plainMatcher(z.object({ n: z.number() }).refine((o) => o.n > 0))).toBeUndefined();
    expect(plainMatcher(z.looseObject({ n: z.number() }))).toBeUndefined();
    expect(plainMatcher(z.object({ n: z.coerce.number() }))).toBeUndefined();
    expect(plainMatcher(z.union([z.string(), z.number()]))).toBeUndefined();
    expect(plainMatcher(z.int())!(1.5)).toBe(false);
    expect(plainMatcher(z.email())!("not an address")).toBe(false);
  });
});

/**
 * An object matcher is a function generated for its schema, or — where zod
 * generates no code (`jitless`, or a runtime without `new Function`) — one
 * closure for every schema. Both must say the same.
 */
describe.each([
  ["generated", false],
  ["closure (jitless)", true],
])("an object matcher, %s", (_, jitless) => {
  /** The matcher of a new schema (a ticket by default), compiled in this mode. */
  const compiled = (schema: z.ZodType = ticket()) => {
    z.config({ jitless });
    try {
      return plainMatcher(schema)!;
    } finally {
      z.config({ jitless: false });
    }
  };

  it("is generated only where zod generates code", () => {
    expect(compiled().name).toBe(jitless ? "" : "matchObject");
  });

  it("reads keys that are not identifiers as the keys they are", () => {
    // Keys written into a generated function must stay keys, never code.
    const code = 'a"]; throw new Error("ran"); ["';
    // A backslash, a line separator, quotes and what a template literal would read as code.
    const odd = "b\\c\u2028'`\u0024{x}";
    const match = compiled(z.object({ [code]: z.number(), [odd]: z.string().optional() }));
    expect(match({ [code]: 1, [odd]: "s" })).toBe(true);
    expect(match({ [code]: 1 })).toBe(true);
    expect(match({ [code]: "1" })).toBe(false);
    expect(match({ a: 1 })).toBe(false);
    expect(match({ [code]: 1, [odd]: 2 })).toBe(false);
  });

  it("says no to extra keys, missing fields, wrong types and failed checks", () => {
    const match = compiled();
    const good = {
      title: "t",
      priority: "low",
      points: 2,
      open: true,
      tags: ["a"],
      owner: null,
      nested: { n: 1.5, any: { x: [1] } },
    };
    expect(match(good)).toBe(true);
    expect(match({ ...good, note: "n" })).toBe(true);
    expect(match({ ...good, extra: 1 })).toBe(false);
    const { open: _, ...missing } = good;
    expect(match(missing)).toBe(false);
    expect(match({ ...good, points: 1.5 })).toBe(false);
    expect(match({ ...good, points: -1 })).toBe(false);
    expect(match({ ...good, title: "" })).toBe(false);
    expect(match({ ...good, priority: "mid" })).toBe(false);
    expect(match({ ...good, tags: ["a", 1] })).toBe(false);
    expect(match({ ...good, nested: { n: "1", any: null } })).toBe(false);
    expect(match(null)).toBe(false);
    expect(match([good])).toBe(false);
  });

  it("accepts a value only when zod returns it unchanged (property)", () => {
    const match = compiled();
    const json = fc.jsonValue({ maxDepth: 2 });
    // Mostly valid values (so many candidates match), sometimes a near miss, sometimes any JSON.
    const field = <T>(valid: fc.Arbitrary<T>, ...misses: unknown[]) =>
      fc.oneof(
        { arbitrary: valid as fc.Arbitrary<unknown>, weight: 20 },
        { arbitrary: misses.length ? fc.constantFrom(...misses) : json, weight: 1 },
        { arbitrary: json, weight: 1 }
      );
    const candidate = fc.record(
      {
        title: field(fc.string({ minLength: 1, maxLength: 3 }), ""),
        priority: field(fc.constantFrom("low", "high"), "mid", "LOW"),
        points: field(fc.nat(5), -1, 1.5, "2"),
        open: field(fc.boolean(), 0, "true"),
        tags: field(fc.array(fc.string({ maxLength: 2 }), { maxLength: 3 }), [1], "a"),
        owner: field(fc.option(fc.string({ maxLength: 2 })), 0),
        note: field(fc.string({ maxLength: 2 }), null),
        nested: field(fc.record({ n: fc.double({ noNaN: true, noDefaultInfinity: true }), any: json }), { n: "1" }),
        extra: json,
      },
      { requiredKeys: ["title", "priority", "points", "open", "tags", "owner", "nested"] }
    );
    let matched = 0;
    fc.assert(
      fc.property(candidate, (value) => {
        const parsed = Ticket.safeParse(value);
        if (match(value)) {
          matched++;
          expect(parsed.success).toBe(true);
          expect(parsed.data).toEqual(value);
        } else if (parsed.success) {
          // The matcher may say no to a valid value only when zod changes it (strips a key).
          expect(parsed.data).not.toEqual(value);
        }
      }),
      { seed, numRuns: 500 }
    );
    // The generator must reach the fast path often enough to test it.
    expect(matched).toBeGreaterThan(20);
  });
});

describe("the direct check of numbers", () => {
  /** One check of a number schema, as a builder call. */
  const checkOf = fc.oneof(
    fc.constant({ call: "int" as const }),
    fc.record({
      call: fc.constantFrom("gt" as const, "gte" as const, "lt" as const, "lte" as const),
      value: fc.constantFrom(-1, 0, 1.5, 3),
    })
  );
  const build = (checks: { call: "int" | "gt" | "gte" | "lt" | "lte"; value?: number }[]) =>
    checks.reduce<z.ZodNumber>((s, c) => (c.call === "int" ? s.int() : s[c.call](c.value!)), z.number());
  const values = fc.oneof(
    fc.constantFrom(-3, -2, -1.5, -1, -0.5, -0, 0, 0.5, 1, 1.5, 2, 3, 4),
    fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
    fc.constantFrom(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1, Number.MIN_SAFE_INTEGER - 1, 2 ** 31),
    fc.double(),
    fc.constantFrom("1", null, undefined, true, 1n, [1])
  );

  it("says exactly what zod says for any mix of int() and bounds, without asking zod", () => {
    fc.assert(
      fc.property(fc.array(checkOf, { maxLength: 4 }), fc.array(values, { maxLength: 20 }), (checks, drawn) => {
        const schema = build(checks);
        // Each bound itself and its neighbours, where a bound's inclusiveness shows.
        const xs = [
          ...drawn,
          ...checks.flatMap((c) => (c.call === "int" ? [] : [c.value - 0.5, c.value, c.value + 0.5])),
        ];
        const parse = vi.spyOn(schema, "safeParse");
        const match = plainMatcher(schema)!;
        const direct = xs.map((x) => match(x));
        expect(parse).not.toHaveBeenCalled();
        expect(direct).toEqual(xs.map((x) => schema.safeParse(x).success));
      }),
      { seed, numRuns: 500 }
    );
  });

  it("covers z.int() and the whole-number options, and asks zod for other checks", () => {
    for (const schema of [z.int(), z.int().nonnegative(), z.number().positive()]) {
      const parse = vi.spyOn(schema, "safeParse");
      const match = plainMatcher(schema)!;
      const results = [-1, 0, 1, 1.5, 2 ** 53].map((x) => match(x));
      expect(parse).not.toHaveBeenCalled();
      expect(results).toEqual([-1, 0, 1, 1.5, 2 ** 53].map((x) => schema.safeParse(x).success));
    }
    for (const schema of [z.number().multipleOf(2), z.int32(), z.number().refine((n) => n !== 1)]) {
      const parse = vi.spyOn(schema, "safeParse");
      expect([2, 3, 1].map((x) => plainMatcher(schema)!(x))).toEqual([2, 3, 1].map((x) => schema.safeParse(x).success));
      expect(parse).toHaveBeenCalled();
    }
  });
});

describe("the native check of names", () => {
  /** Strings of any UTF-16 code units — lone surrogates and NUL included — short and past the limit. */
  const names = fc.oneof(
    fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 8 }),
    fc.array(fc.constantFrom(0, 0x61, 0xd800, 0xdc00, 0xdbff, 0xdfff, 0x1f600), { maxLength: 8 }),
    // Around the 256-unit limit: letters and emoji (two UTF-16 units each).
    fc.array(fc.constantFrom(0x61, 0x61, 0x61, 0x1f600), { minLength: 200, maxLength: 260 })
  );
  const text = (codes: number[]) => codes.map((code) => String.fromCodePoint(code)).join("");

  it("says exactly what the name schemas say, for every name", () => {
    for (const schema of [StreamSchema, NameSchema]) {
      const match = plainMatcher(schema)!;
      fc.assert(
        fc.property(names, (codes) => {
          const value = text(codes);
          expect(match(value)).toBe(schema.safeParse(value).success);
        }),
        { seed, numRuns: 2_000 }
      );
      for (const value of [undefined, null, 1, {}, "", "a".repeat(256), "a".repeat(257)])
        expect(match(value)).toBe(schema.safeParse(value).success);
    }
  });
});

describe("decode takes the fast path only where it gives the same event", () => {
  it("returns a matching event as it is", () => {
    const stored = event({ n: 1 });
    expect(decode(z.object({ n: z.number() }), undefined, stored)).toBe(stored);
  });

  it("strips an undeclared key, fills a default and restores a date through the full decode", () => {
    expect(decode(z.object({ n: z.number() }), undefined, event({ n: 1, old: true })).data).toEqual({ n: 1 });
    expect(decode(z.object({ n: z.number(), m: z.number().default(7) }), undefined, event({ n: 1 })).data).toEqual({
      n: 1,
      m: 7,
    });
    const at = new Date(5);
    expect(decode(z.object({ at: z.date() }), undefined, event({ at: at.toISOString() })).data).toEqual({ at });
  });

  it("upcasts a stored shape the current schema does not match", () => {
    const current = z.object({ cents: z.int() });
    const older = upcaster(z.object({ dollars: z.number() }), ({ dollars }) => ({ cents: Math.round(dollars * 100) }));
    expect(decode(current, [older as never], event({ dollars: 1.5 })).data).toEqual({ cents: 150 });
    // A stored value that fails a check of the current schema is no match either.
    expect(() => decode(current, undefined, event({ cents: 1.5 }))).toThrow(/event "E" #1 on stream "s"/);
  });

  it("is the schema's read side that is matched: a stored pipe output is not parsed again", () => {
    const cents = z
      .number()
      .transform((dollars) => Math.round(dollars * 100))
      .pipe(z.int());
    expect(plainMatcher(readSchema(cents))).toBeTypeOf("function");
    expect(decode(z.object({ cents }), undefined, event({ cents: 150 })).data).toEqual({ cents: 150 });
  });
});

describe("a state loads the same through either path", () => {
  afterEach(dispose());

  it("folds old and current shapes of one stream in order", async () => {
    const memory = new InMemoryStore();
    store(memory);
    const Account = state("Account", z.object({ cents: z.number() }))
      .init(() => ({ cents: 0 }))
      .emits({ Deposited: z.object({ cents: z.int() }) })
      .patch({ Deposited: (e, s) => ({ cents: s.cents + e.data.cents }) })
      .upcast({
        Deposited: [
          upcaster(z.object({ dollars: z.number() }), ({ dollars }) => ({ cents: Math.round(dollars * 100) })),
        ],
      })
      .on("deposit", z.object({ cents: z.int() }))
      .emit(({ cents }) => ["Deposited", { cents }])
      .build();
    const meta = { correlation: "c", causation: {} };
    await memory.commit({ stream: "a", messages: [{ name: "Deposited", data: { dollars: 1.25 } }], meta });
    const app = act().with(Account).build();
    await app.do("deposit", { stream: "a", actor }, { cents: 10 });
    await memory.commit({ stream: "a", messages: [{ name: "Deposited", data: { cents: 5, dropped: "x" } }], meta });
    const seen: unknown[] = [];
    const { state: loaded } = await app.load(Account, "a", { onSnapshot: (s) => seen.push(s.event?.data) });
    expect(loaded.cents).toBe(140);
    expect(seen).toEqual([{ cents: 125 }, { cents: 10 }, { cents: 5 }]);
  });
});
