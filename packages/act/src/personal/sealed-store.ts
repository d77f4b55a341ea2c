/**
 * The store as an app with personal fields sees it: the values of personal
 * fields are encrypted on their way in (`commit`, `commitInline`) and
 * decrypted on their way out (`query`), with the keys of `Store.keys`.
 * Everything else goes to the store as it is. The store itself, and whoever
 * reads it directly (the inspector, a backup), only ever holds the sealed
 * text.
 */
import { PersonalDataError } from "../core/errors.js";
import { SNAP_EVENT, type Query } from "../core/schemas.js";
import type { Committed, Message, Schemas } from "../types/action.js";
import type { ArchiveStore } from "../types/archive.js";
import type { SubjectKeyStore } from "../types/personal.js";
import type { Commit, InlineCommit, KeyedVersions, Store } from "../types/ports.js";
import type { PollRequest, ReactionFilter, ReactionStream } from "../types/reaction-streams.js";
import type { BlockedLease, Lease, Poll } from "../types/lease.js";
import type { AesKey } from "./aes-gcm.js";
import { bound, companion, freshKey, importKey, isSealed, seal } from "./cipher.js";
import { openEvents, type PersonalRegister } from "./opening.js";

/** How long a write key is reused before the store is asked again, in ms (a rotation elsewhere shows after it). */
const WRITE_KEY_MILLIS = 30_000;
/** Most write keys kept. */
const WRITE_KEYS = 1_000;

type WriteKey = { version: number; key: AesKey; until: number };

/** The subject whose key seals the snapshots of a stream. */
const snapshotSubject = (stream: string) => `act:snapshot:${stream}`;

/** The stored value as JSON would read it back (what the store hands out). */
const asStored = (value: unknown) => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

/**
 * A `Store` that seals personal fields: every call but `commit`,
 * `commitInline` and `query` goes to `inner` unchanged, at the time of the
 * call (so an instrumented store stays instrumented).
 */
export class SealedStore implements Store {
  /** The latest key of each subject written to each stream lately (subject, then stream). */
  private readonly writeKeys = new Map<string, WriteKey>();

  /**
   * @param inner - the store
   * @param personal - the personal fields of each event that has some
   * @param snapshots - the versions of the states that have personal fields: their snapshots' state is sealed whole
   */
  constructor(
    readonly inner: Store,
    private readonly personal: PersonalRegister,
    private readonly snapshots: ReadonlySet<string>
  ) {
    // Messages that name the store (e.g. "needs a store that keeps timers") name the real one.
    Object.defineProperty(this, "constructor", { value: inner.constructor, enumerable: false });
  }

  /** Forgets the write keys held: after `forget` or `rotate` here, the next write asks the store. */
  forgetKeys(): void {
    this.writeKeys.clear();
  }

  private keyStore(where: string): SubjectKeyStore {
    const keys = this.inner.keys;
    if (!keys)
      throw new PersonalDataError(
        "no-key-store",
        where,
        `${this.inner.constructor?.name ?? "the store"} keeps no subject keys (Store.keys), so personal fields can be neither encrypted nor read`
      );
    return keys;
  }

  /** The key to seal a subject's data written to `stream` with. */
  private async writeKey(subject: string, stream: string, where: string): Promise<WriteKey> {
    const id = `${subject}\u0000${stream}`;
    const held = this.writeKeys.get(id);
    if (held && held.until > Date.now()) return held;
    const current = await this.keyStore(where).current({ subject, stream, fresh: freshKey() });
    if (current.key === null)
      throw new PersonalDataError(
        "forgotten-subject",
        where,
        `data subject "${subject}" was forgotten: no personal data of theirs can be written again`
      );
    const key: WriteKey = {
      version: current.version,
      key: await importKey(current.key),
      until: Date.now() + WRITE_KEY_MILLIS,
    };
    this.writeKeys.delete(id);
    this.writeKeys.set(id, key);
    if (this.writeKeys.size > WRITE_KEYS) this.writeKeys.delete(this.writeKeys.keys().next().value!);
    return key;
  }

  /** The messages with their personal fields sealed. */
  private async seal<E extends Schemas>(
    stream: string,
    messages: Message<E, keyof E>[]
  ): Promise<Message<E, keyof E>[]> {
    const sealed: Message<E, keyof E>[] = [];
    for (const message of messages) {
      const name = message.name as string;
      if (name === SNAP_EVENT) {
        sealed.push(await this.sealSnapshot(stream, message));
        continue;
      }
      const personal = this.personal.get(name);
      if (!personal) {
        sealed.push(message);
        continue;
      }
      const where = `event "${name}" on stream "${stream}"`;
      const data = { ...(message.data as Record<string, unknown>) };
      const subject = personal.subject === undefined ? stream : data[personal.subject];
      if (typeof subject !== "string" || !subject)
        throw new PersonalDataError(
          "no-subject",
          where,
          `its subject field "${String(personal.subject)}" must be a non-empty string, to know whose key encrypts its personal fields`
        );
      // One ciphertext for all of them, in the first present: a load opens one value per event.
      const fields = personal.fields.filter((field) => data[field] !== undefined);
      if (fields.length) {
        const key = await this.writeKey(subject, stream, where);
        const values = Object.fromEntries(fields.map((field) => [field, asStored(data[field])]));
        data[fields[0]] = await seal(key.key, subject, key.version, values, bound(stream, name));
        for (const field of fields.slice(1)) data[field] = companion(fields[0]);
      }
      sealed.push({ name: message.name, data: data as E[keyof E] });
    }
    return sealed;
  }

  /**
   * A snapshot of a state with personal fields holds them in clear: its
   * state is sealed whole, with a key of the stream's own (`forget` empties
   * the snapshots of the subject's streams, so that key needs no destroying).
   * A snapshot built from state held in memory before a subject of the
   * stream was forgotten is refused: it would bring the data back.
   */
  private async sealSnapshot<E extends Schemas>(stream: string, message: Message<E, keyof E>) {
    const where = `snapshot of stream "${stream}"`;
    const data = message.data as unknown as { of?: unknown; state?: unknown };
    if (typeof data?.of !== "string" || !this.snapshots.has(data.of)) return message;
    if (await this.keyStore(where).forgotten(stream))
      throw new PersonalDataError(
        "forgotten-subject",
        where,
        "a data subject of the stream was forgotten: the snapshot is not written"
      );
    const subject = snapshotSubject(stream);
    const key = await this.writeKey(subject, stream, where);
    const state = await seal(key.key, subject, key.version, { state: asStored(data.state) }, bound(stream, SNAP_EVENT));
    return { name: message.name, data: { of: data.of, state } as unknown as E[keyof E] };
  }

  /** The committed events with the plaintext of their personal fields back (as the store would return it). */
  private unseal<E extends Schemas>(
    committed: Committed<E, keyof E>[],
    messages: Message<E, keyof E>[]
  ): Committed<E, keyof E>[] {
    return committed.map((event, i) => {
      if (event.name === SNAP_EVENT && isSealed((event.data as { state?: unknown })?.state))
        return Object.freeze({ ...event, data: messages[i].data });
      const personal = this.personal.get(event.name as string);
      if (!personal) return event;
      const data = { ...(event.data as Record<string, unknown>) };
      const plain = messages[i].data as Record<string, unknown>;
      for (const field of personal.fields) if (plain[field] !== undefined) data[field] = asStored(plain[field]);
      return Object.freeze({ ...event, data: Object.freeze(data) as E[keyof E] });
    });
  }

  async commit<E extends Schemas>(commit: Commit<E>): Promise<Committed<E, keyof E>[]> {
    const sealed = await this.seal(commit.stream, commit.messages);
    const committed = await this.inner.commit({ ...commit, messages: sealed });
    return this.unseal(committed, commit.messages);
  }

  get commitInline(): Store["commitInline"] {
    const inline = this.inner.commitInline;
    if (!inline) return undefined;
    return async <E extends Schemas>(
      commit: InlineCommit<E>,
      work: (events: Committed<E, keyof E>[], tx: any) => unknown
    ): Promise<Committed<E, keyof E>[]> => {
      const sealed = await this.seal(commit.stream, commit.messages);
      const committed = await inline.call<Store, [InlineCommit<E>, typeof work], Promise<Committed<E, keyof E>[]>>(
        this.inner,
        { ...commit, messages: sealed },
        (events, tx) => work(this.unseal(events, commit.messages), tx)
      );
      return this.unseal(committed, commit.messages);
    };
  }

  /**
   * Reads as the store does, each personal field opened — or
   * `FORGOTTEN` when its key was destroyed. The events are read first
   * and handed to `callback` once they are opened.
   */
  query<E extends Schemas>(callback: (event: Committed<E, keyof E>) => void, query?: Query): Promise<number> {
    return this.opened(this.inner, callback, query);
  }

  /** What `source` (the log or the archive) reads, each event handed to `callback` once its personal fields are opened. */
  private async opened<E extends Schemas>(
    source: Pick<Store, "query">,
    callback: (event: Committed<E, keyof E>) => void,
    query?: Query
  ): Promise<number> {
    const read: Committed<E, keyof E>[] = [];
    const count = await source.query<E>((event) => read.push(event), query);
    await openEvents(read, this.personal, (where) => this.keyStore(where));
    for (const event of read) callback(event);
    return count;
  }

  /**
   * The store's archive, its reads opened as `query` opens the log's (a
   * forgotten subject's fields read as `FORGOTTEN`); moves and purges go to
   * it unchanged.
   */
  get archive(): ArchiveStore | undefined {
    const archive = this.inner.archive;
    if (!archive) return undefined;
    return {
      move: (request) => archive.move(request),
      purge: (before) => archive.purge(before),
      query: (callback, query) => this.opened(archive, callback, query),
    };
  }

  seed = () => this.inner.seed();
  drop = () => this.inner.drop();
  dispose = () => this.inner.dispose();
  recall = (stream: string, key: string): Promise<KeyedVersions | undefined> => this.inner.recall(stream, key);
  poll = (request: PollRequest): Promise<Poll[]> => this.inner.poll(request);
  lease = (leases: Lease[], millis: number): Promise<Lease[]> => this.inner.lease(leases, millis);
  ack = (leases: Lease[]): Promise<Lease[]> => this.inner.ack(leases);
  block = (leases: BlockedLease[]): Promise<BlockedLease[]> => this.inner.block(leases);
  reactions = (filter?: ReactionFilter): Promise<ReactionStream[]> => this.inner.reactions(filter);
  unblock = (streams: string[]): Promise<string[]> => this.inner.unblock(streams);
  reset = (streams: string[], at?: number): Promise<string[]> => this.inner.reset(streams, at);
  retire = (reactions: string[]): Promise<string[]> => this.inner.retire(reactions);
  discovered = (reactions: readonly string[]): Promise<Map<string, number>> => this.inner.discovered(reactions);
  discover = (reactions: readonly string[], at: number): Promise<void> => this.inner.discover(reactions, at);

  get project(): Store["project"] {
    const project = this.inner.project;
    return project && ((lease, work) => project.call(this.inner, lease, work));
  }
  get subscribe(): Store["subscribe"] {
    const subscribe = this.inner.subscribe;
    return subscribe && ((listener) => subscribe.call(this.inner, listener));
  }
  get synchronousHandlers(): boolean | undefined {
    return this.inner.synchronousHandlers;
  }
  get timers() {
    return this.inner.timers;
  }
  get keys(): SubjectKeyStore | undefined {
    return this.inner.keys;
  }
}
