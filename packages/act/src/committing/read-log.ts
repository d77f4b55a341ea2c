import { validate } from "../core/utils.js";
import { type Query, QuerySchema } from "../core/schemas.js";
import { decode } from "./load.js";
import type { CommittedOf, Schemas } from "../types/action.js";
import type { LogRead } from "../types/app.js";
import type { Store } from "../types/ports.js";
import type { EventRegister } from "../types/reaction.js";

/**
 * Reads the log (or the archive, which reads alike) for an app: each event matching `query` decoded through its
 * schema and upcasts (older shapes read as the current one) and passed to
 * `callback`. An event that does not decode comes as stored: reading the
 * log, to inspect or repair it, never fails on one event.
 *
 * @throws {@link ValidationError} for a malformed query
 */
export async function readLog<E extends Schemas>(
  log: Pick<Store, "query">,
  events: EventRegister<E, any>,
  query: Query,
  callback?: (event: CommittedOf<E>) => void
): Promise<LogRead<E>> {
  let first: CommittedOf<E> | undefined;
  let last: CommittedOf<E> | undefined;
  const count = await log.query<E>(
    (stored) => {
      const register = Object.hasOwn(events, stored.name) ? events[stored.name] : undefined;
      let event = stored;
      try {
        event = decode(register?.schema, register?.upcasts, stored);
      } catch {
        // Reading the log never fails on one event: it comes as stored.
      }
      first ??= event as CommittedOf<E>;
      last = event as CommittedOf<E>;
      callback?.(event as CommittedOf<E>);
    },
    validate("query", query, QuerySchema)
  );
  return { first, last, count };
}

/** The events matching `query`, decoded as {@link readLog} decodes them, in an array. */
export async function readLogArray<E extends Schemas>(
  log: Store,
  events: EventRegister<E, any>,
  query: Query
): Promise<CommittedOf<E>[]> {
  const read: CommittedOf<E>[] = [];
  await readLog(log, events, query, (event) => read.push(event));
  return read;
}
