/**
 * A digest of a store's log and of its archive, and the comparison of two
 * stores that says where their logs (or archives) first differ.
 *
 * Each event is written as one JSON text — id, stream, version, name,
 * creation time in epoch ms, data, metadata — and the texts are hashed in
 * pages of {@link DIGEST_PAGE} events, each page's SHA-256 taken over the
 * previous page's digest and the page: a chain, so a log of any length is
 * hashed in constant memory with Web Crypto (no `node:crypto`: the core
 * still runs in a browser). The pages are counted from the log's first
 * event, so two stores holding the same events give the same digest
 * whatever their page sizes elsewhere.
 */
import type { Committed, Schemas } from "../types/action.js";
import type { Store } from "../types/ports.js";
import type { ArchivedRecord } from "../types/transfer.js";

/** Events per link of the digest chain (and per page read). */
export const DIGEST_PAGE = 1000;

/** An event of the log. */
type Event = Committed<Schemas, string>;

/**
 * What {@link logDigest} reports of a store's log: how many events (snapshot
 * events included), the last id, and the digest — and the same of its
 * archive, when the archive holds events.
 *
 * @experimental
 * @see [Moving and backing up a store](/docs/guides/moving-a-store) — checks a copy and a restored backup.
 * @example
 * ```ts
 * const { events, last, digest }: LogDigest = await logDigest(store());
 * ```
 */
export type LogDigest = {
  /** How many events the log holds, snapshot events included. */
  readonly events: number;
  /** The id of the last event (-1 when the log is empty). */
  readonly last: number;
  /** `sha256:` and the hex digest of the chain over every event, in id order. */
  readonly digest: string;
  /**
   * The archive's events, hashed the same way with each one's archiving
   * time; absent when the archive holds none (or the store has no archive).
   */
  readonly archive?: {
    /** How many events the archive holds. */
    readonly events: number;
    /** The id of the archive's last event. */
    readonly last: number;
    /** `sha256:` and the hex digest of the chain over every archived event and its archiving time, in id order. */
    readonly digest: string;
  };
};

/** The text an event is hashed as: every field a copy must keep. */
export function eventText(e: Event): string {
  return JSON.stringify([e.id, e.stream, e.version, e.name, e.created.getTime(), e.data ?? null, e.meta ?? null]);
}

/** The text an archived event is hashed as: the event's, and when it was archived. */
export function archivedText(r: ArchivedRecord): string {
  return `${eventText(r.event)}@${r.archived}`;
}

/** Reads the page of the log after `after`, snapshot events included. */
export async function page(store: Store, after: number, limit = DIGEST_PAGE): Promise<Event[]> {
  const events: Event[] = [];
  await store.query<Schemas>((e) => events.push(e as Event), { after, limit, with_snaps: true });
  return events;
}

/** Reads the page of the archive after `after` (none when the store cannot list it with archiving times). */
export async function archivedPage(store: Store, after: number, limit = DIGEST_PAGE): Promise<ArchivedRecord[]> {
  return store.archive && store.transfer ? store.transfer.archived(after, limit) : [];
}

/** A part of a store read a page at a time: the log or the archive. */
type Part<T> = {
  read: (store: Store, after: number) => Promise<T[]>;
  id: (row: T) => number;
  text: (row: T) => string;
};

const LOG: Part<Event> = { read: (s, after) => page(s, after), id: (e) => e.id, text: eventText };
const ARCHIVE: Part<ArchivedRecord> = {
  read: (s, after) => archivedPage(s, after),
  id: (r) => r.event.id,
  text: archivedText,
};

/** One link of the chain: the previous digest and a page's texts. */
async function link(previous: string, texts: readonly string[]): Promise<string> {
  const bytes = new TextEncoder().encode(`${previous}\n${texts.join("\n")}`);
  const hash = await globalThis.crypto.subtle.digest("SHA-256", bytes);
  let hex = "";
  for (const byte of new Uint8Array(hash)) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/** A digest in progress: fed page after page of event texts. */
class Chain {
  events = 0;
  last = -1;
  #digest = "";

  async add(ids: readonly number[], texts: readonly string[]): Promise<void> {
    if (!ids.length) return;
    this.#digest = await link(this.#digest, texts);
    this.events += ids.length;
    this.last = ids[ids.length - 1];
  }

  result(): { events: number; last: number; digest: string } {
    return { events: this.events, last: this.last, digest: `sha256:${this.#digest}` };
  }
}

/** A log's digest with its archive's, when that holds events. */
const withArchive = (log: Chain, archive: Chain): LogDigest => ({
  ...log.result(),
  ...(archive.events > 0 && { archive: archive.result() }),
});

/** Hashes one part of a store, page by page. */
async function digestOf<T>(store: Store, part: Part<T>): Promise<Chain> {
  const chain = new Chain();
  for (let after = -1; ; ) {
    const rows = await part.read(store, after);
    if (!rows.length) return chain;
    const ids = rows.map(part.id);
    await chain.add(ids, rows.map(part.text));
    after = ids[ids.length - 1];
  }
}

/**
 * A digest of a store's whole log, snapshot events included, and of its
 * archive (each archived event with its archiving time, read through
 * `Store.transfer`): equal digests mean equal logs and archives — the same
 * ids, streams, versions, names, data, metadata and creation times, in the
 * same order. Compare the digest of a store
 * with that of its copy or of a restored backup. Reads the log a page at a
 * time; stop the apps that write to the store first, or the digest covers
 * whatever the log held while it was read.
 *
 * @experimental
 * @param store - the store whose log to hash
 * @returns the number of events, the last id and the digest
 * @see [Moving and backing up a store](/docs/guides/moving-a-store) — checks a restored backup with it.
 * @example
 * ```ts
 * const copy = new InMemoryStore();
 * await copyStore(store(), copy);
 * const [before, after] = await Promise.all([logDigest(store()), logDigest(copy)]);
 * if (after.digest !== before.digest) throw new Error("the copy differs");
 * ```
 */
export async function logDigest(store: Store): Promise<LogDigest> {
  return withArchive(await digestOf(store, LOG), await digestOf(store, ARCHIVE));
}

/**
 * Where two logs (or archives) first differ: the position (0-based) and
 * each side's event there, if any; `archived` when it is in the archives.
 */
export type Difference = { position: number; source?: Event; target?: Event; archived?: boolean };

/**
 * Reads one part of two stores side by side, page by page, hashing each
 * and noting the first position where their rows differ.
 */
async function compareParts<T>(
  part: Part<T>,
  stores: readonly [Store, Store]
): Promise<{ chains: [Chain, Chain]; difference?: { position: number; rows: (T | undefined)[] } }> {
  const chains: [Chain, Chain] = [new Chain(), new Chain()];
  let difference: { position: number; rows: (T | undefined)[] } | undefined;
  let position = 0;
  const after = [-1, -1];
  for (;;) {
    const pages = await Promise.all([part.read(stores[0], after[0]), part.read(stores[1], after[1])]);
    if (!pages[0].length && !pages[1].length) break;
    const texts = pages.map((rows) => rows.map(part.text));
    if (!difference)
      for (let i = 0; i < Math.max(texts[0].length, texts[1].length); i++)
        if (texts[0][i] !== texts[1][i]) {
          difference = { position: position + i, rows: [pages[0][i], pages[1][i]] };
          break;
        }
    for (const side of [0, 1]) {
      const ids = pages[side].map(part.id);
      await chains[side].add(ids, texts[side]);
      if (ids.length) after[side] = ids[ids.length - 1];
    }
    position += DIGEST_PAGE;
  }
  return { chains, ...(difference && { difference }) };
}

/**
 * Reads two logs side by side, page by page, hashing each as
 * {@link logDigest} does and noting the first position where their events
 * differ; then their archives the same way.
 */
export async function compareLogs(
  source: Store,
  target: Store
): Promise<{ source: LogDigest; target: LogDigest; difference?: Difference }> {
  const log = await compareParts(LOG, [source, target]);
  const archive = await compareParts(ARCHIVE, [source, target]);
  const found = log.difference
    ? { position: log.difference.position, source: log.difference.rows[0], target: log.difference.rows[1] }
    : archive.difference && {
        position: archive.difference.position,
        source: archive.difference.rows[0]?.event,
        target: archive.difference.rows[1]?.event,
        archived: true,
      };
  return {
    source: withArchive(log.chains[0], archive.chains[0]),
    target: withArchive(log.chains[1], archive.chains[1]),
    ...(found && { difference: found }),
  };
}
