/**
 * The store as an app with personal fields sees it: the values of personal
 * fields are encrypted on their way in (`commit`, `commitInline`) and
 * decrypted on their way out (`query`), with the keys of `Store.keys`.
 * Everything else goes to the store as it is. The store itself, and whoever
 * reads it directly (the inspector, a backup), only ever holds the sealed
 * text.
 */
import { PersonalDataError } from "../core/errors.js";
import { FORGOTTEN } from "../core/forgotten.js";
import { SNAP_EVENT, type Query } from "../core/schemas.js";
import type { Committed, Message, Schemas } from "../types/action.js";
import type { PersonalFields, SubjectKeyStore } from "../types/personal.js";
import type { Commit, InlineCommit, KeyedVersions, Store } from "../types/ports.js";
import type { ReactionFilter, ReactionStream } from "../types/reaction-streams.js";
import type { BlockedLease, Lease, Poll } from "../types/reaction.js";
import { type Envelope, envelope, freshKey, importKey, isSealed, open, seal } from "./cipher.js";

/** The personal fields of each event that has some, by event name. */
export type PersonalRegister = ReadonlyMap<string, PersonalFields<any>>;

/** How long a write key is reused before the store is asked again, in ms (a rotation elsewhere shows after it). */
const WRITE_KEY_MILLIS = 30_000;
/** Most write keys kept. */
const WRITE_KEYS = 1_000;

type WriteKey = { version: number; key: CryptoKey; until: number };

/** The additional data a field's value is sealed with: the event and the field it belongs to. */
const additional = (event: string, field: string) => `${event}\u0000${field}`;

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
    const current = await this.keyStore(where).current(subject, stream, freshKey());
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
      const key = await this.writeKey(subject, stream, where);
      for (const field of personal.fields)
        if (data[field] !== undefined)
          data[field] = await seal(key.key, subject, key.version, asStored(data[field]), additional(name, field));
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
    const state = await seal(key.key, subject, key.version, asStored(data.state), additional(SNAP_EVENT, "state"));
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
   * {@link FORGOTTEN} when its key was destroyed. The events are read first
   * and handed to `callback` once their keys are known.
   */
  async query<E extends Schemas>(callback: (event: Committed<E, keyof E>) => void, query?: Query): Promise<number> {
    const read: Committed<E, keyof E>[] = [];
    const count = await this.inner.query<E>((event) => read.push(event), query);
    const sealed: Array<{ at: number; field: string; envelope: Envelope; where: string }> = [];
    read.forEach((event, at) => {
      if (event.name === SNAP_EVENT) {
        const state = (event.data as { state?: unknown })?.state;
        const where = `snapshot #${event.id} on stream "${event.stream}"`;
        if (isSealed(state)) sealed.push({ at, field: "state", envelope: envelope(state, where), where });
        return;
      }
      const personal = this.personal.get(event.name as string);
      if (!personal) return;
      const data = event.data as Record<string, unknown>;
      for (const field of personal.fields) {
        const value = data?.[field];
        if (!isSealed(value)) continue; // written before the field was marked personal
        const where = `field "${field}" of event "${String(event.name)}" #${event.id} on stream "${event.stream}"`;
        sealed.push({ at, field, envelope: envelope(value, where), where });
      }
    });
    if (sealed.length) await this.open(read, sealed);
    for (const event of read) callback(event);
    return count;
  }

  /** Replaces the sealed values in `read` with their plaintext (or the placeholder). */
  private async open<E extends Schemas>(
    read: Committed<E, keyof E>[],
    sealed: Array<{ at: number; field: string; envelope: Envelope; where: string }>
  ): Promise<void> {
    const id = (subject: string, version: number) => `${subject}\u0000${version}`;
    const wanted = new Map(
      sealed.map(({ envelope: { subject, version } }) => [id(subject, version), { subject, version }])
    );
    const rows = await this.keyStore(sealed[0].where).read([...wanted.values()]);
    const keys = new Map<string, Promise<CryptoKey> | null>(
      rows.map((row) => [id(row.subject, row.version), row.key === null ? null : importKey(row.key)])
    );
    const opened = await Promise.all(
      sealed.map(async ({ at, field, envelope, where }) => {
        const key = keys.get(id(envelope.subject, envelope.version));
        if (key === undefined)
          throw new PersonalDataError(
            "missing-key",
            where,
            `the store has no key version ${envelope.version} of its data subject (were the events copied without the store's keys?)`
          );
        return key === null ? FORGOTTEN : open(await key, envelope, additional(String(read[at].name), field), where);
      })
    );
    const changed = new Map<number, Record<string, unknown>>();
    sealed.forEach(({ at, field }, i) => {
      const data = changed.get(at) ?? { ...(read[at].data as Record<string, unknown>) };
      data[field] = opened[i];
      changed.set(at, data);
    });
    for (const [at, data] of changed)
      read[at] = Object.freeze({ ...read[at], data: Object.freeze(data) as E[keyof E] });
  }

  seed = () => this.inner.seed();
  drop = () => this.inner.drop();
  dispose = () => this.inner.dispose();
  recall = (stream: string, key: string): Promise<KeyedVersions | undefined> => this.inner.recall(stream, key);
  poll = (lagging: number, leading: number, reactions?: readonly string[]): Promise<Poll[]> =>
    this.inner.poll(lagging, leading, reactions);
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
