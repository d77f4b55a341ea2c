import { deprecated } from "./core/deprecated.js";
import type { CommittedOf, Schemas } from "./types/action.js";
import type { DoOptions, LoadOptions, PointInTime, ProjectedOptions } from "./types/app.js";

/**
 * The call shapes of earlier releases, read into the options objects that
 * replaced them. Each old shape keeps working for one minor release and
 * warns once per process (see `deprecated`); this file goes with them.
 */

/** Whether `value` is a committed event — the old fourth argument of `do` — rather than {@link DoOptions}. */
function isEvent(value: object): boolean {
  // An event always has a stream and metadata; neither is an option of `do`.
  return "stream" in value && "meta" in value;
}

/** The options of `do` from its fourth and fifth arguments, old shape or new. */
export function doOptions(fourth: unknown, fifth: unknown, count: number): DoOptions {
  if (count <= 4 && fourth === undefined) return {};
  if (count <= 4 && typeof fourth === "object" && fourth !== null && !isEvent(fourth)) return fourth as DoOptions;
  deprecated(
    "app.do(action, target, payload, reactingTo, skipValidation)",
    "pass { reactingTo, skipValidation } as the fourth argument: app.do(action, target, payload, { reactingTo: event })"
  );
  return { reactingTo: (fourth ?? undefined) as CommittedOf<Schemas> | undefined, skipValidation: fifth === true };
}

/** The options of `load` from its third and fourth arguments, old shape or new. */
export function loadOptions<O extends LoadOptions<any, any>>(third: unknown, fourth: unknown, count: number): O {
  if (count <= 2 || (count === 3 && third === undefined)) return {} as O;
  if (count === 3 && typeof third === "object" && third !== null) return third as O;
  deprecated(
    "app.load(State, stream, callback, at)",
    "pass { at, onSnapshot } as the third argument: app.load(State, stream, { at: { version: 2 } })"
  );
  return { onSnapshot: third ?? undefined, at: (fourth ?? undefined) as PointInTime | undefined } as O;
}

/** The options of `projected` from its third argument, old shape (a number of ms) or new. */
export function projectedOptions(third: unknown): ProjectedOptions {
  if (typeof third !== "number") return (third ?? {}) as ProjectedOptions;
  deprecated(
    "app.projected(projection, after, timeoutMillis)",
    "pass { timeoutMillis } as the third argument: app.projected(projection, after, { timeoutMillis: 1_000 })"
  );
  return { timeoutMillis: third };
}
