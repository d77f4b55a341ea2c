/** Wake-ups: listeners hear of each commit to this store right after it (apps in this process share it). */
import type { Event } from "./database.js";

/** A store's commit listeners. */
export class Notifier {
  /** Told after each commit (see `subscribe`). */
  readonly #listeners = new Set<(names?: readonly string[]) => void>();

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: (names?: readonly string[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells the listeners of a commit, with its events' names, after the current call returns. */
  committed(events: readonly Event[]): void {
    if (!this.#listeners.size) return;
    const names = [...new Set(events.map(({ name }) => name as string))];
    queueMicrotask(() => {
      for (const listener of this.#listeners) listener(names);
    });
  }
}
