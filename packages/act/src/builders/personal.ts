/**
 * Marking event fields as personal data: the checks `state().personal()`
 * runs when the state is defined, and `forgettable`, which lets a field
 * whose schema is stricter than a string accept the placeholder.
 */
import { z } from "zod";
import { BuilderError } from "../core/errors.js";
import { FORGOTTEN } from "../core/forgotten.js";
import { personalFieldsDeclared } from "../core/ports.js";
import type { PersonalData, PersonalFields } from "../types/personal.js";

/**
 * Widens a personal field's schema to also accept {@link FORGOTTEN}, what
 * the field reads as once its data subject is forgotten. A plain
 * `z.string()` needs nothing; a format (`z.email()`), an enum or a number
 * does.
 *
 * @experimental
 * @param schema - the field's schema
 * @returns the schema, or the placeholder
 * @see [Personal data](/docs/guides/personal-data#the-placeholder) — what reads return after forgetting.
 * @example
 * ```ts
 * const Registered = z.object({ email: forgettable(z.email()), plan: z.string() });
 * ```
 */
export function forgettable<T extends z.ZodType>(schema: T): z.ZodUnion<[T, z.ZodLiteral<typeof FORGOTTEN>]> {
  return z.union([schema, z.literal(FORGOTTEN)]);
}

/** The shape of an object schema, seen through optional, nullable, default, readonly and pipe wrappers. */
function shapeOf(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  const def = (schema as { def?: { type?: string; innerType?: z.ZodType; in?: z.ZodType } }).def;
  if (!def) return undefined;
  if (def.type === "object") return (schema as z.ZodObject).shape as Record<string, z.ZodType>;
  if (def.innerType) return shapeOf(def.innerType);
  if (def.type === "pipe" && def.in) return shapeOf(def.in);
  return undefined;
}

/**
 * Checks what `.personal()` was given against the state's events, and
 * returns a copy (a caller changing its object later changes nothing).
 *
 * @throws {@link BuilderError} naming the state, the event and the field when an event is not the state's,
 *   a field is not in its schema or does not accept {@link FORGOTTEN}, or the subject is not a string field
 *   or is itself personal
 */
export function checkPersonal<E>(
  state: string,
  events: Record<string, z.ZodType>,
  personal: PersonalData<E>
): PersonalData<E> {
  personalFieldsDeclared();
  const refuse = (message: string) => new BuilderError("state", "personal", `State "${state}": ${message}`);
  const checked: Record<string, PersonalFields<unknown>> = {};
  for (const [event, given] of Object.entries(personal as Record<string, PersonalFields<unknown> | undefined>)) {
    if (!given) continue;
    if (!Object.hasOwn(events, event)) throw refuse(`"${event}" is not one of its events`);
    const { fields, subject } = given;
    if (!Array.isArray(fields) || !fields.length) throw refuse(`event "${event}" marks no personal fields`);
    const shape = shapeOf(events[event]);
    if (!shape) throw refuse(`event "${event}" has personal fields, so its schema must be an object (z.object)`);
    for (const field of fields) {
      if (!Object.hasOwn(shape, field)) throw refuse(`event "${event}" has no field "${field}"`);
      if (!shape[field].safeParse(FORGOTTEN).success)
        throw refuse(
          `field "${field}" of event "${event}" must accept "${FORGOTTEN}", what it reads as once its data subject is forgotten: use z.string(), or wrap its schema in forgettable(...)`
        );
    }
    if (subject !== undefined) {
      if (!Object.hasOwn(shape, subject) || !shape[subject].safeParse("subject").success)
        throw refuse(`the subject of event "${event}" must be one of its string fields, and "${subject}" is not`);
      if (fields.includes(subject as never))
        throw refuse(
          `field "${subject}" of event "${event}" names the data subject, so it cannot be personal itself: it is stored in clear with the keys (use a pseudonymous id)`
        );
    }
    checked[event] = { fields: [...fields], ...(subject !== undefined && { subject }) };
  }
  return checked as PersonalData<E>;
}
