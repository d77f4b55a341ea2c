/**
 * Closing a stream (`app.close`): its state committed as a summary snapshot
 * followed by the close event, in one commit at the version the close read,
 * so a concurrent action makes one of the two fail. Optionally the state goes
 * on in a new stream whose first event is that summary. Also the check every
 * action makes: a stream whose last event is the close refuses it.
 */
import { z } from "zod";
import { CLOSE_EVENT, StreamClosedError } from "../core/closed-streams.js";
import { ConcurrencyError, ValidationError } from "../core/errors.js";
import { ActorSchema, type EventMeta, SNAP_EVENT, StreamSchema } from "../core/schemas.js";
import { uuid, validate } from "../core/utils.js";
import { traced } from "../instrumentation/instrumentation.js";
import type { Committed, CommittedOf, Schema, Schemas, Snapshot, State } from "../types/action.js";
import type { ClosedData, ClosedStream, CloseOptions } from "../types/archive.js";
import type { Store } from "../types/ports.js";
import type { SnapshotCache } from "./cache.js";
import { fold, load, type SnapshotData } from "./load.js";

/** What `app.close` accepts besides the state and the stream. */
const CloseOptionsSchema = z.object({
  by: ActorSchema,
  reason: z.string().max(1_000).optional(),
  expectedVersion: z.number().int().min(-1).optional(),
  continueAs: StreamSchema.optional(),
});

/** The error an action on `stream` gets when `last` (the stream's last event) is its close; undefined otherwise. */
export function closedError(
  stream: string,
  last: { readonly name: unknown; readonly data: unknown; readonly created: Date } | undefined
): StreamClosedError | undefined {
  if (last?.name !== CLOSE_EVENT) return undefined;
  const { by, reason, continuedAs } = last.data as unknown as ClosedData;
  return new StreamClosedError(stream, last.created, by, reason, continuedAs);
}

/** The key the app's snapshot cache keeps a state's stream under (as `action` does). */
export const cacheKey = (state: State<any, any, any>, stream: string) => `${state.name}\u0000${stream}`;

/**
 * Closes `stream` of state `me`: commits the summary snapshot and the close
 * event, then, with `continueAs`, the summary as version 0 of the new
 * stream. The cache then holds the closed state, so this app's next action
 * on the stream is refused without reading it.
 *
 * @throws {@link StreamClosedError} when the stream is already closed
 * @throws {@link ConcurrencyError} when it is not at `expectedVersion`, or moved while closing
 * @throws {@link ValidationError} for bad options, or a `continueAs` stream that already has events
 */
export async function close<S extends Schema, E extends Schemas>(
  me: State<S, E, any>,
  stream: string,
  options: CloseOptions,
  log: Store,
  cache: SnapshotCache
): Promise<ClosedStream<S, E>> {
  validate("stream of app.close", stream, StreamSchema);
  const { by, reason, expectedVersion, continueAs } = validate(
    `options of app.close on stream "${stream}"`,
    options,
    CloseOptionsSchema
  );
  if (continueAs === stream)
    throw new ValidationError(`options of app.close on stream "${stream}"`, options, [
      { path: "continueAs", message: "the state must go on in another stream" },
    ]);
  const current = await load(me, stream, undefined, undefined, log);
  const refused = closedError(stream, current.event);
  if (refused) throw refused;
  const at = current.event?.version ?? -1;
  if (expectedVersion !== undefined && at !== expectedVersion)
    throw new ConcurrencyError(stream, at, [], expectedVersion);
  if (continueAs !== undefined) {
    // Checked first so the common mistake fails before anything is closed;
    // the commit below at version -1 still settles a race for the name.
    let taken = false;
    await log.query(() => (taken = true), { stream: continueAs, with_snaps: true, limit: 1 });
    if (taken)
      throw new ValidationError(`options of app.close on stream "${stream}"`, options, [
        { path: "continueAs", message: `stream "${continueAs}" already has events` },
      ]);
  }
  const meta: EventMeta = {
    correlation: uuid(),
    causation: { action: { name: "close", stream, actor: by } },
    ...traced(),
  };
  const summary: SnapshotData = { of: me.version, state: current.state };
  const closed: ClosedData = {
    by,
    ...(reason !== undefined && { reason }),
    ...(continueAs !== undefined && { continuedAs: continueAs }),
  };
  const committed = await log.commit({
    stream,
    messages: [
      { name: SNAP_EVENT, data: summary },
      { name: CLOSE_EVENT, data: closed },
    ],
    meta,
    expectedVersion: at,
    lastId: current.event?.id,
  });
  const final = committed.reduce(
    (snapshot, event) => fold(me, snapshot, event as Committed<E, keyof E>),
    current as Snapshot<S, E>
  );
  cache.set(cacheKey(me, stream), final as Snapshot<Schema, Schemas>);
  if (continueAs === undefined) return { closed: final };
  const [first] = await log.commit({
    stream: continueAs,
    messages: [{ name: SNAP_EVENT, data: summary }],
    meta,
    expectedVersion: -1,
  });
  const continued = fold(me, { state: me.init() as S, patches: 0, snaps: 0 }, first as CommittedOf<E>);
  return { closed: final, continued };
}
