/**
 * The keys of data subjects (see `SubjectKeyStore`), in `act_subject_keys`,
 * and the streams holding each subject's data, in `act_subject_streams`.
 * Each change is one write transaction. `forget` destroys the keys and
 * empties the snapshots of the subject's streams (in the log and the
 * archive) in one, then checkpoints the WAL and
 * truncates it: with `secure_delete` on (set on every connection, see
 * `file.ts`), neither the file nor its WAL keeps the old bytes afterwards.
 */
import {
  type Forgotten,
  type KeyWrite,
  logger,
  SNAP_EVENT,
  type SubjectKey,
  type SubjectKeyStore,
} from "@act-root/act";
import type { Database } from "./database.js";

/** What a snapshot event holds once a subject of its stream was forgotten: no state, and no definition loads it. */
const EMPTIED = JSON.stringify({ of: "[forgotten]", state: null });

const SQL = {
  create: `INSERT INTO act_subject_keys (subject, version, key) SELECT ?1, 1, ?2
    WHERE NOT EXISTS (SELECT 1 FROM act_subject_keys WHERE subject = ?1)`,
  link: "INSERT OR IGNORE INTO act_subject_streams (subject, stream) VALUES (?, ?)",
  latest: "SELECT version, key FROM act_subject_keys WHERE subject = ? ORDER BY version DESC LIMIT 1",
  add: "INSERT INTO act_subject_keys (subject, version, key) VALUES (?, ?, ?)",
  read: `SELECT subject, version, key FROM act_subject_keys
    WHERE (subject, version) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?))`,
  destroy: "UPDATE act_subject_keys SET key = NULL WHERE subject = ?",
  versions: "SELECT count(*) FROM act_subject_keys WHERE subject = ?",
  empty: `UPDATE act_events SET data = ?2
    WHERE name = '${SNAP_EVENT}' AND data <> ?2
      AND stream IN (SELECT stream FROM act_subject_streams WHERE subject = ?1)`,
  // Snapshots archived with a stream's older events are sealed with the stream's key, which stays.
  emptyArchived: `UPDATE act_archive SET data = ?2
    WHERE name = '${SNAP_EVENT}' AND data <> ?2
      AND stream IN (SELECT stream FROM act_subject_streams WHERE subject = ?1)`,
  forgotten: `SELECT 1 FROM act_subject_streams s JOIN act_subject_keys k ON k.subject = s.subject
    WHERE s.stream = ? AND k.key IS NULL LIMIT 1`,
  checkpoint: "PRAGMA wal_checkpoint(TRUNCATE)",
} as const;

/** The subject keys of one SQLite store. */
export class SubjectKeys implements SubjectKeyStore {
  constructor(private readonly db: Database) {}

  async current({ subject, stream, fresh }: KeyWrite): Promise<SubjectKey> {
    const [create, link, latest] = [SQL.create, SQL.link, SQL.latest].map((sql) =>
      this.db.statement("keys.current", sql)
    );
    const [version, key] = this.db.write("keys.current", () => {
      create.run(subject, fresh);
      link.run(subject, stream);
      return latest.row(subject) as [number, string | null];
    });
    return { subject, version: Number(version), key };
  }

  async read(wanted: ReadonlyArray<{ subject: string; version: number }>): Promise<SubjectKey[]> {
    if (!wanted.length) return [];
    const rows = this.db.read("keys.read", SQL.read, JSON.stringify(wanted.map((w) => [w.subject, w.version])));
    return rows.map(([subject, version, key]) => ({
      subject: subject as string,
      version: Number(version),
      key: key as string | null,
    }));
  }

  async rotate(subject: string, fresh: string): Promise<number | undefined> {
    const [latest, add] = [SQL.latest, SQL.add].map((sql) => this.db.statement("keys.rotate", sql));
    return this.db.write("keys.rotate", () => {
      const row = latest.row(subject) as [number, string | null] | undefined;
      if (!row || row[1] === null) return undefined;
      add.run(subject, Number(row[0]) + 1, fresh);
      return Number(row[0]) + 1;
    });
  }

  async forget(subject: string): Promise<Forgotten | undefined> {
    const [destroy, versions, empty, emptyArchived] = [SQL.destroy, SQL.versions, SQL.empty, SQL.emptyArchived].map(
      (sql) => this.db.statement("keys.forget", sql)
    );
    const done = this.db.write("keys.forget", () => {
      const kept = Number(versions.row(subject)?.[0] ?? 0);
      if (!kept) return undefined;
      destroy.run(subject);
      const snapshots = empty.run(subject, EMPTIED) + emptyArchived.run(subject, EMPTIED);
      return { subject, versions: kept, snapshots };
    });
    // The old pages stay in the WAL until a checkpoint copies the new ones over them and the WAL is truncated.
    const [busy] = done ? (this.db.read("keys.forget", SQL.checkpoint)[0] ?? [0]) : [0];
    if (busy)
      logger.warn(
        `act-sqlite: forget("${subject}"): another connection is reading, so the WAL was not truncated; its old pages go at the next checkpoint`
      );
    return done;
  }

  async forgotten(stream: string): Promise<boolean> {
    return this.db.read("keys.forgotten", SQL.forgotten, stream).length > 0;
  }
}
