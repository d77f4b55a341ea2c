import type { SnapshotCache } from "./cache.js";
import { traced } from "../instrumentation/instrumentation.js";
import { logger } from "../core/ports.js";
import type { Committed, CommittedOf, Emitted, Message, Schema, Schemas, Snapshot, State } from "../types/action.js";
import {
  ConcurrencyError,
  IdempotencyKeyReusedError,
  InvariantError,
  PersonalDataError,
  ValidationError,
} from "../core/errors.js";
import { type EventMeta, SNAP_EVENT, type Target, TargetSchema } from "../core/schemas.js";
import { requestDigest } from "./request-digest.js";
import { outputSchema } from "../builders/revive.js";
import { uuid, validate } from "../core/utils.js";
import type { Store } from "../types/ports.js";
import { closedError } from "./close.js";
import { commitEvents } from "./inline-commit.js";
import type { Projection } from "../builders/projection.js";
import type { ZodType } from "zod";

import { fold, load, loadAt, type SnapshotData } from "./load.js";
import { changesOf, handlerTimers, type TimerChecks, writeTimers } from "./action-timers.js";

/**
 * The data an action emitted, as it is stored: the schema's output. Data is
 * normally emitted as the schema's input (its transforms run here, once);
 * data that is not valid input but already a fully described output (a
 * `Date` for a text-to-date pipe or codec, as the handler's types ask for)
 * is kept as it is.
 */
function emitted(event: string, data: unknown, schema: ZodType): unknown {
  try {
    return validate(`data of event "${event}"`, data, schema);
  } catch (error) {
    const output = outputSchema(schema);
    if (output === schema) throw error;
    const parsed = output.safeParse(data);
    if (parsed.success) return parsed.data;
    throw error;
  }
}

/** Writes a snapshot event; only an optimisation, so a failure is logged and ignored (undefined). */
async function snap<S extends Schema, E extends Schemas>(
  log: Store,
  me: State<S, E, any>,
  snapshot: Snapshot<S, E>,
  meta: EventMeta
): Promise<Snapshot<S, E> | undefined> {
  const event = snapshot.event!;
  try {
    const data: SnapshotData = { of: me.version, state: snapshot.state };
    const [committed] = await log.commit({
      stream: event.stream,
      messages: [{ name: SNAP_EVENT, data }],
      meta,
      expectedVersion: event.version,
      lastId: event.id,
    });
    return {
      state: snapshot.state,
      event: committed as CommittedOf<E>,
      patches: 0,
      snaps: snapshot.snaps + 1,
    };
  } catch (error) {
    // Another writer moved the stream first: nothing is wrong, the next snapshot will do.
    if (error instanceof ConcurrencyError)
      logger.debug(error, `snapshot of stream "${event.stream}" skipped: the stream moved`);
    else if (error instanceof PersonalDataError)
      logger.debug(error, `snapshot of stream "${event.stream}" skipped: a data subject of the stream was forgotten`);
    else logger.error(error, `snapshot of stream "${event.stream}" not written`);
    return undefined;
  }
}

/** Asks the state's `.snap` rule; a throwing rule is logged, since the events are already committed. */
function wantsSnap<S extends Schema, E extends Schemas>(me: State<S, E, any>, snapshot: Snapshot<S, E>) {
  try {
    return me.snap!(snapshot);
  } catch (error) {
    logger.error(error, `snap rule of state "${me.name}" threw; no snapshot written`);
    return false;
  }
}

/** Runs a step of an action and names the action and stream if user code throws. */
function guard<T>(what: string, action: string, stream: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof ValidationError || error instanceof InvariantError) throw error;
    throw new Error(`${what} of action "${action}" on stream "${stream}" threw: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/**
 * The outcome of an idempotent action already committed under `key`: one
 * snapshot per event it committed, as they were then. Undefined when the
 * stream has not used the key (or the store forgot it). A key the stream
 * used for another request (`request`, see `requestDigest`) is refused:
 * that outcome is not this caller's. Keys stored before requests were
 * recorded with them carry none, and match any request.
 *
 * @throws {@link IdempotencyKeyReusedError} when the key was used for another request
 */
async function recall<S extends Schema, E extends Schemas>(
  log: Store,
  me: State<S, E, any>,
  stream: string,
  key: string,
  action: string,
  request: string
): Promise<Snapshot<S, E>[] | undefined> {
  const range = await log.recall(stream, key);
  if (!range) return undefined;
  if (range.request !== undefined && range.request !== request)
    throw new IdempotencyKeyReusedError(stream, key, action);
  let snapshot = await loadAt(me, stream, { version: range.from - 1 }, undefined, log);
  const snapshots: Snapshot<S, E>[] = [];
  await log.query<E>(
    (event) => {
      if (event.version < range.from || event.version > range.to) return;
      snapshot = fold(me, snapshot, event);
      snapshots.push(snapshot);
    },
    { stream, with_snaps: true, after: snapshot.event?.id ?? -1 }
  );
  return snapshots.length ? snapshots : undefined;
}

/** What {@link action} is asked to do. */
export type ActionRequest<S extends Schema, E extends Schemas, A extends Schemas, K extends keyof A & string> = {
  /** The state that owns the action. */
  state: State<S, E, A, any, any>;
  /** The action's name. */
  name: K;
  /** The stream, actor and optional expected version or idempotency key. */
  target: Target;
  /** The action's payload. */
  payload: Readonly<A[K]>;
  /** The event a reaction is handling; its correlation id carries over. */
  reactingTo?: CommittedOf<Schemas>;
  /** Trust the payload and the emitted data: no zod validation (default false). */
  skipValidation?: boolean;
  /** The payload is already parsed (a run again): not parsed twice, while the emitted data still is. */
  parsed?: boolean;
  /** Latest snapshots of the streams most recently acted on. */
  cache: SnapshotCache;
  /** May a cached snapshot stand in for reading the stream (default true)? */
  optimistic?: boolean;
  /** The app's store, the same for the whole call (and its retry). */
  store: Store;
  /** The app's inline projections: those handling an event emitted run inside the commit. */
  inline?: readonly Projection<any, any>[];
  /** The app's check of the timers a handler schedules, and its clock; without it, a handler may not schedule. */
  timers?: TimerChecks;
  /** The correlation id of the events when no `reactingTo` gives one: a fired timer's, the action's that set it. */
  correlation?: string;
};

/**
 * Handles one action: validate, load, check invariants, emit, validate
 * events, commit, fold, snapshot. Nothing is committed unless every step
 * before the commit succeeds. `committed` is false when nothing was emitted.
 *
 * `cache` keeps each stream's latest snapshot between actions. Without an
 * expected version from the caller, an action on a cached stream skips the
 * read (`optimistic`): the commit's version check is what proves the snapshot
 * current — together with the id of the event the snapshot was built from,
 * so a stream dropped and rewritten up to the same version is not mistaken
 * for the cached one. When it is not — the commit conflicts, or a rule or the handler
 * declined on what may be stale state — the cached snapshot is dropped and
 * the action runs once more on the stream read from the store. With an
 * expected version, the events after the cached snapshot are read (they must
 * continue it, see `load`) and the state must be at exactly that version.
 */
export async function action<S extends Schema, E extends Schemas, A extends Schemas, K extends keyof A & string>(
  request: ActionRequest<S, E, A, K>
): Promise<{ result: Snapshot<S, E>[]; committed: boolean }> {
  const { state: me, name, target, payload, reactingTo, skipValidation = false, cache, optimistic = true } = request;
  const log = request.store;
  const { stream, expectedVersion, actor, idempotencyKey } = validate(
    `target of action "${name}"`,
    target,
    TargetSchema
  );
  const data: Readonly<A[K]> =
    skipValidation || request.parsed ? payload : validate(`payload of action "${name}"`, payload, me.actions[name]);
  // A key this stream already used: the first outcome, nothing run, nothing
  // committed — when it was used for this very request (action, actor, payload).
  const asked = idempotencyKey !== undefined ? await requestDigest(name, actor, data) : undefined;
  const replay = idempotencyKey !== undefined ? await recall(log, me, stream, idempotencyKey, name, asked!) : undefined;
  if (replay) return { result: replay, committed: false };
  const key = `${me.name}\u0000${stream}`;
  const cached = optimistic ? (cache.get(log, key) as Snapshot<S, E> | undefined) : undefined;
  const trusted = cached?.event !== undefined && expectedVersion === undefined;
  let current = trusted ? cached! : await load(me as State<S, E, any>, stream, undefined, cached, log);
  if (expectedVersion !== undefined) {
    // Decide only on the state at the version the caller expects: a stream
    // read that ends below it is read once more from the store, and any other
    // mismatch is a conflict, before any rule or handler runs.
    if ((current.event?.version ?? -1) < expectedVersion && cached)
      current = await load(me as State<S, E, any>, stream, undefined, undefined, log);
    const at = current.event?.version ?? -1;
    if (at !== expectedVersion) {
      cache.delete(key);
      throw closedError(stream, current.event) ?? new ConcurrencyError(stream, at, [], expectedVersion);
    }
  }
  // A closed stream refuses every action; a close is final, so even a cached one is proof.
  const closed = closedError(stream, current.event);
  if (closed) throw closed;
  // A cached snapshot that led to a conflict or a refusal is dropped, and the
  // action runs once more on the stream as stored.
  const again = () => {
    cache.delete(key);
    return action({ ...request, payload: data, parsed: true, optimistic: false, store: log });
  };
  for (const rule of me.given[name] ?? []) {
    const valid = guard(`Invariant "${rule.description}"`, name, stream, () => rule.valid(current.state, actor));
    if (!valid) {
      if (trusted) return again();
      throw new InvariantError(name, data, target, current as Snapshot<Schema, Schemas>, rule.description);
    }
  }
  // The timers this run of the handler asks for: written with its events, or on their own when it emits none.
  const timers = handlerTimers(name, target, request.timers);
  const result = guard("Handler", name, stream, () => me.on[name](data, current, target, timers.context));
  // A tuple starts with the event name; a list of tuples (maybe empty) does not.
  const tuples = (result && typeof result[0] === "string" ? [result] : (result ?? [])) as Emitted<E>[];
  const correlation = reactingTo?.meta.correlation ?? request.correlation ?? uuid();
  if (!tuples.length) {
    if (trusted) return again();
    const changes = changesOf(timers, correlation, request.timers);
    if (changes) {
      await writeTimers(log, name, changes);
      request.timers?.written?.();
    }
    return { result: [current], committed: false };
  }
  const messages: Message<E, keyof E>[] = tuples.map(([event, eventData]) => {
    const schema = Object.hasOwn(me.events, event) ? me.events[event] : undefined;
    if (!schema)
      throw new ValidationError(`event emitted by action "${name}"`, event, [
        { path: "", message: `"${String(event)}" is not an event of state "${me.name}"` },
      ]);
    return {
      name: event,
      data: skipValidation ? eventData : (emitted(String(event), eventData, schema) as Readonly<E[keyof E]>),
    };
  });
  // Dry-run the patches so a throwing patch handler fails before the commit.
  // The trial events are written out key by key: on Node 20, a spread followed
  // by keys its source lacks ({ ...message, id, ... }) takes a slow path in V8
  // that cost about 6 µs here, a third of an in-memory action.
  const version = current.event?.version ?? -1;
  const created = new Date();
  messages.reduce(
    (snapshot, { name, data }, i) =>
      fold(me as State<S, E, any>, snapshot, {
        name,
        data,
        id: -1,
        stream,
        version: version + 1 + i,
        created,
        meta: { correlation: "", causation: {} },
      } as Committed<E, keyof E>),
    current
  );
  const meta: EventMeta = {
    correlation,
    causation: {
      action: { name, ...target },
      ...(reactingTo && {
        event: { id: reactingTo.id, name: reactingTo.name, stream: reactingTo.stream },
      }),
    },
    ...traced(),
  };
  const changes = changesOf(timers, correlation, request.timers);
  let committed: Committed<E, keyof E>[];
  try {
    // The id of the event the state was built from goes with the version: a
    // stream dropped and written again up to the same version has another
    // event there, and the commit refuses to build on the old state.
    committed = await commitEvents(log, request.inline ?? [], {
      stream,
      messages,
      meta,
      expectedVersion: expectedVersion ?? version,
      idempotencyKey,
      lastId: current.event?.id,
      request: asked,
      timers: changes,
    });
  } catch (error) {
    // Another process committed the same idempotent action first: its outcome is ours.
    const raced = error instanceof ConcurrencyError && idempotencyKey !== undefined;
    const replayed = raced ? await recall(log, me, stream, idempotencyKey, name, asked!) : undefined;
    if (replayed) return { result: replayed, committed: false };
    if (trusted && error instanceof ConcurrencyError) return again();
    cache.delete(key);
    throw error;
  }
  if (changes) request.timers?.written?.();
  let snapshot = current;
  const snapshots = committed.map((event) => (snapshot = fold(me as State<S, E, any>, snapshot, event)));
  if (me.snap && wantsSnap(me, snapshot)) {
    const written = await snap(log, me as State<S, E, any>, snapshot, meta);
    if (written) snapshots.push(written);
  }
  cache.set(key, snapshots[snapshots.length - 1] as Snapshot<Schema, Schemas>);
  return { result: snapshots, committed: true };
}
