/**
 * Reading a stream's state: stored events decoded through their schemas
 * (older shapes upcast), folded with the state's patch handlers from its
 * latest snapshot — now, or as of a version, an event or a time.
 */
import { around } from "../instrumentation/instrumentation.js";
import { logger } from "../core/ports.js";
import type { Committed, CommittedOf, Patch, Schema, Schemas, Snapshot, State, Upcaster } from "../types/action.js";
import { ValidationError } from "../core/errors.js";
import { StreamArchivedError } from "../core/closed-streams.js";
import { archivedBefore } from "./archived-events.js";
import { SNAP_EVENT } from "../core/schemas.js";
import { type Matcher, plainMatcher } from "../core/plain-shape.js";
import { readSchema, reviver } from "../builders/revive.js";
import { patch, validate } from "../core/utils.js";
import type { Store } from "../types/ports.js";
import type { PointInTime } from "../types/app.js";
import type { ZodType } from "zod";

/** What a snapshot event holds: the state that wrote it and that state's value. */
export type SnapshotData = { of: string; state: unknown };

/** Snapshot events read per step when time travel looks for where to start. */
const SNAPSHOT_PAGE = 8;

/** States whose older snapshots were already reported as ignored (once per state is enough). */
const reported = new Set<string>();

/**
 * An event's data as its schema's output describes it (dates restored; see
 * `revive`). Input transforms do not run again: the data was stored as the
 * output of the schema when it was committed.
 */
export function decode<E extends Schemas>(
  schema: ZodType | undefined,
  upcasts: ReadonlyArray<Upcaster<unknown>> | undefined,
  event: Committed<E, keyof E>
): Committed<E, keyof E> {
  if (!schema) return event;
  // Fast path: data already in the shape of a plain-JSON schema is what the
  // full decode would return (as a copy); it skips the parse, the copy of
  // the event and the upcasters. Anything else takes the full decode below.
  if (readMatcher(schema)?.(event.data)) return event;
  return fullDecode(schema, upcasts, event);
}

/** Each event schema's plain-shape matcher for stored data (`null`: none), found once per schema. */
const readMatchers = new WeakMap<ZodType, Matcher | null>();

/**
 * The matcher of a schema's read side, from one lookup: every event read
 * asks for it, and finding the read side and then its matcher took two.
 */
function readMatcher(schema: ZodType): Matcher | null {
  let matcher = readMatchers.get(schema);
  if (matcher === undefined) {
    matcher = plainMatcher(readSchema(schema)) ?? null;
    readMatchers.set(schema, matcher);
  }
  return matcher;
}

/** The full decode: date revival, zod on the output side, then each upcaster in turn. */
function fullDecode<E extends Schemas>(
  schema: ZodType,
  upcasts: ReadonlyArray<Upcaster<unknown>> | undefined,
  event: Committed<E, keyof E>
): Committed<E, keyof E> {
  const where = `event "${String(event.name)}" #${event.id} on stream "${event.stream}"`;
  const read = (shape: ZodType) => {
    const revive = reviver(shape);
    return revive ? revive(event.data) : event.data;
  };
  // Stored data is the schema's output: it is checked against the output
  // side, never parsed again as input (see `readSchema`).
  const stored = readSchema(schema);
  try {
    return { ...event, data: validate(where, read(stored), stored) as E[keyof E] };
  } catch (current) {
    // Not the current shape: the first older shape it matches is upcast.
    for (const { schema: older, to } of upcasts ?? []) {
      const old = readSchema(older);
      const parsed = old.safeParse(read(old));
      if (parsed.success)
        return { ...event, data: validate(`${where} (upcast)`, to(parsed.data), stored) as E[keyof E] };
    }
    throw current;
  }
}

/**
 * The snapshot with only its version moved to `event`. Written key by key:
 * on Node 20, `{ ...snapshot, event }` on a snapshot without an event yet
 * takes V8's slow path for a spread followed by a new key (about 1 µs).
 */
function moved<S extends Schema, E extends Schemas>(
  snapshot: Snapshot<S, E>,
  event: Committed<E, keyof E>
): Snapshot<S, E> {
  return { state: snapshot.state, event: event as CommittedOf<E>, patches: snapshot.patches, snaps: snapshot.snaps };
}

/** Folds one event into a snapshot; a throwing patch handler names its state and event. */
export function fold<S extends Schema, E extends Schemas>(
  me: State<S, E, any>,
  snapshot: Snapshot<S, E>,
  event: Committed<E, keyof E>
): Snapshot<S, E> {
  if (event.name === SNAP_EVENT) {
    const data = event.data as unknown as SnapshotData;
    // Another state's snapshot on a shared stream, or one written by an older
    // definition of this state, only moves the version.
    if (data?.of !== me.version) {
      if (typeof data?.of === "string" && data.of.startsWith(`${me.name}@`) && !reported.has(me.version)) {
        reported.add(me.version);
        logger.info(
          `snapshots written by an older definition of state "${me.name}" are ignored; streams are rebuilt from their events`
        );
      }
      return moved(snapshot, event);
    }
    const revive = reviver(me.state);
    const state = (revive ? revive(data.state) : data.state) as S;
    return { state, event: event as CommittedOf<E>, patches: 0, snaps: snapshot.snaps + 1 };
  }
  // Own properties only: an event named like an Object method ("constructor") has no handler by inheritance.
  const handler = Object.hasOwn(me.patch, event.name) ? me.patch[event.name] : undefined;
  // Events of other states sharing the stream have no patch here: they only move the version.
  if (!handler) return moved(snapshot, event);
  const decoded = decode(me.events[event.name], me.upcasts[event.name], event);
  let changes: Readonly<Patch<S>>;
  try {
    changes = handler(decoded as Committed<E, typeof event.name>, snapshot.state);
  } catch (error) {
    throw new Error(
      `Patch handler of event "${String(event.name)}" in state "${me.name}" threw on stream "${event.stream}": ${(error as Error).message}`,
      { cause: error }
    );
  }
  return {
    state: patch(snapshot.state, changes) as S,
    event: decoded as CommittedOf<E>,
    patches: snapshot.patches + 1,
    snaps: snapshot.snaps,
  };
}

/** A patch handler as a fold calls it, for an event of any name. */
type Handler<S extends Schema, E extends Schemas> = (event: Committed<E, keyof E>, state: S) => Readonly<Patch<S>>;

/**
 * The own keys of `changes` when every value under them is a primitive or a
 * removal (nothing that can hold an object), else `undefined`. An array of
 * keys walked twice (here and by the caller's writes) is faster per event
 * than two `for…in` walks with an own-key check each, the array
 * notwithstanding (a 5,000-event load, 30 November).
 */
function primitives(changes: Record<string, unknown>): string[] | undefined {
  const keys = Object.keys(changes);
  for (let i = 0; i < keys.length; i++) {
    const value = changes[keys[i]];
    if (value !== null && (typeof value === "object" || typeof value === "function")) return undefined;
  }
  return keys;
}

/**
 * Folds many events, one after the other, into one snapshot: what a load
 * does. The result is the snapshot {@link fold} would give event by event,
 * built with less work per event:
 *
 * - the patch handler, schema and decoder of an event name are looked up
 *   once for a run of events of that name, not once per event;
 * - the state is a working copy this fold made itself (never the state it
 *   started from, a snapshot's data or a handler's result), and a patch
 *   whose values are all primitives is written into it in place instead of
 *   into a new object per event. A patch with any object or function in it
 *   is merged with {@link patch} into a new object, as {@link fold} does:
 *   it may hold the state the handler was given (`{ history: [...s.history,
 *   s] }`), and that state must not change after the handler returned. A
 *   patch of primitives cannot hold it, and patch handlers are pure
 *   (documented as such), so no one but this fold can see the change.
 *
 * Nothing outside sees the working copy until {@link Folding.snapshot}
 * hands it out; after {@link Folding.share} (a snapshot given to a caller's
 * callback), the next patch starts a new working copy again.
 */
class Folding<S extends Schema, E extends Schemas> {
  #state: S;
  #event: Committed<E, keyof E> | undefined;
  #patches: number;
  #snaps: number;
  /** Whether `#state` is an object only this fold holds (so a patch may change it in place). */
  #owned = false;
  /** The last event name folded, with its patch handler, schema, upcasters and read matcher. */
  #name: string | undefined;
  #handler: Handler<S, E> | undefined;
  #schema: ZodType | undefined;
  #upcasts: ReadonlyArray<Upcaster<unknown>> | undefined;
  #matcher: Matcher | null = null;

  constructor(
    private readonly me: State<S, E, any>,
    from: Snapshot<S, E>
  ) {
    this.#state = from.state;
    this.#event = from.event;
    this.#patches = from.patches;
    this.#snaps = from.snaps;
  }

  /** The last event folded (the held snapshot's, before any). */
  get event(): Committed<E, keyof E> | undefined {
    return this.#event;
  }

  /** The snapshot so far. Its state is this fold's working copy: {@link share} before folding on if a caller keeps it. */
  snapshot(): Snapshot<S, E> {
    return this.#event === undefined
      ? { state: this.#state, patches: this.#patches, snaps: this.#snaps }
      : { state: this.#state, event: this.#event as CommittedOf<E>, patches: this.#patches, snaps: this.#snaps };
  }

  /** The state was handed out: the next patch makes a new working copy instead of changing this one. */
  share(): void {
    this.#owned = false;
  }

  /** Folds one event, as {@link fold} does. */
  add(event: Committed<E, keyof E>): void {
    const name = event.name as string;
    if (name === SNAP_EVENT) {
      const next = fold(this.me, this.snapshot(), event);
      // A snapshot of this state starts from its stored data, which is not ours to change.
      if (next.state !== this.#state) this.#owned = false;
      this.#state = next.state;
      this.#event = next.event;
      this.#patches = next.patches;
      this.#snaps = next.snaps;
      return;
    }
    if (name !== this.#name) this.#lookup(name);
    const handler = this.#handler;
    // Events of other states sharing the stream have no patch here: they only move the version.
    if (!handler) {
      this.#event = event;
      return;
    }
    const decoded = !this.#schema || this.#matcher?.(event.data) ? event : decode(this.#schema, this.#upcasts, event);
    let changes: Readonly<Patch<S>>;
    try {
      changes = handler(decoded, this.#state);
    } catch (error) {
      throw new Error(
        `Patch handler of event "${name}" in state "${this.me.name}" threw on stream "${event.stream}": ${(error as Error).message}`,
        { cause: error }
      );
    }
    const partial = changes as Record<string, unknown>;
    const keys = this.#owned && typeof partial === "object" && partial !== null ? primitives(partial) : undefined;
    if (keys) {
      // What `patch` does with primitives and removals, on the working copy.
      const state = this.#state as Record<string, unknown>;
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        if (key === "__proto__" || key === "constructor" || key === "prototype") continue;
        const value = partial[key];
        if (value === undefined || value === null) delete state[key];
        else state[key] = value;
      }
    } else {
      this.#state = patch(this.#state, changes) as S;
      this.#owned = true;
    }
    this.#event = decoded;
    this.#patches++;
  }

  /** Finds an event name's patch handler, schema, upcasters and read matcher. */
  #lookup(name: string): void {
    const me = this.me;
    this.#name = name;
    // Own properties only: an event named like an Object method ("constructor") has no handler by inheritance.
    this.#handler = Object.hasOwn(me.patch, name) ? (me.patch[name] as Handler<S, E>) : undefined;
    this.#schema = me.events[name];
    this.#upcasts = me.upcasts[name];
    this.#matcher = this.#schema ? readMatcher(this.#schema) : null;
  }
}

/** Thrown inside `load` when the events after a held snapshot do not continue it. */
class Gap extends Error {}

/**
 * Rebuilds a stream's state: starts at its latest snapshot of this state (or
 * `init()`) and folds only the events after it.
 *
 * Given a snapshot it already holds (`from`), it folds only the events
 * committed after that one — but only if they continue it version by version.
 * Anything else (the stream was dropped and rewritten, or the read skipped an
 * event) means the held snapshot cannot be trusted, and the stream is read
 * again from its latest stored snapshot. `callback` sees each snapshot of a
 * read from the store's latest snapshot, not those folded onto a held one
 * (actions hold one, and want only the result).
 */
export function load<S extends Schema, E extends Schemas>(
  me: State<S, E, any>,
  stream: string,
  callback: ((snapshot: Snapshot<S, E>) => void) | undefined,
  from: Snapshot<S, E> | undefined,
  log: Store
): Promise<Snapshot<S, E>> {
  return around("load", { state: me.name, stream, store: log }, () => rebuild(log, me, stream, callback, from));
}

/** What `load` does, without the observer's hook around it. */
async function rebuild<S extends Schema, E extends Schemas>(
  log: Store,
  me: State<S, E, any>,
  stream: string,
  callback?: (snapshot: Snapshot<S, E>) => void,
  from?: Snapshot<S, E>
): Promise<Snapshot<S, E>> {
  if (from?.event) {
    // The held snapshot's state is the caller's: the fold copies it before its first patch.
    const folding = new Folding(me, from);
    try {
      await log.query<E>(
        (event) => {
          if (event.version !== folding.event!.version + 1) throw new Gap();
          folding.add(event);
        },
        { stream, after: from.event.id, with_snaps: true }
      );
      return folding.snapshot();
    } catch (error) {
      if (!(error instanceof Gap)) throw error;
      logger.warn(
        `stream "${stream}" does not continue the snapshot held at version ${from.event.version}; reading it again`
      );
    }
  }
  const folding = new Folding(me, { state: me.init() as S, patches: 0, snaps: 0 });
  const step = stepper(folding, callback);
  // The log's events after its first, when that one shows the events before it were archived.
  let rest: Committed<E, keyof E>[] | undefined;
  await log.query<E>(
    (event) => {
      if (rest) {
        rest.push(event);
        return;
      }
      // A read from init() starts at version 0 or at a snapshot of this state;
      // anything else means the events before it were archived and no summary
      // this state can start from stands for them.
      if (!folding.event && event.version > 0 && !ownSnapshot(me, event)) {
        rest = [event];
        return;
      }
      if (callback) step(event);
      else folding.add(event);
    },
    { stream, from_snapshot: me.version }
  );
  if (!rest) return folding.snapshot();
  // The log was read first: an event moved to the archive since is in `rest` already.
  const archived = await archivedBefore<E>(log, stream, rest[0].version, `load of state "${me.name}"`);
  for (const event of [...archived, ...rest]) step(event);
  return folding.snapshot();
}

/**
 * Folds one event into `folding`; with a callback, hands it each snapshot
 * (whose state it may keep, so the next patch starts a new copy).
 */
function stepper<S extends Schema, E extends Schemas>(
  folding: Folding<S, E>,
  callback: ((snapshot: Snapshot<S, E>) => void) | undefined
): (event: Committed<E, keyof E>) => void {
  if (!callback) return (event) => folding.add(event);
  return (event) => {
    folding.add(event);
    folding.share();
    callback(folding.snapshot());
  };
}

/** Whether `event` is a snapshot this state can start from. */
function ownSnapshot<S extends Schema, E extends Schemas>(me: State<S, E, any>, event: Committed<E, keyof E>) {
  return event.name === SNAP_EVENT && (event.data as unknown as SnapshotData)?.of === me.version;
}

/**
 * Rebuilds a stream's state as it was at `point`: starts at this state's
 * latest snapshot at or before that point (found by reading the stream's
 * snapshot events backwards, a few at a time, until one fits), then folds
 * the events after it up to the point.
 */
export async function loadAt<S extends Schema, E extends Schemas>(
  me: State<S, E, any>,
  stream: string,
  point: PointInTime,
  callback: ((snapshot: Snapshot<S, E>) => void) | undefined,
  log: Store
): Promise<Snapshot<S, E>> {
  const keys = Object.keys(point);
  if (keys.length !== 1 || !["id", "version", "time"].includes(keys[0]))
    throw new ValidationError("point in time", point, [
      { path: "", message: "give exactly one of id, version or time" },
    ]);
  // An id or a time is a bound the store applies itself (exactly: its
  // conformance suite holds it to that); a version is not, so it is checked here.
  const within = (event: Committed<E, keyof E>) => !("version" in point) || event.version <= point.version;
  const bound =
    "id" in point
      ? { before: point.id + 1 }
      : "time" in point
        ? { created_before: new Date(point.time.getTime() + 1) }
        : {};
  // The newest snapshot of this state at or before the point, read backwards
  // a few snapshot events at a time: a long stream with many snapshots (of
  // this state or others sharing it) costs the few read, not all of them.
  let start: Committed<E, keyof E> | undefined;
  let before: number | undefined;
  for (;;) {
    let read = 0;
    let oldest: number | undefined;
    await log.query<E>(
      (event) => {
        read++;
        oldest = event.id;
        if (start || !within(event)) return;
        if ((event.data as unknown as SnapshotData)?.of === me.version) start = event;
      },
      {
        stream,
        names: [SNAP_EVENT],
        with_snaps: true,
        backward: true,
        limit: SNAPSHOT_PAGE,
        ...bound,
        ...(before !== undefined && { before }),
      }
    );
    if (start || read < SNAPSHOT_PAGE) break;
    before = oldest;
  }
  const folding = new Folding(me, { state: me.init() as S, patches: 0, snaps: 0 });
  if (start) folding.add(start);
  else {
    // Without a snapshot at or before the point, the fold starts at version
    // 0 — unless the stream's history before its summary was archived.
    let first: number | undefined;
    await log.query<E>((event) => (first = event.version), { stream, with_snaps: true, limit: 1 });
    if (first !== undefined && first > 0)
      throw new StreamArchivedError(stream, first, `load of state "${me.name}" at ${JSON.stringify(point)}`);
  }
  const step = stepper(folding, callback);
  await log.query<E>(
    (event) => {
      if (within(event)) step(event);
    },
    { stream, with_snaps: true, ...(start && { after: start.id }), ...bound }
  );
  return folding.snapshot();
}
