import type { Schema, Schemas, Snapshot } from "../types/action.js";
import type { Store } from "../types/ports.js";

/**
 * The latest snapshot of the streams most recently acted on, so an action
 * reads only the events committed since (usually none) instead of
 * rebuilding the stream. The entries stored longest ago go first: an action that used an entry
 * stores the snapshot it ends at, so the streams being acted on stay; a hit
 * does not move its entry (that would be a second delete and insert per
 * action). A different store empties it.
 */
export class SnapshotCache {
  private entries = new Map<string, Snapshot<Schema, Schemas>>();
  private owner?: Store;

  /** @param max - streams kept */
  constructor(private readonly max = 1_000) {}

  get(store: Store, key: string): Snapshot<Schema, Schemas> | undefined {
    if (store !== this.owner) {
      this.entries.clear();
      this.owner = store;
    }
    return this.entries.get(key);
  }

  set(key: string, snapshot: Snapshot<Schema, Schemas>): void {
    this.entries.delete(key);
    this.entries.set(key, snapshot);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }

  /** Forgets every stream: a data subject was forgotten, and states held here may hold its data. */
  clear(): void {
    this.entries.clear();
  }

  /** Forgets a stream, e.g. after a conflict proved the entry stale. */
  delete(key: string): void {
    this.entries.delete(key);
  }
}
