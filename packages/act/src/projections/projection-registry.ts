import { applyProjection } from "./project.js";
import type { Projection } from "../builders/projection.js";
import type { Committed, Schemas } from "../types/action.js";
import type { Reaction, Registry } from "../types/reaction.js";

/** Whether `value` is a built projection rather than a state. */
export function isProjection(value: unknown): value is Projection<any, any> {
  const p = value as Projection<any, any> | undefined;
  return typeof p?.stream === "string" && Array.isArray(p.events) && typeof p.handlers === "object";
}

/**
 * Registers a projection as one reaction per event it handles, all routed to
 * its stream under the key `projection.stream`: correlation, polling,
 * leasing, `reset` and `stats` then treat it like any reaction stream, and
 * the drain recognises its batches by `Reaction.projection`. The key is the
 * same in every app, so workers of one release share the stream. An inline
 * projection is listed in `Registry.inline` instead: each commit runs it; a
 * local one in `Registry.local`: each drain of the app catches it up.
 */
export function withProjection<S extends Schemas, E extends Schemas, A extends Schemas>(
  registry: Registry<S, E, A>,
  projection: Projection<any, any>
): Registry<S, E, A> {
  const key = projection.stream;
  const twin =
    [...(registry.inline ?? []), ...(registry.local ?? [])].some((p) => p.stream === key) ||
    Object.values(registry.events).some((register) =>
      [...register.reactions.values()].some((reaction) => reaction.projection?.stream === key)
    );
  if (twin)
    throw new Error(
      `A projection named "${projection.name}" (version ${projection.options.version}) is already registered: a projection's name and version must be unique in an app`
    );
  for (const event of projection.events)
    if (!Object.hasOwn(registry.events, event))
      throw new Error(
        `Projection "${projection.name}" handles "${event}", which no state registered so far emits: register the state with .with(State) before the projection`
      );
  // Inline: no reaction stream, the commit runs it.
  if (projection.options.inline) return { ...registry, inline: [...(registry.inline ?? []), projection] };
  // Local: no reaction stream either; each drain of the app catches it up in this process.
  if (projection.options.local) return { ...registry, local: [...(registry.local ?? []), projection] };
  const target = { target: key };
  const { maxRetries, retryBaseMillis, retryMaxMillis, since } = projection.options;
  const reaction = {
    handler: async (event) => applyProjection(projection, [event as Committed<Schemas, string>], undefined),
    resolver: () => target,
    options: { blockOnError: true, maxRetries, retryBaseMillis, retryMaxMillis, since },
    projection,
  } as Reaction<E, keyof E, A>;
  const events: Record<string, unknown> = { ...registry.events };
  for (const event of projection.events) {
    const register = registry.events[event];
    events[event] = { ...register, reactions: new Map([...register.reactions, [key, reaction]]) };
  }
  return { ...registry, events: events as Registry<S, E, A>["events"] };
}
