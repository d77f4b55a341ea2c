/**
 * The archive (`ArchiveStore`): a second log of the same shape as the
 * store's, holding the events moved out of it at their own ids, with the
 * time each was archived. A move takes an event out of the log (its slot is
 * left empty, so ids and stream versions stay where they are) and puts it
 * here in the same synchronous step, so no read sees it in both or neither.
 */
import { CLOSE_EVENT } from "../../core/closed-streams.js";
import { checkArchiveMove, checkPurge } from "../../core/archive-inputs.js";
import { SNAP_EVENT, type Query } from "../../core/schemas.js";
import type { Committed, Schemas } from "../../types/action.js";
import type { ArchiveMove, ArchiveMoved, ArchivePurged, ArchiveStore } from "../../types/archive.js";
import type { ArchivedRecord } from "../../types/transfer.js";
import { Database, type Event } from "./database.js";
import { query as read } from "./read.js";

/** The archive of one in-memory store. */
export class Archive implements ArchiveStore {
  /** The archived events, placed at their ids as in the log. */
  #log: Database;
  /** When each archived event (by id) was archived, in epoch ms. */
  #archived = new Map<number, number>();

  constructor(private readonly db: Database) {
    this.#log = this.#empty();
  }

  #empty(): Database {
    const log = new Database();
    log.first = this.db.first;
    return log;
  }

  /** Forgets every archived event (after the store's `drop`, whose ids it follows). */
  drop(): void {
    this.#log = this.#empty();
    this.#archived = new Map();
  }

  /**
   * The last event id no reaction still needs: below the watermark of every
   * reaction stream with work left and every discovery position, the ones
   * the caller names included (a reaction never discovered has seen nothing).
   */
  #bound(reactions: readonly string[]): number {
    let bound = Number.POSITIVE_INFINITY;
    for (const w of this.db.watermarks.values()) if (w.head > w.at) bound = Math.min(bound, w.at);
    for (const at of this.db.discoveries.values()) bound = Math.min(bound, at);
    for (const name of reactions) bound = Math.min(bound, this.db.discoveries.get(name) ?? -1);
    return bound;
  }

  async move(request: ArchiveMove): Promise<ArchiveMoved> {
    const { closedBefore, at, reactions } = checkArchiveMove(request);
    const bound = this.#bound(reactions);
    const first = this.db.first;
    const streams: string[] = [];
    let events = 0;
    let held = 0;
    for (const [stream, log] of this.db.streams) {
      const n = log.ids.length;
      const close = n > 1 ? this.db.events[log.ids[n - 1] - first] : undefined;
      const summary = n > 1 ? this.db.events[log.ids[n - 2] - first] : undefined;
      if (close?.name !== CLOSE_EVENT || summary?.name !== SNAP_EVENT || !(close.created < closedBefore)) continue;
      let moved = 0;
      for (let version = 0; version < n - 2; version++) {
        const id = log.ids[version];
        const event = this.db.events[id - first];
        if (!event) continue; // archived before
        if (id > bound) {
          held++;
          continue;
        }
        this.#put(event, at.getTime());
        (this.db.events as (Event | undefined)[])[id - first] = undefined;
        moved++;
      }
      if (moved) streams.push(stream);
      events += moved;
    }
    return { events, streams: streams.sort(), held };
  }

  /** Puts an event in the archive at its id, its stream's ids kept in version order (a prefix at a time). */
  #put(event: Event, at: number): void {
    this.#log.events[event.id - this.#log.first] = event;
    const log = this.#log.streams.get(event.stream) ?? { ids: [], snaps: new Map<string, number>() };
    this.#log.streams.set(event.stream, log);
    log.ids.push(event.id);
    const of = event.name === SNAP_EVENT ? (event.data as { of?: unknown } | null)?.of : undefined;
    if (typeof of === "string") log.snaps.set(of, event.version);
    this.#archived.set(event.id, at);
  }

  async purge(before: Date): Promise<ArchivePurged> {
    const cut = checkPurge(before).getTime();
    const streams = new Set<string>();
    let events = 0;
    for (const [id, at] of this.#archived) {
      if (at >= cut) continue;
      const slot = id - this.#log.first;
      const event = this.#log.events[slot];
      (this.#log.events as (Event | undefined)[])[slot] = undefined;
      this.#archived.delete(id);
      streams.add(event.stream);
      events++;
    }
    return { events, streams: [...streams].sort() };
  }

  /**
   * Replaces each archived snapshot of `stream` with `emptied` (a subject of
   * the stream was forgotten, see `SubjectKeys.forget`).
   *
   * @returns how many it replaced
   */
  empty(stream: string, emptied: Event["data"]): number {
    const log = this.#log.streams.get(stream);
    if (!log) return 0;
    let replaced = 0;
    for (const id of log.ids) {
      const slot = id - this.#log.first;
      const event = this.#log.events[slot];
      if (event?.name !== SNAP_EVENT || event.data === emptied) continue;
      this.#log.events[slot] = Object.freeze({ ...event, data: emptied });
      replaced++;
    }
    log.snaps.clear();
    return replaced;
  }

  /** The archived event with this id, if any (a copy leaves its slot in the log empty). */
  at(id: number): Event | undefined {
    return this.#log.events[id - this.#log.first];
  }

  /** A page of archived events after `after`, in id order, with their archiving times (see `StoreTransfer.archived`). */
  page(after: number, limit: number): ArchivedRecord[] {
    const events: Event[] = [];
    read(this.#log, (e) => void events.push(e as Event), { after, limit, with_snaps: true });
    return events.map((event) => ({ event, archived: this.#archived.get(event.id) ?? 0 }));
  }

  /** The lowest id the archive can hold: ids go on after a drop, as the log's do. */
  first(): number {
    return this.#log.first;
  }

  /** The id of the last archived event (-1: none). */
  last(): number {
    const found: number[] = [];
    read(this.#log, (e) => void found.push(e.id), { backward: true, limit: 1, with_snaps: true });
    return found[0] ?? -1;
  }

  /** Puts copied events in the archive as they are (see `StoreTransfer.archive`); the caller checked them. */
  restore(records: readonly { event: Event; archived: number }[]): void {
    for (const { event, archived } of records) this.#put(event, archived);
  }

  async query<E extends Schemas>(callback: (event: Committed<E, keyof E>) => void, query: Query = {}): Promise<number> {
    return read(this.#log, callback, query);
  }
}
