/**
 * Copying into and out of the store (see `StoreTransfer`): events written
 * with the ids, versions and times they have, and the records beside them
 * read and written as they are, each call in one transaction on one pooled
 * client over the statements of `transfer-sql.ts`.
 */
import {
  type ArchivedRecord,
  type Committed,
  type Schemas,
  StoreError,
  type StoreRecords,
  type StoreTransfer,
  type TimerRecord,
  type WatermarkRecord,
} from "@act-root/act";
import { stringifyJson } from "@act-root/act/internal";
import type pg from "pg";
import type { Database } from "./database.js";
import type { DriverError } from "./errors.js";
import * as sql from "./transfer-sql.js";

/** A row of the watermarks, by column. */
type WatermarkRow = {
  stream: string;
  source: string | null;
  at: number;
  head: number;
  retry: number;
  blocked: boolean;
  error: string | null;
  leased_by: string | null;
  leased_until: number | null;
  done: string[];
  token: number;
  reactions: string[];
  ahead: Record<string, number>;
};

/** The transfer port of one PostgreSQL store. */
export class Transfer implements StoreTransfer {
  constructor(private readonly db: Database) {}

  /** Runs `work` in one transaction on one pooled client; rolls back on any throw. */
  async #transaction<T>(operation: string, begin: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    this.db.checkOpen(operation);
    const client = await this.db.connect(operation);
    let broken: Error | undefined;
    try {
      await client.query(this.db.begin(begin));
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch((lost: Error) => {
        broken = lost;
      });
      throw this.db.failure(operation, error as DriverError);
    } finally {
      client.release(broken);
    }
  }

  async append(events: readonly Committed<Schemas, string>[], after: number): Promise<void> {
    const operation = "transfer.append";
    const rows = events.map((e) => ({
      id: e.id,
      stream: e.stream,
      version: e.version,
      name: e.name,
      data: e.data ?? null,
      meta: e.meta,
      created: e.created.getTime(),
    }));
    const encoded = stringifyJson(rows, `PostgresStore ${operation}: events`);
    const n = this.db.names;
    await this.#transaction(operation, "BEGIN", async (client) => {
      const refuse = (why: string) => {
        throw new StoreError(operation, "rejected", `PostgresStore ${operation} refused: ${why}`);
      };
      await client.query(sql.lock(n));
      const { rows: found } = await client.query<{ last: number; own: number }>(sql.lastId(n));
      const { last, own } = found[0];
      if (last !== after) refuse(`${n.events} ends at event ${last}, not ${after} as the copy expected`);
      let previous = after;
      for (const e of events) {
        if (!Number.isSafeInteger(e.id) || e.id <= previous) refuse(`event ids must grow: ${e.id} follows ${previous}`);
        previous = e.id;
      }
      if (previous >= own)
        refuse(
          `the copied ids reach ${previous}, but this server gives new events ids from ${own}: new commits would get ids below the copied ones and drains would skip them. ` +
            `The source was a PostgreSQL server whose transaction counter is ahead of this one's: before copying, stop this server, raise its transaction id epoch with \`pg_resetwal -e ${Math.floor(previous / 2 ** 48) + 1} "$PGDATA"\` and start it again.`
        );
      if (events.length) await client.query(sql.insertEvents(n), [encoded]);
    });
  }

  async records(): Promise<StoreRecords> {
    const n = this.db.names;
    return this.#transaction("transfer.records", "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", async (client) => {
      const watermarks = (await client.query<WatermarkRow>(sql.watermarks(n))).rows.map(
        (w) =>
          ({
            stream: w.stream,
            ...(w.source !== null && { source: w.source }),
            at: w.at,
            head: w.head,
            retry: w.retry,
            blocked: w.blocked,
            ...(w.error !== null && { error: w.error }),
            ...(w.leased_by !== null && { leasedBy: w.leased_by }),
            ...(w.leased_until !== null && { leasedUntil: w.leased_until }),
            done: w.done,
            token: w.token,
            reactions: [...w.reactions].sort(),
            ahead: w.ahead,
          }) satisfies WatermarkRecord
      );
      const keys = (await client.query(sql.keys(n))).rows.map((k) => ({
        stream: k.stream,
        key: k.key,
        from: k.from_version,
        to: k.to_version,
        expires: k.expires,
        ...(k.request !== null && { request: k.request }),
      }));
      const discovery = (await client.query(sql.discovery(n))).rows.map((d) => ({ reaction: d.name, at: d.at }));
      const timers = (await client.query(sql.timers(n))).rows.map(
        (t) =>
          ({
            id: t.id,
            action: t.action,
            stream: t.stream,
            actor: t.actor,
            payload: t.payload,
            due: t.due,
            status: t.status,
            token: t.token,
            attempts: t.attempts,
            ...(t.claimed_by !== null && { claimedBy: t.claimed_by }),
            claimedUntil: t.claimed_until,
            ...(t.fired !== null && { fired: t.fired }),
            ...(t.error !== null && { error: t.error }),
            ...(t.correlation !== null && { correlation: t.correlation }),
          }) satisfies TimerRecord
      );
      const subjects = (await client.query(sql.subjects(n))).rows.map((s) => ({
        subject: s.subject,
        keys: s.keys,
        streams: s.streams,
      }));
      return { watermarks, keys, discovery, timers, subjects };
    });
  }

  async restore(records: StoreRecords): Promise<void> {
    const operation = "transfer.restore";
    const json = (rows: readonly unknown[], what: string) => stringifyJson(rows, `PostgresStore ${operation}: ${what}`);
    const batches = [
      [sql.insertWatermarks, json(records.watermarks, "watermarks"), records.watermarks.length],
      [sql.insertKeys, json(records.keys, "keys"), records.keys.length],
      [sql.insertDiscovery, json(records.discovery, "discovery"), records.discovery.length],
      [sql.insertTimers, json(records.timers, "timers"), records.timers.length],
      [sql.insertSubjectKeys, json(records.subjects, "subjects"), records.subjects.length],
      [sql.insertSubjectStreams, json(records.subjects, "subjects"), records.subjects.length],
    ] as const;
    const n = this.db.names;
    await this.#transaction(operation, "BEGIN", async (client) => {
      await client.query(sql.lock(n));
      const { rows } = await client.query<{ held: number }>(sql.countRecords(n));
      if (rows[0].held > 0)
        throw new StoreError(
          operation,
          "rejected",
          `PostgresStore ${operation} refused: the store already holds ${rows[0].held} reaction streams, idempotency keys, discovery positions or timers`
        );
      for (const [statement, rows, count] of batches) if (count) await client.query(statement(n), [rows]);
    });
  }

  async archived(after: number, limit: number): Promise<ArchivedRecord[]> {
    type Event = Committed<Schemas, string>;
    type Row = [number, string, number, string, Event["data"], Event["meta"], number, number];
    const { rows } = await this.db.run<Row>("transfer.archived", sql.archived(this.db.names), [after, limit], "array");
    // Fields picked by position: never spread a stored row into an event.
    return (rows as unknown as Row[]).map(([id, stream, version, name, data, meta, created, archived]) => ({
      event: { id, stream, version, name, data, meta, created: new Date(created) },
      archived,
    }));
  }

  async archive(events: readonly ArchivedRecord[], after: number): Promise<void> {
    const operation = "transfer.archive";
    const rows = events.map(({ event: e, archived }) => ({
      id: e.id,
      stream: e.stream,
      version: e.version,
      name: e.name,
      data: e.data ?? null,
      meta: e.meta,
      created: e.created.getTime(),
      archived,
    }));
    const encoded = stringifyJson(rows, `PostgresStore ${operation}: archived events`);
    const n = this.db.names;
    await this.#transaction(operation, "BEGIN", async (client) => {
      const refuse = (why: string) => {
        throw new StoreError(operation, "rejected", `PostgresStore ${operation} refused: ${why}`);
      };
      await client.query(sql.lock(n));
      const { rows: found } = await client.query<{ last: number }>(sql.lastArchived(n));
      if (found[0].last !== after)
        refuse(`the archive ends at event ${found[0].last}, not ${after} as the copy expected`);
      let previous = after;
      for (const { event } of events) {
        if (!Number.isSafeInteger(event.id) || event.id <= previous)
          refuse(`event ids must grow: ${event.id} follows ${previous}`);
        previous = event.id;
      }
      if (events.length) await client.query(sql.insertArchived(n), [encoded]);
    });
  }
}
