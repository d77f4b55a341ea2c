/**
 * The dedicated connection that hears `NOTIFY`s: one per store, or one for
 * every store sharing {@link PostgresConnections} (a channel per store on a
 * single connection, so a thousand schemas cost one connection, not a
 * thousand). `LISTEN` needs a connection of its own — a pooled one goes back
 * to the pool — and after it is lost the listener connects again, listens
 * again and tells every subscriber it may have missed notifications.
 */
import { logger } from "@act-root/act";
import pg from "pg";

/** Who hears a channel: its notifications, and a connection loss during which some may have been missed. */
export type ChannelSubscriber = {
  /** A notification on the channel, with its payload. */
  notified(payload: string | undefined): void;
  /** The connection was lost and is listening again: anything may have been committed meanwhile. */
  reconnected(): void;
};

/** A channel name quoted as an identifier (`LISTEN` takes no parameter). */
const quoted = (channel: string) => `"${channel.replace(/"/g, '""')}"`;

/** A connection that listens on the channels its subscribers name. */
export class ChannelListener {
  readonly #channels = new Map<string, Set<ChannelSubscriber>>();
  /** Channels `LISTEN`ed on the current connection. */
  #listened = new Set<string>();
  #client?: pg.Client;
  /** Whether the current connection is open and may run `LISTEN`. */
  #ready = false;
  /** Serialises `LISTEN`/`UNLISTEN` on the connection, in the order of the changes. */
  #syncing: Promise<void> = Promise.resolve();
  /** The connection attempt in flight. */
  #connecting?: Promise<void>;
  #disposed = false;

  /**
   * @param connection - the connection settings (the store's, or the shared ones)
   * @param owned - closes the connection when the last channel is left (a store's own listener);
   *   a shared one stays open for the next store
   */
  constructor(
    private readonly connection: object,
    private readonly owned: boolean
  ) {}

  /** How many channels it listens on (for tests and figures). */
  get channels(): number {
    return this.#channels.size;
  }

  /** Listens on `channel` for `subscriber`; returns the function that stops. */
  listen(channel: string, subscriber: ChannelSubscriber): () => void {
    if (this.#disposed) return () => {};
    let subscribers = this.#channels.get(channel);
    if (!subscribers) {
      subscribers = new Set();
      this.#channels.set(channel, subscribers);
    }
    subscribers.add(subscriber);
    if (this.#client) this.#sync();
    else this.#connect();
    const held = subscribers;
    return () => {
      held.delete(subscriber);
      if (held.size || this.#channels.get(channel) !== held) return;
      this.#channels.delete(channel);
      if (!this.#channels.size && this.owned) void this.close();
      else this.#sync();
    };
  }

  /** Waits until the connection listens on every channel subscribed so far (tests). */
  async listening(): Promise<void> {
    await this.#connecting;
    await this.#syncing;
  }

  /** Brings the connection's `LISTEN`s in line with the channels, one change at a time. */
  #sync(): void {
    const client = this.#client;
    this.#syncing = this.#syncing
      .then(async () => {
        if (!client || client !== this.#client || !this.#ready) return;
        for (const channel of this.#channels.keys())
          if (!this.#listened.has(channel)) {
            await client.query(`LISTEN ${quoted(channel)}`);
            this.#listened.add(channel);
          }
        for (const channel of [...this.#listened])
          if (!this.#channels.has(channel)) {
            await client.query(`UNLISTEN ${quoted(channel)}`);
            this.#listened.delete(channel);
          }
      })
      .catch((error) => {
        // A lost connection is also reported by its "error" event, which reconnects.
        if (client === this.#client) logger.warn(error, "act-pg: could not listen for commits; polling continues");
      });
  }

  /** Opens the connection when there are channels and none is open; retries with backoff. */
  #connect(delay = 100, afterLoss = false): void {
    if (this.#client || this.#disposed || !this.#channels.size) return;
    const client = new pg.Client({ ...this.connection });
    this.#client = client;
    this.#ready = false;
    this.#listened = new Set();
    const retry = () => {
      if (this.#client !== client) return;
      this.#client = undefined;
      this.#ready = false;
      client.removeAllListeners("notification");
      void client.end().catch(() => {});
      if (this.#disposed || !this.#channels.size) return;
      setTimeout(() => this.#connect(Math.min(delay * 2, 5_000), true), delay).unref?.();
    };
    client.on("error", (error) => {
      logger.warn(error, "act-pg: the commit listener lost its connection; listening again");
      retry();
    });
    client.on("end", retry);
    client.on("notification", ({ channel, payload }) => {
      for (const subscriber of this.#channels.get(channel) ?? []) subscriber.notified(payload);
    });
    this.#connecting = client
      .connect()
      .then(async () => {
        if (this.#client !== client) return;
        this.#ready = true;
        this.#sync();
        await this.#syncing;
        if (afterLoss) for (const subscribers of this.#channels.values()) for (const s of subscribers) s.reconnected();
      })
      .catch((error) => {
        logger.warn(error, "act-pg: could not listen for commits; polling continues, retrying");
        retry();
      });
  }

  /** Closes the connection, if open; a later `listen` opens it again. */
  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    this.#ready = false;
    this.#listened = new Set();
    if (!client) return;
    client.removeAllListeners();
    client.on("error", () => {});
    await client.end().catch(() => {});
  }

  /** Closes the connection for good: nothing listens from now on. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    this.#channels.clear();
    await this.close();
  }
}
