/**
 * The close event as a state's event, so an app can react to it or project
 * it: `act().with(Closing).on(CLOSE_EVENT)`, `projection(name).with(Closing)`.
 */
import { z } from "zod";
import { CLOSE_EVENT } from "../core/closed-streams.js";
import { ActorSchema } from "../core/schemas.js";
import { state } from "./state-builder.js";
import type { State } from "../types/action.js";
import type { ClosingEvents } from "../types/archive.js";

/**
 * The schema of a close event's data (`ClosedData`): who closed the stream,
 * why, and the stream its state went on in.
 *
 * @experimental
 * @example
 * ```ts
 * ClosedSchema.parse({ by: { id: "u-1", name: "Ada" }, reason: "delivered" });
 * ```
 */
export const ClosedSchema = z.object({
  /** Who closed the stream. */
  by: ActorSchema,
  /** Why, in the caller's words. */
  reason: z.string().optional(),
  /** The stream the state was carried into. */
  continuedAs: z.string().optional(),
});

/**
 * A state with no action whose only event is the close event
 * ({@link CLOSE_EVENT}): register it beside your states so reactions and
 * projections can handle the closes `app.close` commits on any stream.
 *
 * @experimental
 * @see [Archiving and retention](/docs/guides/archiving#closing-the-books) — reacting to a close.
 * @example
 * ```ts
 * const app = act().with(Counter).with(Closing)
 *   .on(CLOSE_EVENT).do(async (event) => console.log(`${event.stream} closed by ${event.data.by.name}`))
 *   .build();
 * ```
 */
export const Closing: State<Record<string, never>, ClosingEvents, Record<string, never>> = state(
  "Closing",
  z.object({})
)
  .init(() => ({}))
  .emits({ [CLOSE_EVENT]: ClosedSchema })
  .patch({ [CLOSE_EVENT]: () => ({}) })
  .build();
