/**
 * The archive (`ArchiveStore`) in the `<table>_archive` table: a move is one
 * statement — the reactions' bound, the delete from the log and the insert
 * into the archive in one transaction — so no reader sees an event in both
 * or neither; purges by archiving time; reads with the log's query on the
 * archive table. The SQL is in `archive-sql.ts`.
 */
import type { ArchiveMove, ArchiveMoved, ArchivePurged, ArchiveStore, Committed, Query, Schemas } from "@act-root/act";
import { checkArchiveMove, checkPurge } from "@act-root/act/internal";
import { archiveTable } from "./archive-sql.js";
import type { Database } from "./database.js";
import { query as read } from "./read.js";

/** The archive of one PostgreSQL store. */
export class Archive implements ArchiveStore {
  constructor(private readonly db: Database) {}

  async move(request: ArchiveMove): Promise<ArchiveMoved> {
    const { closedBefore, at, reactions } = checkArchiveMove(request);
    const { rows } = await this.db.run<{ stream: string | null; events: number; held: number }>(
      "archive.move",
      this.db.statements.moveArchive,
      [closedBefore, at, reactions]
    );
    const streams = rows.filter((row) => row.stream !== null);
    return {
      events: streams.reduce((sum, row) => sum + row.events, 0),
      streams: streams.map((row) => row.stream as string),
      held: rows[0]?.held ?? 0,
    };
  }

  async purge(before: Date): Promise<ArchivePurged> {
    const { rows } = await this.db.run<{ stream: string; events: number }>(
      "archive.purge",
      this.db.statements.purgeArchive,
      [checkPurge(before)]
    );
    return { events: rows.reduce((sum, row) => sum + row.events, 0), streams: rows.map((row) => row.stream) };
  }

  async query<E extends Schemas>(callback: (event: Committed<E, keyof E>) => void, query: Query = {}): Promise<number> {
    return read(this.db, callback, query, { ...this.db.names, events: archiveTable(this.db.names) });
  }
}
