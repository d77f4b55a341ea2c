/**
 * The keys of `T` whose values are strings: the fields that can name a data
 * subject.
 *
 * @experimental
 * @typeParam T - an event's data
 * @example
 * ```ts
 * const field: StringFields<{ customerId: string; total: number }> = "customerId";
 * ```
 */
export type StringFields<T> = { [K in keyof T & string]: T[K] extends string ? K : never }[keyof T & string];

/**
 * Which fields of one event hold personal data, and whose data they are.
 *
 * @experimental
 * @typeParam T - the event's data
 * @see [Personal data](/docs/guides/personal-data) — what is encrypted, forgetting, key rotation.
 * @example
 * ```ts
 * const opened: PersonalFields<{ customerId: string; email: string; title: string }> = {
 *   fields: ["email"],
 *   subject: "customerId",
 * };
 * ```
 */
export type PersonalFields<T> = {
  /** The fields whose values are encrypted with the subject's key (top-level fields of the event's data). */
  readonly fields: ReadonlyArray<keyof T & string>;
  /**
   * The field (a string) naming the data subject — the person the data is
   * about. Omitted, the event's stream is the subject.
   */
  readonly subject?: StringFields<T>;
};

/**
 * The personal fields of each event of a state that has some (see
 * `StateBuilder.personal`).
 *
 * @experimental
 * @typeParam E - the state's events
 * @example
 * ```ts
 * const personal: PersonalData<{ Registered: { email: string; plan: string } }> = {
 *   Registered: { fields: ["email"] },
 * };
 * ```
 */
export type PersonalData<E> = { readonly [K in keyof E]?: PersonalFields<E[K]> };

/**
 * One version of a data subject's key, as a store keeps it: raw AES-256 key
 * bytes in base64, or `null` once the subject was forgotten.
 *
 * @experimental
 * @example
 * ```ts
 * const destroyed: SubjectKey = { subject: "customer-7", version: 1, key: null };
 * ```
 */
export type SubjectKey = {
  /** The data subject. */
  readonly subject: string;
  /** The key's version: 1 for the first, one more per rotation. */
  readonly version: number;
  /** The raw key in base64; `null` when it was destroyed by `forget`. */
  readonly key: string | null;
};

/**
 * What a store reports after forgetting a subject.
 *
 * @experimental
 * @example
 * ```ts
 * const done: Forgotten = { subject: "customer-7", versions: 2, snapshots: 1 };
 * ```
 */
export type Forgotten = {
  /** The data subject. */
  readonly subject: string;
  /** How many key versions were destroyed (already destroyed ones included). */
  readonly versions: number;
  /** How many snapshot events of the subject's streams were emptied (archived ones included). */
  readonly snapshots: number;
};

/**
 * What `SubjectKeyStore.current` is asked for: whose key, for a write to
 * which stream, and the key to create when the subject has none.
 *
 * @experimental
 * @example
 * ```ts
 * const write: KeyWrite = { subject: "customer-7", stream: "customer-7", fresh: "bmV3IGtleQ==" };
 * const { version } = await store().keys!.current(write);
 * ```
 */
export type KeyWrite = {
  /** The data subject. */
  readonly subject: string;
  /** The stream the subject's data is written to (recorded, so `forget` can empty its snapshots). */
  readonly stream: string;
  /** A new key (base64), used only when the subject has none yet. */
  readonly fresh: string;
};

/**
 * The store's keys per data subject (`Store.keys`): what crypto-shredding
 * needs. Personal fields are encrypted with the subject's latest key;
 * destroying the keys makes them unreadable for good. Every store of this
 * repository has one; an app with personal fields refuses to commit them on
 * a store without.
 *
 * @experimental
 * @see [Personal data](/docs/guides/personal-data) — what is encrypted, forgetting, key rotation.
 * @example
 * ```ts
 * const keys = store().keys!;
 * const [key] = await keys.read([{ subject: "customer-7", version: 1 }]);
 * ```
 */
export interface SubjectKeyStore {
  /**
   * The subject's latest key for a write to `stream`: creates version 1 with
   * `fresh` when the subject has none, and records that `stream` holds the
   * subject's data (so `forget` can empty its snapshots).
   *
   * @param write - the data subject (`subject`), the stream the data is written to (`stream`) and a new key
   *   (`fresh`, base64) used only when the subject has none yet
   * @returns the latest version; its `key` is `null` when the subject was forgotten
   */
  current(write: KeyWrite): Promise<SubjectKey>;
  /**
   * Reads key versions (to decrypt).
   *
   * @param wanted - the subject and version of each key
   * @returns the keys found, in any order; a version the store never had is absent
   */
  read(wanted: ReadonlyArray<{ subject: string; version: number }>): Promise<SubjectKey[]>;
  /**
   * Adds a new version of the subject's key, used by the writes after it.
   *
   * @param subject - the data subject
   * @param fresh - the new key (base64)
   * @returns the new version, or `undefined` when the subject has no key or was forgotten
   */
  rotate(subject: string, fresh: string): Promise<number | undefined>;
  /**
   * Destroys every version of the subject's key (they stay as rows without
   * key, so later writes are refused and reads show the placeholder), and
   * empties the snapshot events of the streams that hold the subject's data,
   * in the log and in the archive — a snapshot's state is sealed with a key
   * of its stream's, which stays — in one transaction.
   *
   * @param subject - the data subject
   * @returns what was destroyed, or `undefined` when the store has no key for the subject
   */
  forget(subject: string): Promise<Forgotten | undefined>;
  /**
   * Whether a subject whose data `stream` holds was forgotten: a snapshot of
   * such a stream, from state held in memory before, must not be written.
   *
   * @param stream - the stream
   * @returns true when one of its subjects was forgotten
   */
  forgotten(stream: string): Promise<boolean>;
}
