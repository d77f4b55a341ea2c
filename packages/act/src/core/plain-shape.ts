import { type ZodType, z } from "zod";

/**
 * The fast path of reading stored events.
 *
 * Most event schemas are plain JSON: objects of strings, numbers, booleans,
 * enums and arrays of them, with nothing that changes a value on the way
 * through (no defaults to fill, dates to restore, transforms, coercion,
 * stripped keys or refinements of whole objects). Stored data that matches
 * such a schema exactly is what zod would return anyway, only copied, so it
 * can be used as it is: checking it costs a few `typeof`s per field and
 * allocates nothing, where a full parse builds a new object per event.
 *
 * A matcher only says "this value is already the schema's output". Anything
 * it does not recognise — a schema part outside the plain set, an extra key,
 * a missing field with a default, a value of the wrong type — is "no", and
 * the caller takes the full decode (zod, date revival, upcasters), which also
 * produces the error message when the data is really wrong.
 */
export type Matcher = (value: unknown) => boolean;

/** Matchers by schema; `null` when the schema is not plain (always the full decode). */
const matchers = new WeakMap<object, Matcher | null>();

/** The parts of a zod 4 definition the matcher reads. */
type Def = {
  type: string;
  checks?: { _zod: { def: Check } }[];
  coerce?: boolean;
  shape?: Record<string, ZodType>;
  catchall?: ZodType;
  element?: ZodType;
  innerType?: ZodType;
};

/** The parts of a check's definition (`int()`, `min()`, `lt()`…) the matcher reads. */
type Check = { check?: string; format?: string; value?: unknown; inclusive?: boolean; when?: unknown };

const defOf = (schema: ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** A field of an object: how to match it, and whether it may be missing. */
type Field = { key: string; match: Matcher; optional: boolean };

/**
 * Declares `check` to say exactly what `schema` says (true where zod accepts
 * the value and returns it unchanged): the matcher then uses it instead of
 * asking zod. For checked leaves met on every action and commit — the name
 * rules of streams, events and correlation ids — where a zod parse per value
 * costs more than the rest of the check. A property test must hold the two
 * equal.
 */
export function nativeMatcher(schema: ZodType, check: Matcher): void {
  matchers.set(schema, check);
}

/**
 * The matcher of `schema`, or `undefined` when the schema is not plain.
 * Compiled once per schema.
 */
export function plainMatcher(schema: ZodType): Matcher | undefined {
  const known = matchers.get(schema);
  if (known !== undefined) return known ?? undefined;
  const made = compile(schema);
  matchers.set(schema, made ?? null);
  return made;
}

/** A leaf with checks the matcher does not read itself (a `regex`, a string length, an enum…) asks zod, and must come back unchanged. */
const viaZod =
  (schema: ZodType): Matcher =>
  (value) => {
    try {
      const parsed = schema.safeParse(value);
      return parsed.success && parsed.data === value;
    } catch {
      return false;
    }
  };

function compile(schema: ZodType): Matcher | undefined {
  const def = defOf(schema);
  if (def.coerce) return undefined;
  // Checks live in `checks`, or in the definition itself for formats
  // (`z.int()`, `z.email()`…): a leaf is bare only without either.
  const checked = (def.checks?.length ?? 0) > 0 || "check" in def;
  switch (def.type) {
    case "string":
      return checked ? viaZod(schema) : (value) => typeof value === "string";
    case "number":
      return numberMatcher(def) ?? viaZod(schema);
    case "boolean":
      return checked ? viaZod(schema) : (value) => typeof value === "boolean";
    case "null":
      return (value) => value === null;
    case "date":
      // A valid `Date` is what zod returns as it is. Stored events hold dates
      // as text, which this says no to: they take the full decode.
      return checked ? viaZod(schema) : (value) => value instanceof Date && !Number.isNaN(value.getTime());
    case "literal":
    case "enum":
      return viaZod(schema);
    case "unknown":
    case "any":
      return () => true;
    case "nullable": {
      const inner = def.innerType && plainMatcher(def.innerType);
      return inner && ((value) => value === null || inner(value));
    }
    case "optional": {
      const inner = def.innerType && plainMatcher(def.innerType);
      return inner && ((value) => value === undefined || inner(value));
    }
    case "array": {
      if (checked || !def.element) return undefined;
      const element = plainMatcher(def.element);
      return element && ((value) => Array.isArray(value) && value.every(element));
    }
    case "object":
      return objectMatcher(def);
    default:
      // Dates (revived from text), defaults, transforms, pipes, unions,
      // records, tuples, lazy and readonly schemas take the full decode.
      return undefined;
  }
}

/**
 * A number with only the checks zod applies without a callback — whole
 * numbers (`int()`, `z.int()`) and bounds (`min`, `max`, `gt`, `lt`,
 * `positive`…) — checked directly: options, versions and ids are checked on
 * every action and commit, where a zod parse per value costs more than the
 * rest of the check. Any other check (`multipleOf`, `int32`, a custom one):
 * `undefined`, so zod is asked.
 */
function numberMatcher(def: Def): Matcher | undefined {
  let whole = false;
  let min = Number.NEGATIVE_INFINITY;
  let minIncluded = true;
  let max = Number.POSITIVE_INFINITY;
  let maxIncluded = true;
  // `z.int()` keeps its format in the definition itself; `.int()` adds a check.
  const checks = [...("check" in def ? [def as Check] : []), ...(def.checks ?? []).map((c) => c._zod.def)];
  for (const { check, format, value, inclusive, when } of checks) {
    if (when !== undefined) return undefined;
    if (check === "number_format" && format === "safeint") whole = true;
    else if (check === "greater_than" && typeof value === "number") {
      // The tightest lower bound wins; at the same value, "greater than" is tighter than "at least".
      if (value > min || (value === min && !inclusive)) {
        min = value;
        minIncluded = inclusive === true;
      }
    } else if (check === "less_than" && typeof value === "number") {
      if (value < max || (value === max && !inclusive)) {
        max = value;
        maxIncluded = inclusive === true;
      }
    } else return undefined;
  }
  // zod's number refuses NaN and the infinities; its "safeint" format, fractions and unsafe integers.
  // A bare number (the most common field of event data) is checked without the bounds.
  if (!whole && min === Number.NEGATIVE_INFINITY && max === Number.POSITIVE_INFINITY)
    return (value) => typeof value === "number" && Number.isFinite(value);
  return (value) =>
    typeof value === "number" &&
    (whole ? Number.isSafeInteger(value) : Number.isFinite(value)) &&
    (minIncluded ? value >= min : value > min) &&
    (maxIncluded ? value <= max : value < max);
}

/**
 * An object schema's matcher. In both of its forms it checks that the value
 * is a plain object (not null, not an array); that each declared field is
 * either missing (allowed only when optional) or matches its own matcher;
 * and that the object has no key the schema does not declare, which zod
 * would strip. A field is read as zod reads it (`value[key]`, not an
 * own-property test), so the matcher says yes only where zod's parse would
 * return the same values.
 */
function objectMatcher(def: Def): Matcher | undefined {
  // Refinements of the whole object, or a catchall that keeps or checks
  // unknown keys: the full decode.
  if ((def.checks?.length ?? 0) > 0 || def.catchall) return undefined;
  const fields: Field[] = [];
  for (const [key, field] of Object.entries(def.shape ?? {})) {
    const match = plainMatcher(field);
    if (!match) return undefined;
    fields.push({ key, match, optional: defOf(field).type === "optional" });
  }
  return generatedObjectMatcher(fields) ?? closureObjectMatcher(fields);
}

/**
 * The object matcher as a function generated for this schema, the way zod
 * compiles its own object parsers: the field names are written into it, so
 * each read is a plain property access, and each field matcher is called
 * from a call site of its own. A load calls it for every event it folds; the
 * closure below, shared by every object schema of the process, took about
 * a quarter of a 5,000-event load. Where zod generates no code — told not to
 * (`z.config({ jitless: true })`) or in a runtime that forbids `new Function`
 * — `undefined`, and the closure is used.
 */
function generatedObjectMatcher(fields: Field[]): Matcher | undefined {
  // Asked the way zod asks itself; a zod without the probe gets the closure.
  if (z.core.globalConfig?.jitless || z.core.util?.allowsEval?.value !== true) return undefined;
  const lines = fields.map(({ key, optional }, i) => {
    // JSON text of the key is a valid JavaScript string literal for it.
    const read = `item = value[${JSON.stringify(key)}];`;
    const missing = optional ? "" : "return false;";
    return `${read} if (item === undefined) { ${missing} } else if (!match[${i}](item)) return false; else present++;`;
  });
  const body = `"use strict";
return function matchObject(value) {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  let present = 0;
  let item;
  ${lines.join("\n  ")}
  let keys = 0;
  for (const _ in value) keys++;
  return keys === present;
};`;
  try {
    return new Function("match", body)(fields.map(({ match }) => match)) as Matcher;
  } catch {
    return undefined;
  }
}

/** The object matcher as one closure over the schema's fields: for runtimes where no code is generated. */
function closureObjectMatcher(fields: Field[]): Matcher {
  return (value) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
    const record = value as Record<string, unknown>;
    let present = 0;
    for (let i = 0; i < fields.length; i++) {
      const { key, match, optional } = fields[i];
      const item = record[key];
      if (item === undefined) {
        if (!optional) return false;
      } else if (!match(item)) return false;
      else present++;
    }
    // A key the schema does not declare would be stripped by zod: counted
    // without building the list of keys.
    let keys = 0;
    for (const _ in record) keys++;
    return keys === present;
  };
}
