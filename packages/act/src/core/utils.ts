import type { z } from "zod";
import type { Patch, Schema } from "../types/action.js";
import { ValidationError } from "./errors.js";
import { plainMatcher } from "./plain-shape.js";

/** True for objects built by `{}` or `Object.create(null)` — the only ones patch merges. */
const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/**
 * Deep-merges `partial` into `original` and returns a new object; neither
 * input is mutated. This is how patch handlers' results are folded into state.
 *
 * - nested plain objects are merged key by key;
 * - a key set to `undefined` or `null` is removed;
 * - arrays, dates, maps, sets, typed arrays and other non-plain values are
 *   replaced, not merged;
 * - `__proto__`, `constructor` and `prototype` keys are ignored.
 *
 * @stable
 * @param original - the current state
 * @param partial - the changes
 * @returns the merged state
 * @see [State management](/docs/concepts/state-management#patches) — explains how patches merge.
 * @example
 * ```ts
 * patch({ a: 1, b: { c: 2, d: 3 }, tags: ["x"] }, { b: { d: 4 }, tags: ["y"], a: null });
 * // → { b: { c: 2, d: 4 }, tags: ["y"] }
 * ```
 */
export function patch<S extends Schema>(original: Readonly<S>, partial: Readonly<Patch<S>>): Readonly<S> {
  // Every load folds each event through here, so the loop is kept plain:
  // indexed keys, the unsafe names compared inline, and the prototype looked
  // up only for values that are objects.
  const merged: Record<string, unknown> = { ...original };
  const keys = Object.keys(partial);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    // Event data may come from outside: never let it reach a prototype.
    if (key === "__proto__" || key === "constructor" || key === "prototype") continue;
    const value = (partial as Record<string, unknown>)[key];
    if (value === undefined || value === null) {
      delete merged[key];
      continue;
    }
    if (typeof value !== "object") {
      merged[key] = value;
      continue;
    }
    const current = merged[key];
    merged[key] =
      isPlainObject(value) && isPlainObject(current) ? patch(current, value as Patch<Record<string, unknown>>) : value;
  }
  return merged as S;
}

/** Turns zod issues into the readable `{ path, message }` list of a ValidationError. */
const issues = (error: z.ZodError) =>
  error.issues.map((issue) => ({
    path: issue.path.map(String).join("."),
    message: issue.message,
  }));

/**
 * Validates `payload` against a zod `schema` and returns the parsed value.
 * Without a schema the payload is returned as is; so is a payload that
 * already has the exact shape a plain JSON schema outputs (no defaults,
 * transforms, coercion or keys to strip), which zod would only copy.
 *
 * @stable
 * @param target - what is validated, used in the error message (e.g. `action "increment"`)
 * @param payload - the value to check
 * @param schema - the zod schema
 * @returns the parsed payload
 * @throws {@link ValidationError} naming `target` and each bad field (also when the schema itself throws)
 * @example
 * ```ts
 * const point = validate("point", { x: 1, y: 2 }, z.object({ x: z.number(), y: z.number() }));
 * ```
 */
export function validate<S>(target: string, payload: unknown, schema?: z.ZodType<S>): S {
  if (!schema) return payload as S;
  // Every action checks its target, payload and events: a value already in a
  // plain schema's exact output shape is what zod would return (as a copy),
  // so it is returned as it is, checked by the matcher compiled for the schema.
  if (plainMatcher(schema)?.(payload)) return payload as S;
  let result: ReturnType<typeof schema.safeParse>;
  try {
    result = schema.safeParse(payload);
  } catch (error) {
    // A refine or transform that throws is a rejection of the value, not a crash;
    // the original error stays reachable as `cause` for its stack.
    const invalid = new ValidationError(target, payload, [
      { path: "", message: `the schema threw: ${(error as Error)?.message ?? String(error)}` },
    ]);
    Object.defineProperty(invalid, "cause", { value: error, configurable: true, writable: true });
    throw invalid;
  }
  if (result.success) return result.data;
  throw new ValidationError(target, payload, issues(result.error));
}

/**
 * Validates `source` against `schema` and merges it over `target` (a shallow
 * spread): how defaults and overrides are combined, e.g. in configuration.
 *
 * @stable
 * @param source - the values to validate
 * @param schema - their zod schema
 * @param target - defaults to merge into
 * @returns `{ ...target, ...validated source }`
 * @throws {@link ValidationError} naming each bad field
 * @example
 * ```ts
 * const settings = extend({ port: 8080 }, z.object({ port: z.number() }), { host: "localhost" });
 * // → { host: "localhost", port: 8080 }
 * ```
 */
export function extend<S extends Schema, T extends Schema = Schema>(
  source: Readonly<S>,
  schema: z.ZodType<S>,
  target?: Readonly<T>
): Readonly<S & T> {
  const value = validate("settings", source, schema);
  return { ...(target ?? {}), ...value } as S & T;
}

/** The default delay of {@link sleep}: `SLEEP_MS`, else 0 under `NODE_ENV=test` and 100 otherwise. */
export function defaultSleepMs(): number {
  const env = globalThis.process?.env;
  const set = env?.SLEEP_MS;
  if (set !== undefined && set !== "" && Number.isFinite(Number(set))) return Number(set);
  return env?.NODE_ENV === "test" ? 0 : 100;
}

/**
 * Resolves after `ms` milliseconds — for polling loops and tests.
 *
 * @stable
 * @param ms - delay in ms (default `SLEEP_MS`, else 0 under `NODE_ENV=test` — tests do not wait — and 100 otherwise)
 * @example
 * ```ts
 * await sleep(50);
 * ```
 */
export function sleep(ms?: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms ?? defaultSleepMs()));
}

/** A random UUID v4; falls back to getRandomValues where randomUUID is missing (insecure browser contexts). */
export function uuid(): string {
  const c = globalThis.crypto;
  if (typeof c?.randomUUID === "function") return c.randomUUID();
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** First index in ascending `ids` whose id is greater than `id` (a binary search). */
export function upper(ids: readonly number[], id: number): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (ids[mid] <= id) low = mid + 1;
    else high = mid;
  }
  return low;
}
