import { decode } from "../committing/load.js";
import { KEPT_EVENTS_LIMIT } from "./route-index.js";
import type { Committed, Schemas } from "../types/action.js";
import type { Store } from "../types/ports.js";
import type { EventRegister, Reaction } from "../types/reaction.js";
import type { Lease } from "../types/lease.js";
import type { Query } from "../core/schemas.js";

/** One reaction an event asks for: where it runs and, when it cannot run, why. */
export type Routed = {
  /** The event as the reaction sees it: decoded when it decodes, as stored when not. */
  event: Committed<Schemas, string>;
  /** The reaction's key in the event's register. */
  key: string;
  /** The reaction's name across apps, `"<event>/<key>"` (see `ownedNames` in reaction-names.ts). */
  name: string;
  reaction: Reaction<Schemas, string>;
  /** The reaction stream it runs on. */
  target: string;
  /** The only stream that reaction stream reads, if any. */
  source?: string;
  /** Why the reaction cannot run on this event (it fails with this, is retried, then blocks). */
  invalid?: unknown;
};

/**
 * The reactions to one stored event, each with the stream it runs on. The
 * event is decoded once (older shapes upcast) and each resolver runs once.
 * An event that cannot be decoded, or a resolver that throws on it, does not
 * stop the others: the reaction is routed to the event's own stream (its
 * resolver could not say where else) and carries the error, so it fails,
 * is retried and then blocks that stream with the reason — the rest of the
 * app goes on.
 */
export function route(events: EventRegister<any, any>, stored: Committed<Schemas, string>): Routed[] {
  const register = events[stored.name];
  if (!register?.reactions.size) return [];
  let event = stored;
  let undecodable: unknown;
  try {
    event = decode(register.schema, register.upcasts, stored) as Committed<Schemas, string>;
  } catch (error) {
    undecodable = error;
  }
  const routed: Routed[] = [];
  for (const [key, reaction] of register.reactions) {
    // A reaction that starts at a point in time never sees the events before it.
    if (reaction.options.since && stored.created < reaction.options.since) continue;
    const name = `${stored.name}/${key}`;
    try {
      const resolved = reaction.resolver(event as never);
      if (resolved === undefined) continue;
      // Written out: a spread of the resolver's answer would copy whatever else it holds.
      routed.push({
        event,
        key,
        name,
        reaction,
        target: resolved.target,
        source: resolved.source,
        invalid: undecodable,
      });
    } catch (error) {
      const message = `the resolver of reaction "${name}" threw on event #${stored.id}: ${(error as Error)?.message ?? String(error)}`;
      routed.push({
        event,
        key,
        name,
        reaction,
        target: stored.stream,
        source: stored.stream,
        invalid: undecodable ?? new Error(message, { cause: error }),
      });
    }
  }
  return routed;
}

/**
 * Where a reaction's events into a stream start, under its name and the
 * names it had before: a reaction that joins a stream whose watermark is
 * already past that point takes it back there.
 */
function joining(name: string, reaction: Reaction<Schemas, string>, event: PropertyKey, id: number) {
  return {
    names: [name, ...(reaction.aliases ?? []).map((alias) => `${String(event)}/${alias}`)],
    at: id - 1,
  };
}

/**
 * Runs the reaction resolvers over the events of `log` matching `query` and registers
 * every target stream they name (a lease of 0 ms only registers), with the
 * names of the reactions that target it. A new stream's watermark starts
 * just before the first event that reacts into it, and every stream's `head`
 * records the last event that reacts into it, so `poll` offers a stream only
 * when there is work for it. `read` counts the events scanned, and `routes`
 * lists, per target stream, the ids of the scanned events that react into it
 * (ascending); `found` holds the latest {@link KEPT_EVENTS_LIMIT} of those
 * events as the store returned them. With `only`, just the streams of the
 * reactions it accepts for an event are registered, while `routes` and `found` still cover every
 * reaction (discovery registers a group of reactions at a time, and the
 * route index must know every event of a stream it vouches for). Each
 * registration also says where each reaction's events into the stream
 * start (`joining`): a reaction that joins a stream whose watermark is
 * already past them — another release, or the stream's other reactions,
 * moved it on first — takes the watermark back there (see `Lease.joining`).
 */
export async function correlate<E extends Schemas>(
  log: Store,
  events: EventRegister<E, any>,
  by: string,
  query: Query,
  only?: (name: string, id: number) => boolean
): Promise<{
  leased: Lease[];
  last_id: number;
  read: number;
  routes: Map<string, number[]>;
  found: Committed<Schemas, string>[];
}> {
  const targets = new Map<
    string,
    Lease & {
      source: string | undefined;
      head: number;
      reactions: string[];
      joining: Array<{ names: readonly string[]; at: number }>;
    }
  >();
  const routes = new Map<string, number[]>();
  const found: Committed<Schemas, string>[] = [];
  let last_id = query.after ?? -1;
  let read = 0;
  await log.query<E>((stored) => {
    read++;
    last_id = Math.max(last_id, stored.id);
    const routed = route(events, stored as never);
    if (routed.length) {
      found.push(stored as never);
      // Only the latest are kept for the drains: a long pass (a process
      // catching up) must not hold every event it read until it ends.
      if (found.length >= 2 * KEPT_EVENTS_LIMIT) found.splice(0, found.length - KEPT_EVENTS_LIMIT);
    }
    for (const { target, source, name, reaction } of routed) {
      const ids = routes.get(target);
      if (!ids) routes.set(target, [stored.id]);
      // Several reactions of one event may go to the same stream: its id once.
      else if (ids[ids.length - 1] !== stored.id) ids.push(stored.id);
      if (only && !only(name, stored.id)) continue;
      const known = targets.get(target);
      if (!known) {
        targets.set(target, {
          stream: target,
          source,
          by,
          at: stored.id - 1,
          retry: 0,
          head: stored.id,
          reactions: [name],
          joining: [joining(name, reaction, stored.name, stored.id)],
        });
        continue;
      }
      // Updated in place: a registration per event would be an object per event read.
      if (!known.reactions.includes(name)) {
        known.reactions.push(name);
        known.joining.push(joining(name, reaction, stored.name, stored.id));
      }
      // Reactions from different sources share this stream: it must read them all.
      if (known.source !== source) known.source = undefined;
      known.head = stored.id;
    }
  }, query);
  const leased = targets.size ? await log.lease([...targets.values()], 0) : [];
  return { leased, last_id, read, routes, found: found.slice(-KEPT_EVENTS_LIMIT) };
}
