import type { ZodType } from "zod";

/**
 * Restoring dates that a store kept as JSON.
 *
 * Stores keep event data as JSON, where a `Date` becomes its ISO string. A
 * string that merely looks like a date must stay a string, so dates are
 * restored by the schema that describes the value — only where it declares
 * `z.date()` — never by guessing from the text.
 */

/** Turns a stored value back into the shape its schema describes. */
export type Reviver = (value: unknown) => unknown;

/** Compiled revivers by schema; `null` when the schema holds no date (nothing to do). */
const compiled = new WeakMap<object, Reviver | null>();

/** The parts of a zod 4 definition the walk needs. */
type Def = {
  type: string;
  shape?: Record<string, ZodType>;
  element?: ZodType;
  items?: ZodType[];
  rest?: ZodType | null;
  valueType?: ZodType;
  innerType?: ZodType;
  options?: ZodType[];
  left?: ZodType;
  right?: ZodType;
  in?: ZodType;
  getter?: () => ZodType;
};

const defOf = (schema: ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function toDate(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date;
}

/**
 * The reviver of `schema`, or `undefined` when it holds no date. Compiled once
 * per schema; recursive (`z.lazy`) schemas are followed as the value is walked.
 */
export function reviver(schema: ZodType | undefined): Reviver | undefined {
  if (!schema) return undefined;
  const known = compiled.get(schema);
  if (known !== undefined) return known ?? undefined;
  // Mark first: a recursive schema that reaches itself again adds no dates of its own.
  compiled.set(schema, null);
  const made = compile(schema);
  compiled.set(schema, made ?? null);
  return made;
}

function compile(schema: ZodType): Reviver | undefined {
  const def = defOf(schema);
  switch (def.type) {
    case "date":
      return toDate;
    case "object": {
      const fields = Object.entries(def.shape ?? {}).flatMap(([key, field]) => {
        const revive = reviver(field);
        return revive ? [[key, revive] as const] : [];
      });
      if (!fields.length) return undefined;
      return (value) => {
        if (!isRecord(value)) return value;
        const copy = { ...value };
        for (const [key, revive] of fields) if (key in copy) copy[key] = revive(copy[key]);
        return copy;
      };
    }
    case "array": {
      const revive = reviver(def.element);
      return revive && ((value) => (Array.isArray(value) ? value.map(revive) : value));
    }
    case "tuple": {
      const items = (def.items ?? []).map((item) => reviver(item));
      const rest = reviver(def.rest ?? undefined);
      if (!rest && !items.some(Boolean)) return undefined;
      return (value) =>
        Array.isArray(value) ? value.map((item, i) => (i < items.length ? items[i] : rest)?.(item) ?? item) : value;
    }
    case "record": {
      const revive = reviver(def.valueType);
      return (
        revive &&
        ((value) =>
          isRecord(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, revive(v)])) : value)
      );
    }
    case "union": {
      // Pick the first option whose revived value it accepts; a union of a
      // date and a string thus restores only strings that are valid dates.
      const options = (def.options ?? []).flatMap((option) => {
        const revive = reviver(option);
        return revive ? [[option, revive] as const] : [];
      });
      if (!options.length) return undefined;
      return (value) => {
        for (const [option, revive] of options) {
          const revived = revive(value);
          if (option.safeParse(revived).success) return revived;
        }
        return value;
      };
    }
    case "intersection": {
      const left = reviver(def.left);
      const right = reviver(def.right);
      if (!left || !right) return left ?? right;
      return (value) => right(left(value));
    }
    case "pipe":
      return reviver(def.in);
    case "lazy":
      return (value) => reviver(def.getter!())?.(value) ?? value;
    default:
      // optional, nullable, default, catch, readonly, nonoptional, prefault…
      return def.innerType ? reviver(def.innerType) : undefined;
  }
}
