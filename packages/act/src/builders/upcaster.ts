import type { z } from "zod";
import type { Upcaster } from "../types/action.js";

/**
 * Declares an older shape of an event and how it becomes the current one,
 * for `state(...).upcast({ Event: [...] })`. The old shape is inferred from
 * its schema, so `to` is typed on both sides: it receives the old data and
 * must return the event's current data.
 *
 * @stable
 * @param schema - zod schema of the older shape
 * @param to - turns old data into the current shape
 * @returns the upcaster
 * @see [Changing your model](/docs/concepts/changing-your-model#renaming-a-field-an-upcaster) — walks through an upcaster.
 * @example
 * ```ts
 * const OpenedV1 = z.object({ title: z.string() });
 * const fromV1 = upcaster(OpenedV1, (v1) => ({ title: v1.title, priority: "normal" as const }));
 * ```
 */
export function upcaster<Z extends z.ZodType, T>(schema: Z, to: (old: z.infer<Z>) => T): Upcaster<T> {
  return { schema, to };
}
