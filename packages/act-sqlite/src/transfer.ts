/**
 * Copying into and out of the store (see `StoreTransfer`): events written
 * with the ids, versions and times they have, and the records beside them
 * read and written as they are, each call in one write transaction over the
 * statements of `TRANSFER_SQL`.
 */
import {
  type ArchivedRecord,
  type Committed,
  type KeyRecord,
  type Schemas,
  StoreError,
  type StoreRecords,
  type StoreTransfer,
  type SubjectRecord,
  type TimerRecord,
  type WatermarkRecord,
} from "@act-root/act";
import { stringifyJson } from "@act-root/act/internal";
import type { Database } from "./database.js";
import { TRANSFER_SQL as SQL } from "./transfer-sql.js";

type Nullable<T> = T | null;
type WatermarkRow = [
  string,
  Nullable<string>,
  number,
  number,
  number,
  number,
  Nullable<string>,
  Nullable<string>,
  Nullable<number>,
  string,
  number,
  Nullable<string>,
  string,
];
type KeyRow = [string, string, number, number, number, Nullable<string>];
type TimerRow = [
  string,
  string,
  string,
  string,
  string,
  number,
  TimerRecord["status"],
  number,
  number,
  Nullable<string>,
  number,
  Nullable<number>,
  Nullable<string>,
  Nullable<string>,
];
type ArchivedRow = [number, string, number, string, string, string, number, number];

/** Subjects from their key rows and stream rows (each sorted by subject). */
function subjectsOf(keys: [string, number, Nullable<string>][], streams: [string, string][]): SubjectRecord[] {
  const found = new Map<string, { keys: Nullable<string>[]; streams: string[] }>();
  const of = (subject: string) => {
    const entry = found.get(subject) ?? { keys: [], streams: [] };
    found.set(subject, entry);
    return entry;
  };
  for (const [subject, , key] of keys) of(subject).keys.push(key);
  for (const [subject, stream] of streams) of(subject).streams.push(stream);
  return [...found.entries()]
    .map(([subject, entry]) => ({ subject, ...entry }))
    .sort((a, b) => (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0));
}

/** The transfer port of one SQLite store. */
export class Transfer implements StoreTransfer {
  constructor(private readonly db: Database) {}

  async append(events: readonly Committed<Schemas, string>[], after: number): Promise<void> {
    const operation = "transfer.append";
    const encoded = events.map((e) => [
      e.id,
      e.stream,
      e.version,
      e.name,
      stringifyJson(e.data ?? null, `SqliteStore ${operation}: data of event ${e.id}`),
      stringifyJson(e.meta, `SqliteStore ${operation}: meta of event ${e.id}`),
      e.created.getTime(),
    ]);
    this.db.write(operation, () => {
      const [last] = this.db.statement(operation, SQL.lastId).row() as [number];
      const refuse = (why: string) => {
        throw new StoreError(operation, "rejected", `SqliteStore ${operation} refused: ${why}`);
      };
      if (last !== after) refuse(`the store's last event is ${last}, not ${after} as the copy expected`);
      let previous = after;
      for (const e of events) {
        if (!Number.isSafeInteger(e.id) || e.id <= previous) refuse(`event ids must grow: ${e.id} follows ${previous}`);
        previous = e.id;
      }
      const insert = this.db.statement(operation, SQL.insertEvent);
      for (const row of encoded) insert.run(...row);
    });
  }

  async records(): Promise<StoreRecords> {
    const operation = "transfer.records";
    return this.db.write(operation, () => {
      const rows = (sql: string) => this.db.statement(operation, sql).rows();
      const watermarks = (rows(SQL.watermarks) as WatermarkRow[]).map(
        ([stream, source, at, head, retry, blocked, error, by, until, done, token, reactions, ahead]) =>
          ({
            stream,
            ...(source !== null && { source }),
            at,
            head,
            retry,
            blocked: blocked === 1,
            ...(error !== null && { error }),
            ...(by !== null && { leasedBy: by }),
            ...(until !== null && { leasedUntil: until }),
            done: JSON.parse(done),
            token,
            reactions: reactions ? (JSON.parse(reactions) as string[]).sort() : [],
            ahead: JSON.parse(ahead),
          }) satisfies WatermarkRecord
      );
      const keys = (rows(SQL.keys) as KeyRow[]).map(
        ([stream, key, from, to, expires, request]) =>
          ({ stream, key, from, to, expires, ...(request !== null && { request }) }) satisfies KeyRecord
      );
      const discovery = (rows(SQL.discovery) as [string, number][]).map(([reaction, at]) => ({ reaction, at }));
      const timers = (rows(SQL.timers) as TimerRow[]).map(
        ([id, action, stream, actor, payload, due, status, token, attempts, by, until, fired, error, correlation]) =>
          ({
            id,
            action,
            stream,
            actor: JSON.parse(actor),
            payload: JSON.parse(payload),
            due,
            status,
            token,
            attempts,
            ...(by !== null && { claimedBy: by }),
            claimedUntil: until,
            ...(fired !== null && { fired }),
            ...(error !== null && { error }),
            ...(correlation !== null && { correlation }),
          }) satisfies TimerRecord
      );
      const subjects = subjectsOf(
        rows(SQL.subjectKeys) as [string, number, Nullable<string>][],
        rows(SQL.subjectStreams) as [string, string][]
      );
      return { watermarks, keys, discovery, timers, subjects };
    });
  }

  async restore(records: StoreRecords): Promise<void> {
    const operation = "transfer.restore";
    const json = (value: unknown, what: string) => stringifyJson(value, `SqliteStore ${operation}: ${what}`);
    this.db.write(operation, () => {
      const [held] = this.db.statement(operation, SQL.countRecords).row() as [number];
      if (held > 0)
        throw new StoreError(
          operation,
          "rejected",
          `SqliteStore ${operation} refused: the store already holds ${held} reaction streams, idempotency keys, discovery positions or timers`
        );
      const run = (sql: string, ...values: unknown[]) => this.db.statement(operation, sql).run(...values);
      for (const w of records.watermarks)
        run(
          SQL.insertWatermark,
          w.stream,
          w.source ?? null,
          w.at,
          w.head,
          w.retry,
          w.blocked ? 1 : 0,
          w.error ?? null,
          w.leasedBy ?? null,
          w.leasedUntil ?? null,
          json(w.done, "done"),
          w.token,
          // No reactions is NULL here, as a registration without them writes it.
          w.reactions.length ? json(w.reactions, "reactions") : null,
          json(w.ahead, "ahead")
        );
      for (const k of records.keys) run(SQL.insertKey, k.stream, k.key, k.from, k.to, k.expires, k.request ?? null);
      for (const d of records.discovery) run(SQL.insertDiscovery, d.reaction, d.at);
      for (const t of records.timers)
        run(
          SQL.insertTimer,
          t.id,
          t.action,
          t.stream,
          json(t.actor, `actor of timer "${t.id}"`),
          json(t.payload ?? null, `payload of timer "${t.id}"`),
          t.due,
          t.status,
          t.token,
          t.attempts,
          t.claimedBy ?? null,
          t.claimedUntil,
          t.fired ?? null,
          t.error ?? null,
          t.correlation ?? null
        );
      for (const k of records.subjects) {
        for (const [i, key] of k.keys.entries()) run(SQL.insertSubjectKey, k.subject, i + 1, key);
        for (const stream of k.streams) run(SQL.insertSubjectStream, k.subject, stream);
      }
    });
  }

  async archived(after: number, limit: number): Promise<ArchivedRecord[]> {
    const rows = this.db.read("transfer.archived", SQL.archived, after, limit) as ArchivedRow[];
    // Fields picked by position: never spread a stored row into an event.
    return rows.map(([id, stream, version, name, data, meta, created, archived]) => ({
      event: { id, stream, version, name, data: JSON.parse(data), meta: JSON.parse(meta), created: new Date(created) },
      archived,
    }));
  }

  async archive(events: readonly ArchivedRecord[], after: number): Promise<void> {
    const operation = "transfer.archive";
    const encoded = events.map(({ event: e, archived }) => [
      e.id,
      e.stream,
      e.version,
      e.name,
      stringifyJson(e.data ?? null, `SqliteStore ${operation}: data of archived event ${e.id}`),
      stringifyJson(e.meta, `SqliteStore ${operation}: meta of archived event ${e.id}`),
      e.created.getTime(),
      archived,
    ]);
    this.db.write(operation, () => {
      const [last] = this.db.statement(operation, SQL.lastArchived).row() as [number];
      const refuse = (why: string) => {
        throw new StoreError(operation, "rejected", `SqliteStore ${operation} refused: ${why}`);
      };
      if (last !== after) refuse(`the archive's last event is ${last}, not ${after} as the copy expected`);
      let previous = after;
      for (const { event } of events) {
        if (!Number.isSafeInteger(event.id) || event.id <= previous)
          refuse(`event ids must grow: ${event.id} follows ${previous}`);
        previous = event.id;
      }
      const insert = this.db.statement(operation, SQL.insertArchived);
      for (const row of encoded) insert.run(...row);
    });
  }
}
