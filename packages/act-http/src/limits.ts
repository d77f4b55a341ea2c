/**
 * Limits on what a request may make the server hold: the body's size, read
 * as a stream and cut off once it is over the limit (a `Content-Length`
 * cannot be trusted, and a chunked body has none), and the shape of the JSON
 * it holds — nesting, string length, array length and keys — so a payload
 * schema without `.max()` does not let one request store megabytes. All on
 * by default; raise them per app when a payload needs more.
 */
import { HttpErrors, HttpProblem } from "./problem.js";

/**
 * How much one request may carry. Every limit is on unless raised; none can
 * be turned off, only set higher.
 *
 * @experimental
 * @example
 * ```ts
 * const limits: Limits = { bodyBytes: 256 * 1024, stringLength: 50_000 };
 * ```
 */
export type Limits = {
  /** The largest body, in bytes (default 64 KiB). */
  readonly bodyBytes?: number;
  /** The deepest nesting of objects and arrays (default 16). */
  readonly depth?: number;
  /** The longest string, in UTF-16 code units, keys included (default 10,000). */
  readonly stringLength?: number;
  /** The most items in one array (default 1,000). */
  readonly arrayLength?: number;
  /** The most keys in one object (default 200). */
  readonly keys?: number;
};

/**
 * The limits in force when an app sets none: 64 KiB bodies, 16 levels of
 * nesting, strings of 10,000 characters, arrays of 1,000 items, objects of
 * 200 keys.
 *
 * @experimental
 * @example
 * ```ts
 * const limits: Limits = { bodyBytes: DEFAULT_LIMITS.bodyBytes * 4 };
 * ```
 */
export const DEFAULT_LIMITS: Required<Limits> = {
  bodyBytes: 64 * 1024,
  depth: 16,
  stringLength: 10_000,
  arrayLength: 1_000,
  keys: 200,
};

/** The app's limits over the defaults, each a whole number of at least 1. */
export function limitsOf(limits: Limits | undefined): Required<Limits> {
  const merged = { ...DEFAULT_LIMITS, ...limits };
  for (const [name, value] of Object.entries(merged))
    if (!Number.isSafeInteger(value) || value < 1)
      throw new TypeError(`act-http: limits.${name} must be a whole number of at least 1, got ${String(value)}`);
  return merged;
}

const tooLarge = (detail: string, path = "") =>
  new HttpProblem(413, HttpErrors.TooLarge, detail, path ? [{ path, message: detail }] : undefined);

/**
 * Reads a request's body as text, refusing it (413) as soon as it is over
 * `bodyBytes`: a stated `Content-Length` over the limit before reading
 * anything, otherwise while reading.
 */
export async function readBody(request: Request, bodyBytes: number): Promise<string> {
  const stated = Number(request.headers.get("content-length") ?? Number.NaN);
  if (stated > bodyBytes) throw tooLarge(`The body is larger than ${bodyBytes} bytes`);
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > bodyBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(`The body is larger than ${bodyBytes} bytes`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder("utf-8", { fatal: false }).decode(bytes);
}

/**
 * Parses a JSON body: `application/json` only (a form cannot send it across
 * origins without a preflight), within the size and shape limits.
 */
export async function readJson(request: Request, limits: Required<Limits>): Promise<unknown> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type))
    throw new HttpProblem(
      415,
      HttpErrors.UnsupportedMediaType,
      "The body must be JSON, sent as Content-Type: application/json"
    );
  const text = await readBody(request, limits.bodyBytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpProblem(400, HttpErrors.BadRequest, "The body is not valid JSON");
  }
  checkShape(value, limits);
  return value;
}

/**
 * Walks a parsed JSON value and refuses (413) the first place that breaks a
 * shape limit, naming its path. Iterative, so a deep value cannot exhaust
 * the call stack before the depth limit stops it.
 */
export function checkShape(value: unknown, limits: Required<Limits>): void {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: "", depth: 0 }];
  const at = (path: string, key: string | number) => (path ? `${path}.${key}` : String(key));
  while (stack.length) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === "string") {
      if (value.length > limits.stringLength)
        throw tooLarge(`A string is longer than ${limits.stringLength} characters`, path);
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    if (depth >= limits.depth) throw tooLarge(`The JSON is nested deeper than ${limits.depth} levels`, path);
    if (Array.isArray(value)) {
      if (value.length > limits.arrayLength) throw tooLarge(`An array has more than ${limits.arrayLength} items`, path);
      value.forEach((item, i) => {
        stack.push({ value: item, path: at(path, i), depth: depth + 1 });
      });
      continue;
    }
    const keys = Object.keys(value);
    if (keys.length > limits.keys) throw tooLarge(`An object has more than ${limits.keys} keys`, path);
    for (const key of keys) {
      if (key.length > limits.stringLength)
        throw tooLarge(`A key is longer than ${limits.stringLength} characters`, path);
      stack.push({ value: (value as Record<string, unknown>)[key], path: at(path, key), depth: depth + 1 });
    }
  }
}
