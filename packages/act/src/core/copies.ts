/**
 * Detects a second copy of `@act-root/act` in one process. Two copies (a
 * linked package with its own `node_modules`, a duplicated dependency, the
 * ESM and the CommonJS build loaded side by side) each have their own store
 * port: an app of one copy would write to a store the other copy's code
 * never reads, with no error. The copies find each other through a record on
 * `globalThis` under a registered symbol, which every copy computes alike.
 */

/** What a copy records when its store port first holds a store. */
type Holder = {
  /** The module instance that holds it (one object per evaluation of this file). */
  readonly token: object;
  /** Where that copy was loaded from. */
  readonly path: string;
  /** Its version, when its build recorded one. */
  readonly version: string;
};

/** The record every copy shares. */
type Registry = { holder?: Holder };

const KEY = Symbol.for("@act-root/act");
/** This module instance. */
const token = {};

/**
 * This copy's version: the build writes it in (see the package's build
 * script); read from sources it is unknown.
 */
function version(): string {
  try {
    return (typeof process !== "undefined" && process.env.ACT_VERSION) || "unknown (sources)";
  } catch {
    return "unknown";
  }
}

/** A stack frame as V8 hands it to `Error.prepareStackTrace`. */
type CallSite = { getFileName(): string | null | undefined };
type WithFrames = ErrorConstructor & { prepareStackTrace?: (error: Error, frames: CallSite[]) => unknown };

/**
 * Where this copy was loaded from: the file of this function. On V8 (Node,
 * Chromium) the file that runs, read from the raw stack frames — a stack
 * trace's text may name the original source instead, through a source map,
 * and the ESM and CommonJS builds of one package map to the same source.
 * Elsewhere, the file a stack trace's text names.
 */
function path(): string {
  const E = Error as WithFrames;
  const original = E.prepareStackTrace;
  try {
    E.prepareStackTrace = (_error, frames) => frames;
    const frames = new Error().stack as unknown;
    const file = Array.isArray(frames) ? (frames[0] as CallSite | undefined)?.getFileName?.() : undefined;
    if (file) return file;
  } catch {
    // No raw frames here: read the text below.
  } finally {
    E.prepareStackTrace = original;
  }
  const stack = new Error().stack ?? "";
  for (const line of stack.split("\n").slice(1)) {
    const found = /\(?((?:file:\/\/|\/|[A-Za-z]:\\|https?:\/\/)[^()\s]+?)(?::\d+){0,2}\)?$/.exec(line.trim());
    if (found) return found[1];
  }
  return "an unknown location";
}

function registry(): Registry {
  const shared = globalThis as unknown as Record<symbol, Registry | undefined>;
  shared[KEY] ??= {};
  return shared[KEY];
}

/**
 * Records that this copy's store port holds a store. Throws when another
 * copy's port already holds one: the apps of the two copies would each use
 * their own store. A copy loaded again from the same file (a test runner
 * resetting its modules) is not another copy, and takes the record over.
 */
export function claimStore(): void {
  const shared = registry();
  const here = path();
  const held = shared.holder;
  if (held && held.token !== token && held.path !== here)
    throw new Error(
      "Two copies of @act-root/act are loaded in this process, and both use the store port: " +
        `the first (version ${held.version}) from ${held.path}, this one (version ${version()}) from ${here}. ` +
        "Each copy has its own store(), so the apps of one copy would not see the events of the other. " +
        "Install one copy: run `npm ls @act-root/act` to see where each comes from and `npm dedupe` " +
        "(or align the version ranges) to keep one; a linked package must not bring its own. " +
        "To run stores side by side on purpose, give each app its store with act()…build({ store }) instead of the store() port."
    );
  shared.holder = { token, path: here, version: version() };
}

/** Gives the record up when this copy's store port no longer holds a store (it was disposed). */
export function releaseStore(): void {
  const shared = registry();
  if (shared.holder?.token === token) shared.holder = undefined;
}
