import { type ZodType, z } from "zod";

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
  catchall?: ZodType;
  out?: ZodType;
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
    case "pipe": {
      // A stored value is the pipe's output: revive it as its output schema
      // describes it; a bare transform's output is not described, so its
      // input is the best guess there is.
      const out = def.out && defOf(def.out).type !== "transform" ? def.out : undefined;
      return out ? reviver(out) : reviver(def.in);
    }
    case "lazy":
      return (value) => reviver(def.getter!())?.(value) ?? value;
    default:
      // optional, nullable, default, catch, readonly, nonoptional, prefault…
      return def.innerType ? reviver(def.innerType) : undefined;
  }
}

/**
 * What a transform means for stored values.
 *
 * An event is stored as its schema's *output*: `do` validates the emitted
 * data (running its transforms and defaults) and commits the result. On
 * read, that output is checked against the output side of the schema
 * instead of being parsed again as input — running a transform twice (1.5
 * dollars stored as 150 cents coming back as 15000) or on a value of the
 * wrong type (a Date given to `z.string()`) is exactly what must not happen.
 *
 * The output side of a schema is the schema with every pipe replaced by its
 * output: `a.pipe(b)` reads as `b`, a codec reads as its output schema, and
 * `z.preprocess(fn, b)` reads as `b`. A bare `.transform(fn)` says nothing
 * about what `fn` returns, so its value is read back as stored (not checked);
 * describe the output with `.pipe(schema)` or use `z.codec` to have it
 * checked and its dates restored. Defaults, refinements and every other
 * wrapper stay, so a field added later with a default fills older events.
 */
type Side = "read" | "strict" | "shape";

const sides: Record<Side, WeakMap<object, ZodType>> = {
  read: new WeakMap(),
  strict: new WeakMap(),
  shape: new WeakMap(),
};

/** Rebuilds `schema` with a new definition, or returns it when nothing changed. */
const rebuilt = (schema: ZodType, def: Def, changes: Partial<Def>): ZodType =>
  Object.entries(changes).every(([key, value]) => (def as Record<string, unknown>)[key] === value)
    ? schema
    : (schema as unknown as { clone: (def: object) => ZodType }).clone({ ...def, ...changes });

function side(schema: ZodType, which: Side): ZodType {
  const known = sides[which].get(schema);
  if (known) return known;
  // A recursive schema reaches itself again while it is being derived: that
  // reference reads as the derived schema, once it exists.
  if (deriving.has(schema)) return z.lazy(() => sides[which].get(schema) ?? schema);
  deriving.add(schema);
  try {
    return derive(schema, which);
  } finally {
    deriving.delete(schema);
  }
}

/** Schemas being derived right now (see `side`). */
const deriving = new Set<object>();

function derive(schema: ZodType, which: Side): ZodType {
  const def = defOf(schema);
  const of = (inner: ZodType | undefined) => (inner ? side(inner, which) : inner);
  let made: ZodType;
  switch (def.type) {
    case "pipe":
      made =
        def.out && defOf(def.out).type !== "transform"
          ? side(def.out, which)
          : which === "read"
            ? z.unknown()
            : which === "strict"
              ? z.never()
              : side(def.in!, which);
      break;
    case "transform":
      made = which === "strict" ? z.never() : z.unknown();
      break;
    case "object": {
      const fields = Object.entries(def.shape ?? {}).map(([key, field]) => [key, side(field, which)] as const);
      const catchall = of(def.catchall);
      const same = fields.every(([key, field]) => field === def.shape![key]) && catchall === def.catchall;
      made = same ? schema : rebuilt(schema, def, { shape: Object.fromEntries(fields), catchall });
      break;
    }
    case "array":
      made = rebuilt(schema, def, { element: of(def.element) });
      break;
    case "tuple": {
      const items = (def.items ?? []).map((item) => side(item, which));
      made =
        items.every((item, i) => item === def.items![i]) && of(def.rest ?? undefined) === (def.rest ?? undefined)
          ? schema
          : rebuilt(schema, def, { items, rest: def.rest ? side(def.rest, which) : def.rest });
      break;
    }
    case "record":
      made = rebuilt(schema, def, { valueType: of(def.valueType) });
      break;
    case "union": {
      const options = (def.options ?? []).map((option) => side(option, which));
      made = options.every((option, i) => option === def.options![i]) ? schema : rebuilt(schema, def, { options });
      break;
    }
    case "intersection":
      made = rebuilt(schema, def, { left: of(def.left), right: of(def.right) });
      break;
    case "lazy":
      made = z.lazy(() => side(def.getter!(), which));
      break;
    default:
      // optional, nullable, default, catch, readonly, nonoptional, prefault…
      made = def.innerType ? rebuilt(schema, def, { innerType: side(def.innerType, which) }) : schema;
  }
  sides[which].set(schema, made);
  return made;
}

/**
 * The schema a stored value is read with: the output side of `schema` (see
 * above), so no transform runs again on read. Derived once per schema.
 */
export function readSchema(schema: ZodType): ZodType;
export function readSchema(schema: ZodType | undefined): ZodType | undefined;
export function readSchema(schema: ZodType | undefined): ZodType | undefined {
  return schema && side(schema, "read");
}

/**
 * The shape a schema stores, for fingerprints: its output side, where a bare
 * transform counts as keeping its input's shape (a transform that changes
 * the type should say so with `.pipe(schema)`, or bump the snapshot version).
 */
export function shapeSchema(schema: ZodType): ZodType {
  return side(schema, "shape");
}

/**
 * The output side of `schema` where every part is described: like
 * `readSchema`, but a bare transform accepts nothing. It recognises data
 * that is already the schema's output — a `Date` emitted for
 * `z.string().transform(…).pipe(z.date())` — without letting an
 * undescribed transform wave anything through.
 */
export function outputSchema(schema: ZodType): ZodType {
  return side(schema, "strict");
}
