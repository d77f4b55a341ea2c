import { ValidationError } from "../core/errors.js";
import { around } from "../instrumentation/instrumentation.js";
import { action } from "./event-sourcing.js";
import type { SnapshotCache } from "./cache.js";
import type { TimerChecks } from "./action-timers.js";
import type { Target } from "../core/schemas.js";
import type { CommittedOf, Schemas, Snapshot } from "../types/action.js";
import type { Store } from "../types/ports.js";
import type { Registry } from "../types/reaction.js";

/** One call of `app.do`, its options already read. */
export type Dispatch<A extends Schemas, K extends keyof A & string> = {
  /** The action's name. */
  name: K;
  /** The stream, the actor, and an optional expected version or idempotency key. */
  target: Target;
  /** The action's payload. */
  payload: Readonly<A[K]>;
  /** The event a reaction is handling; its correlation carries over. */
  reactingTo?: CommittedOf<Schemas>;
  /** Trusted input: no zod validation. */
  skipValidation: boolean;
  /** The app's check of the timers a handler schedules, and its clock. */
  timers?: TimerChecks;
  /** The events' correlation id when no `reactingTo` gives one (a fired timer's). */
  correlation?: string;
};

/**
 * Handles one action of an app: finds the state that owns it in the
 * registry and runs it (see {@link action}) inside the observer's `action`
 * hook, on one store for the whole call even if the store port changes
 * meanwhile.
 *
 * @returns the snapshots, and whether events were committed (the app then tells its `"committed"` listeners)
 * @throws {@link ValidationError} for an action the registry does not have
 */
export async function dispatch<S extends Schemas, E extends Schemas, A extends Schemas, K extends keyof A & string>(
  registry: Registry<S, E, A>,
  cache: SnapshotCache,
  log: Store,
  { name, target, payload, reactingTo, skipValidation, timers, correlation }: Dispatch<A, K>
): Promise<{ result: Snapshot<S[K & keyof S], E>[]; committed: boolean }> {
  // Own properties only: "constructor" or "toString" are not actions of any app.
  const me = Object.hasOwn(registry.actions, name) ? registry.actions[name] : undefined;
  if (!me)
    throw new ValidationError("action", name, [
      {
        path: "",
        message: `unknown action "${String(name)}"; known actions: ${Object.keys(registry.actions).join(", ")}`,
      },
    ]);
  const { result, committed } = await around(
    "action",
    { state: me.name, action: name, target, reactingTo, store: log },
    () =>
      action({
        state: me,
        name,
        target,
        payload,
        reactingTo,
        skipValidation,
        cache,
        store: log,
        inline: registry.inline,
        timers,
        correlation,
      })
  );
  return { result: result as Snapshot<S[K & keyof S], E>[], committed };
}
