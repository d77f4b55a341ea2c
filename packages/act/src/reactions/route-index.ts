import type { Committed, Schemas } from "../types/action.js";
import type { Store } from "../types/ports.js";
import { upper } from "../core/utils.js";

/**
 * Event ids (and streams) the index keeps at most before it starts over:
 * about 16 MB, room for a backlog of two million reactions.
 */
export const ROUTE_INDEX_LIMIT = 2_000_000;

/**
 * Events (as the store returned them) the index keeps at most for the drains
 * that handle them next: two correlation passes of 1,000, a few megabytes
 * for events of ordinary size.
 */
export const KEPT_EVENTS_LIMIT = 2_000;

/** One reaction stream's events: the ids reacting into it in `(floor, to]` of the index, ascending. */
type Routes = { floor: number; ids: number[] };

/**
 * Which events react into which reaction stream, as this process's
 * correlation found them, so that a drain reads exactly the events of the
 * streams it leased instead of every event of the log between their
 * watermarks. On a log where streams' events interleave (a hundred target
 * streams fed by one stream of orders, say), a shared read for ten leased
 * streams visits ten times the events they handle; with the index it reads
 * what they handle, whatever the log's length.
 *
 * The index covers a range of the log, `(from, to]`: the correlation passes
 * it was given, which must follow one another without a gap (a pass that
 * does not continue the range starts it over). A stream's ids are dropped
 * once a drain read past them; the stream then remembers how far (`floor`),
 * so a watermark moved back by an operator's reset is not served from what
 * was dropped. Whatever the index cannot vouch for — a watermark before its
 * range, a `head` after it (another process correlated further), a store
 * swapped in since — it answers `undefined`, and the drain reads the log.
 * Past {@link ROUTE_INDEX_LIMIT} ids (streams drained by other processes are
 * never read here, so never dropped) it starts over from its end.
 */
export class RouteIndex {
  private log?: Store;
  private from = -1;
  private to = -1;
  private size = 0;
  private readonly streams = new Map<string, Routes>();
  /** The event names the passes read, when they read only some (a backfill's); undefined for every event. */
  private scope?: ReadonlySet<string>;
  /**
   * The latest events correlation found reacting somewhere, by id, in the
   * order it read them, so that the drain handling them next need not read
   * them from the store again. Each is handed out once: a retry, or another
   * drain's stream with the same event, reads the store, so nothing a
   * handler did to an event's object is seen by a later run.
   */
  private readonly events = new Map<number, Committed<Schemas, string>>();

  /**
   * @param limit - event ids kept at most before the index starts over
   * @param keep - events kept at most for the next drains; past it the oldest are forgotten
   */
  constructor(
    private readonly limit = ROUTE_INDEX_LIMIT,
    private readonly keep = KEPT_EVENTS_LIMIT
  ) {}

  /**
   * Records a correlation pass over the events with ids in `(after, last]`
   * of `log`, with the ids (ascending) that react into each target stream
   * and the events with those ids as the store returned them (kept for
   * {@link RouteIndex.take}). Ids the index already covers are skipped; a
   * pass that leaves a gap after the covered range, or reads another store,
   * starts the index over. A pass that read only the events named in
   * `scope` (a backfill's, see {@link RouteIndex.vouches}) starts it over
   * too when the index covered other names before.
   */
  add(
    log: Store,
    after: number,
    last: number,
    routes: ReadonlyMap<string, readonly number[]>,
    events: readonly Committed<Schemas, string>[] = [],
    scope?: ReadonlySet<string>
  ): void {
    if (log !== this.log || after > this.to || !same(scope, this.scope)) {
      this.log = log;
      this.scope = scope;
      this.clear(after);
    }
    for (const [stream, ids] of routes) {
      const fresh = ids[0] > this.to ? ids : ids.slice(upper(ids, this.to));
      if (!fresh.length) continue;
      const known = this.streams.get(stream);
      if (known) known.ids.push(...fresh);
      else {
        this.streams.set(stream, { floor: this.from, ids: [...fresh] });
        this.size++;
      }
      this.size += fresh.length;
    }
    this.to = Math.max(this.to, last);
    if (this.size > this.limit) this.clear(this.to);
    for (const event of events) {
      if (!this.keep || this.events.has(event.id)) continue;
      // The oldest go first: a backlog longer than the room is read from the store as before.
      if (this.events.size >= this.keep) this.events.delete(this.events.keys().next().value!);
      this.events.set(event.id, event);
    }
  }

  /**
   * Whether the index knows every event of a stream into which only events
   * with these names react: always, unless its passes read only some names
   * (a backfill's), then only for streams fed by those names alone.
   */
  vouches(names: Iterable<string | undefined>): boolean {
    if (!this.scope) return true;
    for (const name of names) if (name === undefined || !this.scope.has(name)) return false;
    return true;
  }

  /**
   * The events among `ids` that correlation of `log` read and kept, by id;
   * each is forgotten as it is handed out. Ids not in the answer are to be
   * read from the store.
   */
  take(log: Store, ids: readonly number[]): Map<number, Committed<Schemas, string>> {
    const found = new Map<number, Committed<Schemas, string>>();
    if (log !== this.log) return found;
    for (const id of ids) {
      const event = this.events.get(id);
      if (!event) continue;
      found.set(id, event);
      this.events.delete(id);
    }
    return found;
  }

  /**
   * Keeps again events {@link RouteIndex.take} handed out that no handler was
   * given (a drain stopped before them), so the next drain need not read them
   * from the store. Ignored for another store, and past the room for kept
   * events (they are then read from the store, as any not kept).
   */
  restore(log: Store, events: readonly Committed<Schemas, string>[]): void {
    if (log !== this.log) return;
    for (const event of events) {
      if (this.events.size >= this.keep) return;
      this.events.set(event.id, event);
    }
  }

  /**
   * The ids of the events in `(at, head]` that react into `stream`, in
   * order; `undefined` when the index does not cover that range. Ids up to
   * `at` are handled and dropped.
   */
  ids(log: Store, stream: string, at: number, head: number): number[] | undefined {
    const range = this.range(log, stream, at, head);
    return range?.ids.slice(0, range.end);
  }

  /**
   * The ids of the events in `(at, to]` that react into `stream`, where `to`
   * is the end of the range the index covers, whether or not it reaches the
   * stream's head: a drain takes these by id and reads the log only past
   * `to`. `undefined` when the index does not cover the stream at `at` (a
   * watermark before its range or at its end, another store).
   */
  covered(log: Store, stream: string, at: number): { ids: number[]; to: number } | undefined {
    if (at >= this.to) return undefined;
    const range = this.range(log, stream, at, this.to);
    return range && { ids: range.ids.slice(0, range.end), to: this.to };
  }

  /** Whether a pass over the events after `after` of `log` continues the range the index covers (leaves no gap). */
  continues(log: Store, after: number): boolean {
    return log === this.log && after <= this.to;
  }

  /**
   * How many events in `(at, head]` react into `stream`, as {@link RouteIndex.ids}
   * would list them, without copying them (`stats()` asks for every stream
   * with work, whose backlogs may be long).
   */
  count(log: Store, stream: string, at: number, head: number): number | undefined {
    return this.range(log, stream, at, head)?.end;
  }

  /** The stream's ids after `at` (the handled ones dropped) and how many of them are up to `head`. */
  private range(log: Store, stream: string, at: number, head: number): { ids: number[]; end: number } | undefined {
    if (log !== this.log || head > this.to) return undefined;
    const known = this.streams.get(stream);
    if (at < (known?.floor ?? this.from)) return undefined;
    if (!known) return { ids: [], end: 0 };
    const handled = upper(known.ids, at);
    if (handled) {
      known.ids.splice(0, handled);
      known.floor = at;
      this.size -= handled;
    }
    return { ids: known.ids, end: upper(known.ids, head) };
  }

  private clear(from: number): void {
    this.streams.clear();
    this.events.clear();
    this.size = 0;
    this.from = from;
    this.to = from;
  }
}

/** Whether two scopes name the same events (undefined: every event). */
function same(a: ReadonlySet<string> | undefined, b: ReadonlySet<string> | undefined): boolean {
  if (!a || !b) return a === b;
  return a.size === b.size && [...a].every((name) => b.has(name));
}
