/**
 * The keys of data subjects (`Store.keys`), kept in process memory with the
 * events. Forgetting replaces each key with `null` and each snapshot event
 * of the subject's streams, in the log and in the archive, with an empty
 * one, so nothing the store holds can give the personal data back.
 */
import { SNAP_EVENT } from "../../core/schemas.js";
import type { Forgotten, KeyWrite, SubjectKey, SubjectKeyStore } from "../../types/personal.js";
import type { Archive } from "./archive.js";
import type { Database, Event } from "./database.js";

/** What a snapshot event holds once a subject of its stream was forgotten: no state, and no definition loads it. */
const EMPTIED = Object.freeze({ of: "[forgotten]", state: null });

export class SubjectKeys implements SubjectKeyStore {
  constructor(
    private readonly db: Database,
    private readonly archive: Archive
  ) {}

  async current({ subject, stream, fresh }: KeyWrite): Promise<SubjectKey> {
    let keys = this.db.subjects.get(subject);
    if (!keys) {
      keys = { versions: [fresh], streams: new Set() };
      this.db.subjects.set(subject, keys);
    }
    keys.streams.add(stream);
    return { subject, version: keys.versions.length, key: keys.versions[keys.versions.length - 1] };
  }

  async read(wanted: ReadonlyArray<{ subject: string; version: number }>): Promise<SubjectKey[]> {
    return wanted.flatMap(({ subject, version }) => {
      const versions = this.db.subjects.get(subject)?.versions;
      if (!versions || version < 1 || version > versions.length) return [];
      return [{ subject, version, key: versions[version - 1] }];
    });
  }

  async rotate(subject: string, fresh: string): Promise<number | undefined> {
    const keys = this.db.subjects.get(subject);
    if (!keys || keys.versions[keys.versions.length - 1] === null) return undefined;
    keys.versions.push(fresh);
    return keys.versions.length;
  }

  async forget(subject: string): Promise<Forgotten | undefined> {
    const keys = this.db.subjects.get(subject);
    if (!keys) return undefined;
    keys.versions.fill(null);
    let snapshots = 0;
    for (const stream of keys.streams) {
      // Snapshots archived with the stream's older events are sealed with the stream's key, which stays.
      snapshots += this.archive.empty(stream, EMPTIED);
      const log = this.db.streams.get(stream);
      if (!log) continue;
      for (const id of log.ids) {
        const at = id - this.db.first;
        const event = this.db.events[at];
        if (event?.name !== SNAP_EVENT || event.data === EMPTIED) continue;
        this.db.events[at] = Object.freeze({ ...event, data: EMPTIED }) as Event;
        snapshots++;
      }
      // Loads start at a state's latest snapshot: there is none left to start at.
      log.snaps.clear();
    }
    return { subject, versions: keys.versions.length, snapshots };
  }

  async forgotten(stream: string): Promise<boolean> {
    for (const keys of this.db.subjects.values())
      if (keys.streams.has(stream) && keys.versions[keys.versions.length - 1] === null) return true;
    return false;
  }
}
