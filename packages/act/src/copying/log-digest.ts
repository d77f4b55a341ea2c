/**
 * A digest of a store's log, and the comparison of two logs that says where
 * they first differ.
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

/** Events per link of the digest chain (and per page read). */
export const DIGEST_PAGE = 1000;

/** An event of the log. */
type Event = Committed<Schemas, string>;

/**
 * What {@link logDigest} reports of a store's log: how many events (snapshot
 * events included), the last id, and the digest.
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
};

/** The text an event is hashed as: every field a copy must keep. */
export function eventText(e: Event): string {
  return JSON.stringify([e.id, e.stream, e.version, e.name, e.created.getTime(), e.data ?? null, e.meta ?? null]);
}

/** Reads the page of the log after `after`, snapshot events included. */
export async function page(store: Store, after: number, limit = DIGEST_PAGE): Promise<Event[]> {
  const events: Event[] = [];
  await store.query<Schemas>((e) => events.push(e as Event), { after, limit, with_snaps: true });
  return events;
}

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

  async add(events: readonly Event[], texts: readonly string[]): Promise<void> {
    if (!events.length) return;
    this.#digest = await link(this.#digest, texts);
    this.events += events.length;
    this.last = events[events.length - 1].id;
  }

  result(): LogDigest {
    return { events: this.events, last: this.last, digest: `sha256:${this.#digest}` };
  }
}

/**
 * A digest of a store's whole log, snapshot events included: equal digests
 * mean equal logs — the same ids, streams, versions, names, data, metadata
 * and creation times, in the same order. Compare the digest of a store
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
  const chain = new Chain();
  for (let after = -1; ; ) {
    const events = await page(store, after);
    if (!events.length) return chain.result();
    await chain.add(events, events.map(eventText));
    after = events[events.length - 1].id;
  }
}

/** Where two logs first differ: the position (0-based) and each side's event there, if any. */
export type Difference = { position: number; source?: Event; target?: Event };

/**
 * Reads two logs side by side, page by page, hashing each as
 * {@link logDigest} does and noting the first position where their events
 * differ.
 */
export async function compareLogs(
  source: Store,
  target: Store
): Promise<{ source: LogDigest; target: LogDigest; difference?: Difference }> {
  const chains = [new Chain(), new Chain()];
  let difference: Difference | undefined;
  let position = 0;
  const after = [-1, -1];
  for (;;) {
    const pages = await Promise.all([page(source, after[0]), page(target, after[1])]);
    if (!pages[0].length && !pages[1].length) break;
    const texts = pages.map((events) => events.map(eventText));
    if (!difference)
      for (let i = 0; i < Math.max(texts[0].length, texts[1].length); i++)
        if (texts[0][i] !== texts[1][i]) {
          difference = { position: position + i, source: pages[0][i], target: pages[1][i] };
          break;
        }
    for (const side of [0, 1]) {
      await chains[side].add(pages[side], texts[side]);
      if (pages[side].length) after[side] = pages[side][pages[side].length - 1].id;
    }
    position += DIGEST_PAGE;
  }
  return { source: chains[0].result(), target: chains[1].result(), ...(difference && { difference }) };
}
