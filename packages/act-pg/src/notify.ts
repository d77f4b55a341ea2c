/**
 * Wake-ups: after a commit the store sends a `NOTIFY` on its table's channel
 * (`sql.notify`), and `subscribe` listens on that channel (`listener.ts`: on
 * a connection of the store's own, or on the one connection the stores of a
 * `PostgresConnections` share), so a consumer in another process drains at
 * once. Only a hint: polling finds every commit anyway.
 */
import { logger, sleep } from "@act-root/act";
import { randomUUID } from "node:crypto";
import type { Database } from "./database.js";

/**
 * Least time between two commit notifications of one store. It bounds what a
 * steady stream of commits spends on wake-ups (a statement and a transaction
 * each) at the price of at most this much extra delay for a consumer in
 * another process, which a busy consumer does not wait for anyway: it drains
 * again at once while it finds full batches.
 */
const ANNOUNCE_SPACING_MILLIS = 5;

/** Payloads PostgreSQL refuses above 8,000 bytes; names beyond this leave the announcement unnamed. */
const MAX_ANNOUNCED_BYTES = 7_900;

/** A store's commit listeners, its announcements to other processes and the connection that hears theirs. */
export class Notifier {
  /** Wake-up listeners, and the dedicated connection listening for them. */
  readonly #listeners = new Set<(names?: readonly string[]) => void>();
  /** Tells this store's own announcements apart: its listeners heard of those commits already. */
  readonly #instance = randomUUID();
  /** Names of the events committed since the last announcement was sent. */
  readonly #unannounced = new Set<string>();
  /** Stops listening on the store's channel, while it listens. */
  #stopListening?: () => void;
  /** The notification of commits in flight, if any (see `#announce`). */
  #announcing?: Promise<void>;
  /** Whether a commit finished while a notification was in flight. */
  #announceAgain = false;
  /** When the last notification was sent (`performance.now()`). */
  #announcedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly db: Database) {}

  /** Adds a listener (listening on the channel from the first one); returns the function that removes it. */
  subscribe(listener: (names?: readonly string[]) => void): () => void {
    this.#listeners.add(listener);
    this.#listen();
    return () => {
      this.#listeners.delete(listener);
      if (!this.#listeners.size) void this.unlisten();
    };
  }

  /**
   * After a commit through this store: its own listeners hear of it at once
   * (no round trip through the server), other processes from the announcement.
   */
  committed(events: readonly { name: PropertyKey }[]): void {
    const names = [...new Set(events.map(({ name }) => String(name)))];
    if (this.#listeners.size) queueMicrotask(() => this.#wake(names));
    for (const name of names) this.#unannounced.add(name);
    this.#announce();
  }

  /** For `dispose`: forgets the listeners and waits for the announcement in flight. */
  async quiet(): Promise<void> {
    this.#listeners.clear();
    await this.#announcing;
  }

  /**
   * Sends a wake-up to subscribers in every process after a commit. At most
   * one is in flight; commits that finish meanwhile are announced by one more
   * sent after it, so every commit is followed by a notification sent after
   * it was committed, and a burst of commits costs a few notifications. Two
   * notifications are at least {@link ANNOUNCE_SPACING_MILLIS} apart: under a
   * steady stream of commits one statement announces several of them, instead
   * of one per commit taking a connection and a transaction each; the first
   * commit after a quiet spell is announced at once.
   */
  #announce(): void {
    if (this.#announcing) {
      this.#announceAgain = true;
      return;
    }
    this.#announcing = this.#spaced()
      .then(() => {
        // Every commit made so far goes into this notification.
        this.#announceAgain = false;
        const names = [...this.#unannounced];
        this.#unannounced.clear();
        this.#announcedAt = performance.now();
        return this.db.run("notify", this.db.statements.notify, [
          this.db.names.channel,
          announcement(this.#instance, names),
        ]);
      })
      .then(
        () => undefined,
        (error) => {
          if (!this.db.disposed)
            logger.warn(error, "act-pg: could not notify other processes of a commit; their polling finds it");
        }
      )
      .finally(() => {
        this.#announcing = undefined;
        if (this.#announceAgain && !this.db.disposed) this.#announce();
      });
  }

  /**
   * Waits until {@link ANNOUNCE_SPACING_MILLIS} have passed since the last
   * notification. A timer may fire up to a millisecond early by this clock
   * (Node starts it from the event loop's cached time), hence the loop.
   */
  async #spaced(): Promise<void> {
    for (;;) {
      const wait = this.#announcedAt + ANNOUNCE_SPACING_MILLIS - performance.now();
      if (wait <= 0) return;
      await sleep(wait);
    }
  }

  /** A notification: commits of another store (this one's own were told already). */
  #notified(payload: string | undefined): void {
    const heard = heardOf(payload);
    if (heard.from !== this.#instance) this.#wake(heard.names);
  }

  #wake(names?: readonly string[]) {
    for (const listener of this.#listeners) {
      try {
        listener(names);
      } catch (error) {
        logger.error(error, "act-pg: a commit listener threw");
      }
    }
  }

  /** Listens on the store's channel (from the first listener), on the store's connection or the shared one. */
  #listen(): void {
    if (this.#stopListening || this.db.disposed || !this.#listeners.size) return;
    this.#stopListening = this.db.listener.listen(this.db.names.channel, {
      notified: (payload) => this.#notified(payload),
      reconnected: () => this.#wake(),
    });
  }

  /** Stops listening on the store's channel (a connection of the store's own closes with it). */
  async unlisten(): Promise<void> {
    const stop = this.#stopListening;
    this.#stopListening = undefined;
    stop?.();
    if (this.db.ownsListener) await this.db.listener.close();
  }
}

/**
 * A notification's payload: the announcing store and the names of the events
 * committed since its last one, or no names when they do not fit (a
 * listener then assumes anything may have been committed).
 */
function announcement(from: string, names: string[]): string {
  const named = JSON.stringify({ from, names });
  return Buffer.byteLength(named) <= MAX_ANNOUNCED_BYTES ? named : JSON.stringify({ from });
}

/** Reads a notification's payload; anything else (an older release sends none) names nothing. */
function heardOf(payload: string | undefined): { from?: string; names?: readonly string[] } {
  try {
    const { from, names } = JSON.parse(payload ?? "") as { from?: unknown; names?: unknown };
    const named = Array.isArray(names) && names.every((name) => typeof name === "string");
    return { from: typeof from === "string" ? from : undefined, names: named ? names : undefined };
  } catch {
    return {};
  }
}
