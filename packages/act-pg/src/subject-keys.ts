/**
 * The keys of data subjects (see `SubjectKeyStore`), one statement of
 * `subject-key-sql.ts` per operation. `forget` destroys the keys and empties
 * the subject's snapshots in one statement, so a logical dump (`pg_dump`)
 * taken after it holds neither. The old row versions stay in the tables'
 * files until `VACUUM` reclaims them and new rows overwrite them (see the
 * guide).
 */
import type { Forgotten, KeyWrite, SubjectKey, SubjectKeyStore } from "@act-root/act";
import type { Database } from "./database.js";

/** What a snapshot event holds once a subject of its stream was forgotten: no state, and no definition loads it. */
const EMPTIED = JSON.stringify({ of: "[forgotten]", state: null });

/** The subject keys of one PostgreSQL store. */
export class SubjectKeys implements SubjectKeyStore {
  constructor(private readonly db: Database) {}

  async current({ subject, stream, fresh }: KeyWrite): Promise<SubjectKey> {
    // Twice at most: a statement that lost the race to create version 1 sees neither its own insert nor the other's.
    for (;;) {
      const { rows } = await this.db.run<{ version: number; key: string | null }>(
        "keys.current",
        this.db.statements.currentKey,
        [subject, stream, fresh]
      );
      if (rows[0]) return { subject, version: rows[0].version, key: rows[0].key };
    }
  }

  async read(wanted: ReadonlyArray<{ subject: string; version: number }>): Promise<SubjectKey[]> {
    if (!wanted.length) return [];
    const { rows } = await this.db.run<SubjectKey>("keys.read", this.db.statements.readKeys, [
      wanted.map((w) => w.subject),
      wanted.map((w) => w.version),
    ]);
    return rows.map(({ subject, version, key }) => ({ subject, version, key }));
  }

  async rotate(subject: string, fresh: string): Promise<number | undefined> {
    const { rows } = await this.db.run<{ version: number }>("keys.rotate", this.db.statements.rotateKey, [
      subject,
      fresh,
    ]);
    return rows[0]?.version;
  }

  async forget(subject: string): Promise<Forgotten | undefined> {
    const { rows } = await this.db.run<{ versions: number; snapshots: number }>(
      "keys.forget",
      this.db.statements.forgetSubject,
      [subject, EMPTIED]
    );
    const { versions, snapshots } = rows[0];
    return versions ? { subject, versions, snapshots } : undefined;
  }

  async forgotten(stream: string): Promise<boolean> {
    const { rows } = await this.db.run("keys.forgotten", this.db.statements.streamForgotten, [stream]);
    return rows.length > 0;
  }
}
