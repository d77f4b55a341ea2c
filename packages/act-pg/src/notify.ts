/**
 * Wake-ups: commits are announced with a `NOTIFY` on the store's table's
 * channel (inside a commit's statement, `sql.commit`, or on its own,
 * `sql.notify`), and `subscribe` listens on that channel (`listener.ts`: on
 * a connection of the store's own, or on the one connection the stores of a
 * `PostgresConnections` share), so a consumer in another process drains at
 * once. Only a hint: polling finds every commit anyway.
 */
import { logger, sleep } from "@act-root/act";
import { randomUUID } from "node:crypto";
import type { Database } from "./database.js";

/**
 * Least time between two commit notifications of one store. It bounds what a
 * steady stream of commits spends on wake-ups at the price of at most this
 * much extra delay for a consumer in another process, which a busy consumer
 * does not wait for anyway: it drains again at once while it finds full
 * batches.
 */
const ANNOUNCE_SPACING_MILLIS = 5;

/** Payloads PostgreSQL refuses above 8,000 bytes; names beyond this leave the announcement unnamed. */
const MAX_ANNOUNCED_BYTES = 7_900;

/**
 * A commit that carries the store's notification in its own statement (see
 * {@link Notifier.ride}): the payload to send, and the names of earlier
 * commits it announces, which go back to the queue if the commit fails.
 */
export type Ride = { readonly payload: string; readonly earlier: readonly string[] };

/**
 * A store's commit listeners, its announcements to other processes and the
 * connection that hears theirs.
 *
 * Announcements travel two ways. A commit that starts when one is due (none
 * for {@link ANNOUNCE_SPACING_MILLIS}) carries it in its own statement
 * ({@link ride}): PostgreSQL delivers it when that commit is visible, and it
 * costs no statement or transaction of its own. Commits that start within
 * the spacing leave their event names queued: the next commit that is due
 * carries them too, or, once commits stop for the spacing, a notification of
 * its own is sent ({@link committed}). Every commit is thus followed by a
 * notification delivered no earlier than the commit is visible; a steady
 * stream of commits sends one per spacing, all inside commits; and a quiet
 * store sends the first commit's at once. Only commits that carry one take
 * PostgreSQL's database-wide lock on notifying transactions (held from before
 * their commit until after it), so the others still share disk flushes.
 */
export class Notifier {
  /** Wake-up listeners, and the dedicated connection listening for them. */
  readonly #listeners = new Set<(names?: readonly string[]) => void>();
  /** Tells this store's own announcements apart: its listeners heard of those commits already. */
  readonly #instance = randomUUID();
  /** Names of the events committed and not announced yet. */
  readonly #unannounced = new Set<string>();
  /** Stops listening on the store's channel, while it listens. */
  #stopListening?: () => void;
  /** A notification of its own in flight, if any. */
  #sending?: Promise<void>;
  /** Sends the queued names once commits stopped for the spacing. */
  #trailing?: ReturnType<typeof setTimeout>;
  /** When the last notification was sent, on its own or in a commit (`performance.now()`). */
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
   * Before a commit of events named `names` is sent: the announcement it
   * should carry, when one is due (nothing sent for the spacing, none of its
   * own in flight), or `undefined`. The commit then announces the names
   * queued so far along with its own.
   */
  ride(names: readonly PropertyKey[]): Ride | undefined {
    if (this.#sending || performance.now() - this.#announcedAt < ANNOUNCE_SPACING_MILLIS) return undefined;
    this.#announcedAt = performance.now();
    const earlier = [...this.#unannounced];
    this.#unannounced.clear();
    const named = new Set(earlier);
    for (const name of names) named.add(String(name));
    return { payload: announcement(this.#instance, [...named]), earlier };
  }

  /**
   * After a commit through this store: its own listeners hear of it at once
   * (no round trip through the server), other processes from the
   * notification it carried (`ride`), or else from a later one.
   */
  committed(events: readonly { name: PropertyKey }[], ride?: Ride): void {
    const names = [...new Set(events.map(({ name }) => String(name)))];
    if (this.#listeners.size) queueMicrotask(() => this.#wake(names));
    if (ride) return;
    for (const name of names) this.#unannounced.add(name);
    this.#trail();
  }

  /** A commit that was to carry `ride` failed: the earlier names it carried are announced later. */
  failed(ride: Ride | undefined): void {
    if (!ride?.earlier.length) return;
    for (const name of ride.earlier) this.#unannounced.add(name);
    this.#trail();
  }

  /**
   * For `dispose`: forgets the listeners and waits for the notification in
   * flight. What is still queued is not sent (the store is closing): other
   * processes' polling finds those commits.
   */
  async quiet(): Promise<void> {
    this.#listeners.clear();
    clearTimeout(this.#trailing);
    this.#trailing = undefined;
    await this.#sending;
  }

  /**
   * (Re)arms the notification of the queued names for when commits have
   * stopped for the spacing: while they go on, one that is due carries them.
   */
  #trail(): void {
    clearTimeout(this.#trailing);
    this.#trailing = setTimeout(() => {
      this.#trailing = undefined;
      void this.#flush();
    }, ANNOUNCE_SPACING_MILLIS);
    (this.#trailing as { unref?: () => void }).unref?.();
  }

  /** Sends the queued names in a notification of its own, at least the spacing after the last one. */
  async #flush(): Promise<void> {
    if (this.#sending || this.db.disposed) return;
    await this.#spaced();
    if (this.#sending || this.#trailing || this.db.disposed) return;
    await this.#send();
    // Commits that finished while it was in flight without carrying one.
    if (this.#unannounced.size && !this.#trailing) this.#trail();
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

  /** Sends the queued names in a notification of its own; a failure is logged (polling finds the commits). */
  #send(): Promise<void> {
    if (!this.#unannounced.size) return Promise.resolve();
    const names = [...this.#unannounced];
    this.#unannounced.clear();
    this.#announcedAt = performance.now();
    this.#sending = this.db
      .background(
        "notify",
        this.db.statements.notify,
        [this.db.names.channel, announcement(this.#instance, names)],
        "act-pg: could not notify other processes of a commit; their polling finds it"
      )
      .finally(() => {
        this.#sending = undefined;
      });
    return this.#sending;
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
