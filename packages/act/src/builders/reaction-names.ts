import { BuilderError } from "../core/errors.js";
import type { EventRegister, Reaction, ReactionsRegister, Registry } from "../types/reaction.js";

/** Longest reaction name, in characters: it is stored on every reaction stream that carries it. */
const MAX_NAME = 200;

/** What a reaction name may not hold: `/` separates it from its event, `#` marks position-numbered names. */
const RESERVED = /[/#]/;

function checkReactionName(event: string, name: string, what: string): void {
  if (!name.length || name.length > MAX_NAME || RESERVED.test(name) || name.startsWith("projection:"))
    throw new BuilderError(
      "act",
      "do",
      `Reaction to "${event}": ${what} "${name}" is not a valid reaction name — use 1 to ${MAX_NAME} characters without "/" or "#", not starting with "projection:"`
    );
}

/**
 * The key a new reaction to `event` is registered under, and the names it
 * answers to besides: the explicit `name`, or the handler's name, or
 * `"reaction"` for an anonymous handler. A key never depends on what was
 * registered before it, so adding a reaction or a projection in a release
 * never renames another one.
 *
 * Its aliases are the `renamedFrom` names and the name releases before
 * stable names gave it, `"<handler name>#<position>"` with the position
 * counted as they counted it (reactions and projections of the event
 * registered so far, plus one), so a store written by such a release is
 * taken over without re-running or skipping anything.
 *
 * @throws {@link BuilderError} for an invalid name, or a name or former name another reaction of the event already has
 */
export function reactionKey(
  event: string,
  reactions: ReactionsRegister<any, any, any>,
  handler: { readonly name: string },
  name: string | undefined,
  renamedFrom: string | readonly string[] | undefined
): { key: string; aliases: string[] } {
  if (name !== undefined) {
    if (typeof name !== "string") throw new BuilderError("act", "do", `Reaction to "${event}": name must be a string`);
    checkReactionName(event, name, "name");
  }
  const key = name ?? (handler.name || "reaction");
  const former = typeof renamedFrom === "string" ? [renamedFrom] : [...(renamedFrom ?? [])];
  for (const old of former)
    if (typeof old !== "string" || !old.length || old.length > MAX_NAME || old.includes("/"))
      throw new BuilderError(
        "act",
        "do",
        `Reaction "${key}" to "${event}": renamedFrom "${String(old)}" is not a reaction name — use 1 to ${MAX_NAME} characters without "/"`
      );
  const positional = `${handler.name || "reaction"}#${reactions.size + 1}`;
  const aliases = [...new Set([...former, positional])].filter((alias) => alias !== key);
  for (const [other, reaction] of reactions) {
    if (other === key)
      throw new BuilderError(
        "act",
        "do",
        `Event "${event}" already has a reaction named "${key}": give this one a name of its own, as in .do(handler, { name: "${key}-2" }) — the name is how the store keeps its progress, so it must be unique per event and stay the same across releases`
      );
    const taken = (reaction.aliases ?? []).find((alias) => alias === key || former.includes(alias));
    const claims = former.includes(other);
    if (taken || claims)
      throw new BuilderError(
        "act",
        "do",
        `Reaction "${key}" to "${event}" claims the name "${taken ?? other}", which reaction "${other}" already answers to: a stored name can belong to one reaction only`
      );
  }
  return { key, aliases };
}

/**
 * Completes the aliases of every reaction when the app is built: a reaction
 * whose handler name no other reaction of its event shares also answers to
 * that name with any position the event's registrations could have given it
 * (`"invoice#1"` … `"invoice#<count>"`), so a release that inserted a
 * reaction or a projection before it — which moved its position in the
 * releases that numbered them — still finds its streams and progress.
 */
export function legacyAliases<R extends Registry<any, any, any>>(registry: R): R {
  const events: Record<string, unknown> = {};
  for (const [event, register] of Object.entries(registry.events as EventRegister<any, any>)) {
    const reactions = [...register.reactions] as [string, Reaction<any, any, any>][];
    const bases = new Map<string, number>();
    for (const [, r] of reactions) if (!r.projection) bases.set(base(r), (bases.get(base(r)) ?? 0) + 1);
    const claimed = new Set(reactions.flatMap(([key, r]) => [key, ...(r.aliases ?? [])]));
    const completed = new Map(
      reactions.map(([key, r]) => {
        if (r.projection || bases.get(base(r)) !== 1) return [key, r];
        const extra: string[] = [];
        for (let position = 1; position <= reactions.length; position++) {
          const alias = `${base(r)}#${position}`;
          if (!claimed.has(alias)) extra.push(alias);
        }
        return [key, extra.length ? { ...r, aliases: [...(r.aliases ?? []), ...extra] } : r];
      })
    );
    events[event] = { ...register, reactions: completed };
  }
  return { ...registry, events };
}

const base = (reaction: Reaction<any, any, any>) => reaction.handler.name || "reaction";

/**
 * The names this app's reactions answer to in the store: each one's
 * `"<event>/<key>"` and its aliases. An app leases only streams whose every
 * recorded name is among them, and tells the store so when it acknowledges.
 *
 * @param events - the app's events and their reactions
 * @returns the names, sorted
 */
export function ownedNames(events: EventRegister<any, any>): string[] {
  return Object.entries(events)
    .flatMap(([event, register]) =>
      [...register.reactions].flatMap(([key, reaction]) =>
        [key, ...((reaction as Reaction<any, any, any>).aliases ?? [])].map((name) => `${event}/${name}`)
      )
    )
    .sort();
}
