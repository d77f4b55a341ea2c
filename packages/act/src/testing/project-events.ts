import { applyProjection } from "../projections/project.js";
import type { Projection } from "../builders/projection.js";
import type { Committed, CommittedOf, Schemas } from "../types/action.js";

/**
 * An event given to {@link projectEvents}: its name and data, and optionally
 * the stream it belongs to (default `"test"`) and when it was created.
 *
 * @stable
 * @typeParam E - the projection's events
 * @example
 * ```ts
 * const opened: GivenEvent<{ TicketOpened: { title: string } }> = {
 *   name: "TicketOpened",
 *   data: { title: "Printer" },
 *   stream: "t-1",
 * };
 * ```
 */
export type GivenEvent<E extends Schemas> = {
  [K in keyof E & string]: {
    /** The event's name. */
    readonly name: K;
    /** Its data. */
    readonly data: E[K];
    /** The stream it was committed to (default `"test"`). */
    readonly stream?: string;
    /** When it was committed (default: now). */
    readonly created?: Date;
  };
}[keyof E & string];

/**
 * Given events → when projected → then the read model: runs `projection`'s
 * handlers over `events` in order, as a drain would — a batched projection
 * gets them all at once — with `tx` as the transaction handle, without an
 * app or a store. Each event gets an id (from 1), its stream's next version
 * and a test correlation, as if committed. Assert on the read model afterwards.
 *
 * @stable
 * @param projection - the projection under test
 * @param events - the events, in log order
 * @param tx - what the handlers get as their transaction handle (a fake client, an in-memory database…)
 * @returns the events as the handlers received them
 * @throws Error naming the projection and the event when a handler fails
 * @see [Read models and projections](/docs/guides/projections#testing) — testing a projection.
 * @example
 * ```ts
 * const OpenTickets = projection<Map<string, string>>("OpenTickets")
 *   .with(Ticket)
 *   .on("TicketOpened", (event, rows) => void rows.set(event.stream, event.data.title))
 *   .on("Closed", (event, rows) => void rows.delete(event.stream))
 *   .build();
 * const rows = new Map<string, string>();
 * await projectEvents(OpenTickets, [
 *   { name: "TicketOpened", data: { title: "Printer" }, stream: "t-1" },
 *   { name: "Closed", data: {}, stream: "t-1" },
 * ], rows);
 * console.log(rows.size); // 0
 * ```
 */
export async function projectEvents<E extends Schemas, Tx>(
  projection: Projection<E, Tx>,
  events: readonly GivenEvent<E>[],
  tx?: Tx
): Promise<CommittedOf<E>[]> {
  const versions = new Map<string, number>();
  const committed = events.map(({ name, data, stream = "test", created = new Date() }, i) => {
    const version = (versions.get(stream) ?? -1) + 1;
    versions.set(stream, version);
    if (!projection.events.includes(name))
      throw new Error(
        `projectEvents: projection "${projection.name}" does not handle "${name}" (given event ${i}); it handles ${projection.events.join(", ")}`
      );
    return Object.freeze({
      id: i + 1,
      name,
      data,
      stream,
      version,
      created,
      meta: { correlation: "test", causation: {} },
    }) as Committed<Schemas, string>;
  });
  await applyProjection(projection, committed, tx);
  return committed as CommittedOf<E>[];
}
