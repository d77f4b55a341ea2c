/**
 * Copying into the store (see `StoreTransfer`): events appended with the
 * ids, versions and times they have, and the records beside them written
 * as they are. Each call checks everything before it changes anything, so
 * a refused call leaves the store as it was.
 */
import { StoreError } from "../../core/errors.js";
import { copyJson } from "../../core/json.js";
import { SNAP_EVENT } from "../../core/schemas.js";
import type { Committed, Schemas } from "../../types/action.js";
import type {
  ArchivedRecord,
  StoreRecords,
  StoreTransfer,
  SubjectRecord,
  TimerRecord,
  WatermarkRecord,
} from "../../types/transfer.js";
import type { Archive } from "./archive.js";
import type { Database, Event, TimerRow, Watermark } from "./database.js";

const byKey =
  <T>(key: (row: T) => string) =>
  (a: T, b: T) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

/** Byte order of UTF-16 code units, as the database stores sort names ("C" collation gives the same for ASCII). */
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The transfer port of one in-memory store. */
export class Transfer implements StoreTransfer {
  constructor(
    private readonly db: Database,
    private readonly archive_: Archive
  ) {}

  async append(events: readonly Committed<Schemas, string>[], after: number): Promise<void> {
    const db = this.db;
    const last = db.events.length ? db.first + db.events.length - 1 : -1;
    const refuse = (why: string) => {
      throw new StoreError("append", "rejected", `InMemoryStore transfer.append refused: ${why}`);
    };
    if (last !== after) refuse(`the store's last event is ${last}, not ${after} as the copy expected`);
    if (!events.length) return;
    // The log is an array indexed by id less the first id, so ids must be
    // contiguous: only a log with no gaps (another in-memory store's) fits.
    // The one gap allowed is an id the archive holds (copied before the
    // log): its slot stays empty, as after a move.
    let first = db.events.length ? db.first + db.events.length : events[0].id;
    // An empty log starts at the archive's first event when that comes first.
    if (!db.events.length) first = Math.min(first, this.archive_.page(-1, 1)[0]?.event.id ?? first);
    const holes: Event[] = [];
    let next = first;
    for (const e of events) {
      for (let held = this.archive_.at(next); next < e.id && held; held = this.archive_.at(++next)) holes.push(held);
      if (e.id !== next)
        refuse(
          `event ${e.id} would be at id ${next}: the in-memory store numbers its events without gaps, so it can only take a copy of a log whose ids follow one another (another in-memory store's)`
        );
      if (e.id <= after) refuse(`event ${e.id} is not after ${after}`);
      next++;
    }
    const copies = events.map(
      (e) =>
        Object.freeze({
          id: e.id,
          stream: e.stream,
          version: e.version,
          created: new Date(e.created.getTime()),
          name: e.name,
          data: copyJson(e.data, `data of event ${e.id}`),
          meta: copyJson(e.meta, `meta of event ${e.id}`),
        }) as Event
    );
    // Archived events keep their versions in their streams: the log's
    // streams count them, as they did before the move.
    const all = [...holes, ...copies].sort((a, b) => a.id - b.id);
    const archived = new Set(holes);
    const versions = new Map<string, number>();
    for (const event of all) {
      const at = versions.get(event.stream) ?? db.streams.get(event.stream)?.ids.length ?? 0;
      if (event.version !== at)
        refuse(`event ${event.id} is version ${event.version} of "${event.stream}", whose next version is ${at}`);
      versions.set(event.stream, at + 1);
    }
    if (!db.events.length) db.first = first;
    for (const event of all) {
      let log = db.streams.get(event.stream);
      if (!log) {
        log = { ids: [], snaps: new Map() };
        db.streams.set(event.stream, log);
      }
      log.ids.push(event.id);
      if (archived.has(event)) {
        (db.events as (Event | undefined)[]).push(undefined);
        continue;
      }
      const of = event.name === SNAP_EVENT ? (event.data as { of?: unknown } | null)?.of : undefined;
      if (typeof of === "string") log.snaps.set(of, event.version);
      db.events.push(event);
    }
  }

  async records(): Promise<StoreRecords> {
    const db = this.db;
    const watermarks = [...db.watermarks.values()].map(watermarkRecord).sort(byKey((w) => w.stream));
    const keys = [...db.keys.entries()]
      .map(([id, k]) => {
        const [stream, key] = id.split("\u0000");
        return {
          stream,
          key,
          from: k.from,
          to: k.to,
          expires: k.expires,
          ...(k.request !== undefined && { request: k.request }),
        };
      })
      .sort(byKey((k) => `${k.stream}\u0000${k.key}`));
    const discovery = [...db.discoveries.entries()]
      .map(([reaction, at]) => ({ reaction, at }))
      .sort(byKey((d) => d.reaction));
    const timers = [...db.timers.values()].map(timerRecord).sort(byKey((t) => t.id));
    const subjects = [...db.subjects.entries()]
      .map(([subject, k]): SubjectRecord => ({ subject, keys: [...k.versions], streams: [...k.streams].sort(byText) }))
      .sort(byKey((k) => k.subject));
    return { watermarks, keys, discovery, timers, subjects };
  }

  async restore(records: StoreRecords): Promise<void> {
    const db = this.db;
    if (db.watermarks.size || db.keys.size || db.discoveries.size || db.timers.size || db.subjects.size)
      throw new StoreError(
        "restore",
        "rejected",
        "InMemoryStore transfer.restore refused: the store already holds reaction streams, idempotency keys, discovery positions, timers or subject keys"
      );
    for (const r of records.watermarks) {
      const w: Watermark = {
        stream: r.stream,
        ...(r.source !== undefined && { source: r.source }),
        at: r.at,
        retry: r.retry,
        done: [...r.done],
        head: r.head,
        reactions: new Set(r.reactions),
        ahead: { ...r.ahead },
        token: r.token,
        blocked: r.blocked,
        ...(r.error !== undefined && { error: r.error }),
        ...(r.leasedBy !== undefined && { by: r.leasedBy }),
        until: r.leasedUntil ?? 0,
      };
      db.watermarks.set(w.stream, w);
      // `poll` looks only at the watermarks with work.
      if (w.head > w.at && !w.blocked) db.pending.add(w);
    }
    for (const k of records.keys)
      db.keys.set(`${k.stream}\u0000${k.key}`, {
        from: k.from,
        to: k.to,
        expires: k.expires,
        ...(k.request !== undefined && { request: k.request }),
      });
    for (const d of records.discovery) db.discoveries.set(d.reaction, d.at);
    for (const t of records.timers) {
      const row: TimerRow = {
        id: t.id,
        action: t.action,
        stream: t.stream,
        actor: { id: t.actor.id, name: t.actor.name },
        payload: copyJson(t.payload, `payload of timer "${t.id}"`),
        due: t.due,
        status: t.status,
        token: t.token,
        attempts: t.attempts,
        ...(t.claimedBy !== undefined && { by: t.claimedBy }),
        until: t.claimedUntil,
        ...(t.fired !== undefined && { fired: t.fired }),
        ...(t.error !== undefined && { error: t.error }),
        ...(t.correlation !== undefined && { correlation: t.correlation }),
      };
      db.timers.set(row.id, row);
    }
    for (const k of records.subjects)
      db.subjects.set(k.subject, { versions: [...k.keys], streams: new Set(k.streams) });
  }

  async archived(after: number, limit: number): Promise<ArchivedRecord[]> {
    return this.archive_.page(after, limit);
  }

  async archive(events: readonly ArchivedRecord[], after: number): Promise<void> {
    const refuse = (why: string) => {
      throw new StoreError("archive", "rejected", `InMemoryStore transfer.archive refused: ${why}`);
    };
    const last = this.archive_.last();
    if (last !== after) refuse(`the archive's last event is ${last}, not ${after} as the copy expected`);
    let previous = after;
    for (const { event } of events) {
      if (!Number.isSafeInteger(event.id) || event.id <= previous)
        refuse(`event ids must grow: ${event.id} follows ${previous}`);
      if (event.id < this.archive_.first())
        refuse(`event ${event.id} is below ${this.archive_.first()}, where this store's ids go on after a drop`);
      previous = event.id;
    }
    this.archive_.restore(
      events.map(({ event: e, archived }) => ({
        event: Object.freeze({
          id: e.id,
          stream: e.stream,
          version: e.version,
          created: new Date(e.created.getTime()),
          name: e.name,
          data: copyJson(e.data, `data of archived event ${e.id}`),
          meta: copyJson(e.meta, `meta of archived event ${e.id}`),
        }) as Event,
        archived,
      }))
    );
  }
}

function watermarkRecord(w: Watermark): WatermarkRecord {
  return {
    stream: w.stream,
    ...(w.source !== undefined && { source: w.source }),
    at: w.at,
    head: w.head,
    retry: w.retry,
    blocked: w.blocked,
    ...(w.error !== undefined && { error: w.error }),
    ...(w.by !== undefined && { leasedBy: w.by }),
    ...(w.until > 0 && { leasedUntil: w.until }),
    done: [...w.done],
    token: w.token,
    reactions: [...w.reactions].sort(),
    ahead: { ...w.ahead },
  };
}

function timerRecord(t: TimerRow): TimerRecord {
  return {
    id: t.id,
    action: t.action,
    stream: t.stream,
    actor: { id: t.actor.id, name: t.actor.name },
    payload: t.payload,
    due: t.due,
    status: t.status,
    token: t.token,
    attempts: t.attempts,
    ...(t.by !== undefined && { claimedBy: t.by }),
    claimedUntil: t.until,
    ...(t.fired !== undefined && { fired: t.fired }),
    ...(t.error !== undefined && { error: t.error }),
    ...(t.correlation !== undefined && { correlation: t.correlation }),
  };
}
