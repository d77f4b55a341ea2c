import { z } from "zod";
import type { Patch, Schema } from "./types/action.js";
import { ValidationError } from "./types/errors.js";

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
 *   replaced, not merged.
 *
 * @param original - the current state
 * @param partial - the changes
 * @returns the merged state
 * @example
 * ```ts
 * patch({ a: 1, b: { c: 2, d: 3 }, tags: ["x"] }, { b: { d: 4 }, tags: ["y"], a: null });
 * // → { b: { c: 2, d: 4 }, tags: ["y"] }
 * ```
 */
export function patch<S extends Schema>(original: Readonly<S>, partial: Readonly<Patch<S>>): Readonly<S> {
  const merged: Record<string, unknown> = { ...original };
  for (const key of Object.keys(partial)) {
    const value = (partial as Record<string, unknown>)[key];
    if (value === undefined || value === null) {
      delete merged[key];
      continue;
    }
    const current = merged[key];
    merged[key] =
      isPlainObject(value) && isPlainObject(current)
        ? patch(current, value as Patch<Record<string, unknown>>)
        : value;
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
 * Without a schema the payload is returned as is.
 *
 * @param target - what is validated, used in the error message (e.g. `action "increment"`)
 * @param payload - the value to check
 * @param schema - the zod schema
 * @returns the parsed payload
 * @throws {@link ValidationError} naming `target` and each bad field
 * @example
 * ```ts
 * const point = validate("point", { x: 1, y: 2 }, z.object({ x: z.number(), y: z.number() }));
 * ```
 */
export function validate<S>(target: string, payload: unknown, schema?: z.ZodType<S>): S {
  if (!schema) return payload as S;
  const result = schema.safeParse(payload);
  if (result.success) return result.data;
  throw new ValidationError(target, payload, issues(result.error));
}

/**
 * Validates `source` against `schema` and merges it over `target` (a shallow
 * spread): how defaults and overrides are combined, e.g. in configuration.
 *
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

/**
 * Resolves after `ms` milliseconds — for polling loops and tests.
 *
 * @param ms - delay in ms (default 100, or `SLEEP_MS` when set)
 * @example
 * ```ts
 * await sleep(50);
 * ```
 */
export function sleep(ms?: number): Promise<void> {
  const fallback = Number(globalThis.process?.env?.SLEEP_MS ?? 100);
  return new Promise((resolve) => setTimeout(resolve, ms ?? fallback));
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
