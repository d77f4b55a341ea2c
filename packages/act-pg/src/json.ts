/**
 * JSON encoding of event data and metadata, and decoding with dates restored.
 *
 * Event `data` and `meta` are stored as JSON text. Encoding refuses what JSON
 * would silently change or drop (functions, symbols, bigints, non-finite
 * numbers, maps, sets, class instances, cycles) and NUL characters, which
 * PostgreSQL's text types cannot hold, naming the path of the offending value. Decoding turns strings in
 * the exact format of `Date#toJSON` (`2025-01-02T03:04:05.678Z`) back into
 * `Date` objects, so dates inside `data` round-trip as dates.
 */

/** The exact output of `Date.prototype.toJSON`. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** Cheap test on the raw text: is there any string that could be a date? */
const MAYBE_DATE = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z"/;

const revive = (_key: string, value: unknown) => {
  if (typeof value === "string" && value.length === 24 && ISO_DATE.test(value)) {
    const date = new Date(value);
    if (!Number.isNaN(date.getTime())) return date;
  }
  return value;
};

/**
 * Parses JSON text from the database; ISO-8601 UTC date strings become `Date`s.
 *
 * @param text - a `json`/`jsonb` value as text
 * @returns the parsed value
 */
export function parseJson(text: string): unknown {
  return MAYBE_DATE.test(text) ? JSON.parse(text, revive) : JSON.parse(text);
}

/** Thrown when a value cannot be stored as JSON. */
function refuse(path: string, what: string): never {
  throw new TypeError(`${path} ${what}`);
}

const isPlain = (value: object) => {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null || Array.isArray(value);
};

/**
 * Serialises `value` to JSON text, refusing anything JSON cannot round-trip.
 *
 * @param value - event data or metadata
 * @param root - how to name the value in errors, e.g. `data of event "Opened"`
 * @returns the JSON text
 * @throws TypeError naming the path and the reason when `value` is not JSON-serialisable
 */
export function stringifyJson(value: unknown, root: string): string {
  const paths = new WeakMap<object, string>();
  function replacer(this: unknown, key: string, current: unknown) {
    const holder = this as object;
    const parent = paths.get(holder);
    const path = parent === undefined ? root : Array.isArray(holder) ? `${parent}[${key}]` : `${parent}.${key}`;
    if (key.includes("\0")) refuse(path, "has a key with a NUL character (\\u0000), which this store does not accept (PostgreSQL text cannot hold it)");
    switch (typeof current) {
      case "function":
        return refuse(path, "is a function, which cannot be stored as JSON");
      case "symbol":
        return refuse(path, "is a symbol, which cannot be stored as JSON");
      case "bigint":
        return refuse(path, "is a bigint, which cannot be stored as JSON (convert it to a string or a number)");
      case "number":
        if (!Number.isFinite(current)) refuse(path, `is ${current}, which JSON would turn into null`);
        return current;
      case "string":
        if (current.includes("\0")) refuse(path, "contains a NUL character (\\u0000), which this store does not accept (PostgreSQL text cannot hold it)");
        return current;
      case "object":
        if (current === null) return current;
        if (!isPlain(current)) {
          const kind = (current as object).constructor?.name || "object";
          refuse(path, `is a ${kind}, which JSON cannot round-trip (use plain objects, arrays, strings, numbers, booleans, null and dates)`);
        }
        paths.set(current, path);
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
