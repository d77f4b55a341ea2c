/**
 * The archive (`ArchiveStore`) in the `<table>_archive` table. A move runs
 * in batches of closed streams, each one statement — the reactions' bound,
 * the delete from the log and the insert into the archive — and so one
 * short transaction: no reader sees an event in both or neither, and a
 * long move never holds one transaction open — that would hold every
 * reader that tracks a position across streams (drains) below the events
 * committed after it began (see `stableEnd` in `sql.ts`) until it ended. A
 * move interrupted between batches leaves the batches done archived and
 * the rest in the log; the next move takes up the rest. Purges by archiving
 * time; reads with the log's query on the archive table. The SQL is in
 * `archive-sql.ts`.
 */
import type { ArchiveMove, ArchiveMoved, ArchivePurged, ArchiveStore, Committed, Query, Schemas } from "@act-root/act";
import { checkArchiveMove, checkPurge } from "@act-root/act/internal";
import { archiveTable } from "./archive-sql.js";
import type { Database } from "./database.js";
import { query as read } from "./read.js";

/** Closed streams per batch of a move: with streams of a hundred events, about a second of work each. */
export const MOVE_BATCH = 200;

type BatchRow = { stream: string | null; events: number; held: number; streams: number; last: string | null };

/** The archive of one PostgreSQL store. */
export class Archive implements ArchiveStore {
  /**
   * @param db - the store's database
   * @param batch - closed streams per batch (a stream is never split)
   * @param between - awaited after each batch but the last, with what was moved so far: a move that throws here stops there
   */
  constructor(
    private readonly db: Database,
    private readonly batch = MOVE_BATCH,
    private readonly between?: (sofar: ArchiveMoved) => Promise<void> | void
  ) {}

  async move(request: ArchiveMove): Promise<ArchiveMoved> {
    const { closedBefore, at, reactions } = checkArchiveMove(request);
    const moved = { events: 0, streams: [] as string[], held: 0 };
    let after: string | null = null;
    for (;;) {
      const { rows }: { rows: BatchRow[] } = await this.db.run<BatchRow>(
        "archive.move",
        this.db.statements.moveArchive,
        [closedBefore, at, reactions, after, this.batch]
      );
      for (const row of rows)
        if (row.stream !== null) {
          moved.events += row.events;
          moved.streams.push(row.stream);
        } else {
          moved.held += row.held;
          after = row.streams < this.batch ? null : row.last;
        }
      if (after === null) return moved;
      await this.between?.({ ...moved, streams: [...moved.streams] });
    }
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
