/**
 * The archive (`ArchiveStore`) in the file's `act_archive` table: a move is
 * one write transaction — the reactions' bound read, the events to move
 * selected once into a temporary table, copied from it to the archive and
 * deleted from the log — so no reader sees an event in both or neither;
 * purges and reads as the log's. The statements are in `archive-sql.ts`.
 */
import type { ArchiveMove, ArchiveMoved, ArchivePurged, ArchiveStore, Committed, Query, Schemas } from "@act-root/act";
import { checkArchiveMove, checkPurge } from "@act-root/act/internal";
import { ARCHIVE_SQL } from "./archive-sql.js";
import type { Database } from "./database.js";
import { query as read } from "./read.js";

/** No reaction holds anything back: every id is at most this. */
const NO_BOUND = Number.MAX_SAFE_INTEGER;

/** The archive of one SQLite store. */
export class Archive implements ArchiveStore {
  constructor(private readonly db: Database) {}

  async move(request: ArchiveMove): Promise<ArchiveMoved> {
    const { closedBefore, at, reactions } = checkArchiveMove(request);
    const statement = (sql: string) => this.db.statement("archive.move", sql);
    statement(ARCHIVE_SQL.moving).run();
    const [bound, select, streams, copy, remove, held, clear] = [
      ARCHIVE_SQL.bound,
      ARCHIVE_SQL.select,
      ARCHIVE_SQL.streams,
      ARCHIVE_SQL.copy,
      ARCHIVE_SQL.remove,
      ARCHIVE_SQL.held,
      ARCHIVE_SQL.clear,
    ].map(statement);
    return this.db.write("archive.move", () => {
      clear.run(); // a move that failed in the middle rolled back its selection with it, but be sure
      const upTo = (bound.rows(JSON.stringify(reactions))[0]?.[0] as number | null) ?? NO_BOUND;
      select.run(closedBefore.getTime(), upTo);
      const moving = streams.rows() as [string, number][];
      copy.run(at.getTime());
      remove.run();
      const kept = Number(held.rows()[0]?.[0] ?? 0);
      clear.run();
      return {
        events: moving.reduce((sum, [, count]) => sum + Number(count), 0),
        streams: moving.map(([stream]) => stream),
        held: kept,
      };
    });
  }

  async purge(before: Date): Promise<ArchivePurged> {
    const cut = checkPurge(before).getTime();
    const expired = this.db.statement("archive.purge", ARCHIVE_SQL.expired);
    const purge = this.db.statement("archive.purge", ARCHIVE_SQL.purge);
    return this.db.write("archive.purge", () => {
      const gone = expired.rows(cut) as [string, number][];
      purge.run(cut);
      return { events: gone.reduce((sum, [, count]) => sum + Number(count), 0), streams: gone.map(([s]) => s) };
    });
  }

  async query<E extends Schemas>(callback: (event: Committed<E, keyof E>) => void, query: Query = {}): Promise<number> {
    return read(this.db, callback, query, "act_archive");
  }
}
