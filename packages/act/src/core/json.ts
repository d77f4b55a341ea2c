/**
 * The one JSON encoding every store uses for event `data` and `meta`, so that
 * what a store accepts, and what comes back, is the same in all of them.
 *
 * Encoding refuses what JSON would silently change or drop (functions,
 * symbols, bigints, non-finite numbers, maps, sets, class instances, cycles)
 * and NUL characters, which PostgreSQL's text types cannot hold, naming the
 * path of the offending value. Dates are written by `Date#toJSON` and come
 * back from every store as strings; the app turns them back into dates where
 * the event's schema declares a date.
 */

/** Thrown when a value cannot be stored as JSON. */
function refuse(path: string, what: string): never {
  throw new TypeError(`${path} ${what}`);
}

const isPlain = (value: object) => {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null || Array.isArray(value);
};

/** How deep the fast check follows nested values; deeper ones (or a cycle) take the checking replacer. */
const PLAIN_DEPTH = 64;

/**
 * Whether `value` holds only what JSON keeps as it is: strings and keys
 * without NUL, finite numbers, booleans, null, undefined (dropped or turned
 * into null, as JSON does), dates, plain objects and arrays. Such values —
 * nearly every event — are written by the native `JSON.stringify`, which is
 * several times faster than one with a replacer; anything else (and anything
 * nested deeper than {@link PLAIN_DEPTH}, so a cycle cannot recurse forever)
 * takes the replacer, which refuses it with its path.
 */
function plainJson(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case "string":
      return !value.includes("\0");
    case "number":
      return Number.isFinite(value);
    case "boolean":
    case "undefined":
      return true;
    case "object": {
      if (value === null) return true;
      if (depth >= PLAIN_DEPTH) return false;
      const proto = Object.getPrototypeOf(value);
      if (proto === Date.prototype) return true;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!plainJson(value[i], depth + 1)) return false;
        return true;
      }
      if (proto !== Object.prototype && proto !== null) return false;
      // A `toJSON` of its own would change what is written: the replacer path decides.
      if ("toJSON" in value) return false;
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record);
      for (let i = 0; i < keys.length; i++)
        if (keys[i].includes("\0") || !plainJson(record[keys[i]], depth + 1)) return false;
      return true;
    }
    default:
      return false;
  }
}

/** What {@link copyPlain} answers for a value that is not plain JSON. */
const NOT_PLAIN: unique symbol = Symbol("not plain JSON");

/**
 * A frozen copy of `value` equal to what JSON text of it parses back to, made
 * in one walk, or {@link NOT_PLAIN} for anything {@link plainJson} would
 * leave to the checking replacer (and for a key `__proto__`, which an
 * assignment would not copy as a key). As JSON does: undefined keys are
 * dropped and undefined items become null, dates become their `toJSON`
 * text, and -0 becomes 0.
 */
function copyPlain(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case "string":
      return value.includes("\0") ? NOT_PLAIN : value;
    case "number":
      // + 0 turns -0 into 0, as JSON text does; every other number reads back as it was.
      return Number.isFinite(value) ? value + 0 : NOT_PLAIN;
    case "boolean":
      return value;
    case "object": {
      if (value === null) return null;
      if (depth >= PLAIN_DEPTH) return NOT_PLAIN;
      const proto = Object.getPrototypeOf(value);
      if (proto === Date.prototype) {
        const text: unknown = (value as Date).toJSON();
        return typeof text === "string" || text === null ? text : NOT_PLAIN;
      }
      if (Array.isArray(value)) {
        const copy = new Array(value.length);
        for (let i = 0; i < value.length; i++) {
          const item = value[i] === undefined ? null : copyPlain(value[i], depth + 1);
          if (item === NOT_PLAIN) return NOT_PLAIN;
          copy[i] = item;
        }
        return Object.freeze(copy);
      }
      if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
      if ("toJSON" in value) return NOT_PLAIN;
      const record = value as Record<string, unknown>;
      const copy: Record<string, unknown> = {};
      const keys = Object.keys(record);
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        if (key === "__proto__" || key.includes("\0")) return NOT_PLAIN;
        const child = record[key];
        if (child === undefined) continue;
        const item = copyPlain(child, depth + 1);
        if (item === NOT_PLAIN) return NOT_PLAIN;
        copy[key] = item;
      }
      return Object.freeze(copy);
    }
    default:
      return NOT_PLAIN;
  }
}

/** Freezes a parsed JSON value all the way down. */
function freezeDeep<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const child of Object.values(value)) freezeDeep(child);
    Object.freeze(value);
  }
  return value;
}

/**
 * What a store that keeps JSON text would give back for `value`, without the
 * text: a deep copy, frozen all the way down, equal to
 * `JSON.parse(stringifyJson(value, root))`. The in-memory store keeps events
 * this way, so it accepts, refuses and returns exactly what the other stores
 * do. Plain values (nearly every event) are copied in one walk, several
 * times faster than writing and parsing the text; anything else takes that
 * round trip, which refuses what JSON cannot hold with its path.
 *
 * @param value - event data or metadata
 * @param root - how to name the value in errors, e.g. `data of event "Opened"`
 * @returns the frozen copy
 * @throws TypeError naming the path and the reason when `value` is not JSON-serialisable
 */
export function copyJson<T>(value: T, root: string): T {
  const copy = copyPlain(value, 0);
  if (copy !== NOT_PLAIN) return copy as T;
  return freezeDeep(JSON.parse(stringifyJson(value, root)));
}

/**
 * Serialises `value` to JSON text, refusing anything JSON cannot round-trip.
 * Stores call it on event data and metadata before they keep them, so every
 * store accepts and refuses the same values. Dates become ISO strings.
 *
 * @param value - event data or metadata
 * @param root - how to name the value in errors, e.g. `data of event "Opened"`
 * @returns the JSON text
 * @throws TypeError naming the path and the reason when `value` is not JSON-serialisable
 * @example
 * ```ts
 * stringifyJson({ at: new Date(0) }, "data"); // '{"at":"1970-01-01T00:00:00.000Z"}'
 * stringifyJson({ n: 1n }, "data"); // throws TypeError: data.n is a bigint, …
 * ```
 */
export function stringifyJson(value: unknown, root: string): string {
  if (value !== undefined && plainJson(value, 0)) return JSON.stringify(value);
  // Where each object was met, so an error can name the path of what it
  // refuses. The path is spelled out only then: building it for every key
  // cost more than the rest of the check.
  const parents = new WeakMap<object, { holder: object; key: string }>();
  const pathOf = (holder: object, key: string): string => {
    const up = parents.get(holder);
    // The holder JSON.stringify wraps the value in was never met: the root.
    if (!up) return root;
    const parent = pathOf(up.holder, up.key);
    return Array.isArray(holder) ? `${parent}[${key}]` : `${parent}.${key}`;
  };
  function replacer(this: unknown, key: string, current: unknown) {
    const holder = this as object;
    if (key.includes("\0"))
      refuse(
        pathOf(holder, key),
        "has a key with a NUL character (\\u0000), which this store does not accept (PostgreSQL text cannot hold it)"
      );
    switch (typeof current) {
      case "function":
        return refuse(pathOf(holder, key), "is a function, which cannot be stored as JSON");
      case "symbol":
        return refuse(pathOf(holder, key), "is a symbol, which cannot be stored as JSON");
      case "bigint":
        return refuse(
          pathOf(holder, key),
          "is a bigint, which cannot be stored as JSON (convert it to a string or a number)"
        );
      case "number":
        if (!Number.isFinite(current)) refuse(pathOf(holder, key), `is ${current}, which JSON would turn into null`);
        return current;
      case "string":
        if (current.includes("\0"))
          refuse(
            pathOf(holder, key),
            "contains a NUL character (\\u0000), which this store does not accept (PostgreSQL text cannot hold it)"
          );
        return current;
      case "object":
        if (current === null) return current;
        if (!isPlain(current)) {
          const kind = (current as object).constructor?.name || "object";
          refuse(
            pathOf(holder, key),
            `is a ${kind}, which JSON cannot round-trip (use plain objects, arrays, strings, numbers, booleans, null and dates)`
          );
        }
        parents.set(current, { holder, key });
        return current;
      default:
        return current;
    }
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(value, replacer);
  } catch (error) {
    if (error instanceof TypeError && /circular/i.test(error.message))
      refuse(root, "is a circular structure, which cannot be stored as JSON");
    throw error;
  }
  return text ?? refuse(root, "is undefined, which cannot be stored as JSON");
}
