/**
 * Wake-ups: listeners hear of a commit through this store right after it,
 * and of other connections' commits (other processes included) within
 * `changeCheckMillis`, from a `PRAGMA data_version` check on a timer
 * (`SQL.dataVersion` in `schema.ts`). Only a hint: polling finds every
 * commit anyway.
 */
import { logger } from "@act-root/act";
import type { Database } from "./database.js";
import { inMemory } from "./file.js";
import { SQL } from "./schema.js";

/** A store's commit listeners and the timer that looks for other connections' commits. */
export class Notifier {
  readonly #listeners = new Set<(names?: readonly string[]) => void>();
  #watch?: ReturnType<typeof setInterval>;
  #dataVersion = -1;

  constructor(private readonly db: Database) {}

  /** Adds a listener (checking for other connections' commits from the first one); returns the function that removes it. */
  subscribe(listener: (names?: readonly string[]) => void): () => void {
    this.#listeners.add(listener);
    if (!this.#watch && !inMemory(this.db.settings.filename)) {
      // From now on: a commit by another process right after this call counts.
      this.#checkChanges();
      this.#watch = setInterval(() => this.#checkChanges(), this.db.settings.changeCheckMillis);
      this.#watch.unref?.();
    }
    return () => {
      this.#listeners.delete(listener);
      if (!this.#listeners.size && this.#watch) {
        clearInterval(this.#watch);
        this.#watch = undefined;
        this.#dataVersion = -1;
      }
    };
  }

  /** Tells the listeners of a commit through this store, with its events' names, after the current call returns. */
  committed(events: readonly { name: PropertyKey }[]): void {
    const names = [...new Set(events.map(({ name }) => String(name)))];
    if (this.#listeners.size) queueMicrotask(() => this.#wake(names));
  }

  /** For `dispose`: forgets the listeners and stops the timer. */
  stop(): void {
    this.#listeners.clear();
    if (this.#watch) clearInterval(this.#watch);
  }

  /** Wakes the listeners when another connection committed since the last check. */
  #checkChanges() {
    // A rested file is not opened for this: the consumer's polls find those
    // commits. Its count starts afresh once open: it is the connection's own.
    if (this.db.rested) {
      this.#dataVersion = -1;
      return;
    }
    try {
      const [row] = this.db.read("change check", SQL.dataVersion);
      const now = Number(row?.[0]);
      const changed = this.#dataVersion !== -1 && now !== this.#dataVersion;
      this.#dataVersion = now;
      if (changed) this.#wake();
    } catch {
      // A busy or closed file: the next tick tries again (and the consumer still polls).
    }
  }

  #wake(names?: readonly string[]) {
    for (const listener of this.#listeners) {
      try {
        listener(names);
      } catch (error) {
        logger.error(error, "act-sqlite: a commit listener threw");
      }
    }
  }
}
