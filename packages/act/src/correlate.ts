import { decode } from "./event-sourcing.js";
import { store } from "./ports.js";
import type { Committed, Schemas } from "./types/action.js";
import type { EventRegister, Lease } from "./types/reaction.js";
import type { Query } from "./types/schemas.js";

/**
 * Runs the reaction resolvers over the events matching `query` and registers
 * every target stream they name (a lease of 0 ms only registers). A new
 * stream's watermark starts just before the first event that reacts into it,
 * and every stream's `head` records the last event that reacts into it, so
 * `poll` offers a stream only when there is work for it. `read` counts the
 * events scanned.
 */
export async function correlate<E extends Schemas>(
  events: EventRegister<E, any>,
  by: string,
  query: Query
): Promise<{ leased: Lease[]; last_id: number; read: number }> {
  const targets = new Map<string, Lease>();
  let last_id = query.after ?? -1;
  let read = 0;
  await store().query<E>((stored) => {
    read++;
    last_id = Math.max(last_id, stored.id);
    const register = events[stored.name];
    if (!register) return;
    // Resolvers see the decoded event when it decodes; the reaction reports it when not.
    let event = stored;
    try {
      event = decode(register.schema, register.upcasts, stored);
    } catch {
      // the drain fails the reaction with the decoding error
    }
    for (const reaction of register.reactions.values()) {
      const resolved = reaction.resolver(event as Committed<E, typeof event.name>);
      if (!resolved) continue;
      const known = targets.get(resolved.target);
      targets.set(resolved.target, {
        stream: resolved.target,
        // Reactions from different sources share this stream: it must read them all.
        source: known && known.source !== resolved.source ? undefined : resolved.source,
        by,
        at: known?.at ?? event.id - 1,
        retry: 0,
        head: event.id,
      });
    }
  }, query);
  const leased = targets.size ? await store().lease([...targets.values()], 0) : [];
  return { leased, last_id, read };
}
