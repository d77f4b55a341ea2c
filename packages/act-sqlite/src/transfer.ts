/**
 * Copying into and out of the store (see `StoreTransfer`): events written
 * with the ids, versions and times they have, and the records beside them
 * read and written as they are, each call in one write transaction over the
 * statements of `TRANSFER_SQL`.
 */
import {
  type Committed,
  type KeyRecord,
  type Schemas,
  StoreError,
  type StoreRecords,
  type StoreTransfer,
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
];

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
        ([id, action, stream, actor, payload, due, status, token, attempts, by, until, fired, error]) =>
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
          }) satisfies TimerRecord
      );
      return { watermarks, keys, discovery, timers };
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
          t.error ?? null
        );
    });
  }
}
