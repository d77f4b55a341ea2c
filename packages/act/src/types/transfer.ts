import type { Committed, Schemas } from "./action.js";

/**
 * A reaction stream exactly as a store keeps it, for a copy into another
 * store: every field `Store.reactions` reports, plus the progress it does not
 * (`done`, `ahead`). Times are epoch milliseconds.
 *
 * @experimental
 * @see [Moving and backing up a store](/docs/guides/moving-a-store) — copies a store into another one.
 * @example
 * ```ts
 * const row: WatermarkRecord = {
 *   stream: "audit", at: 41, head: 57, retry: 0, blocked: false, done: [], token: 3,
 *   reactions: ["Placed/audit"], ahead: {},
 * };
 * ```
 */
export type WatermarkRecord = {
  /** The reaction stream. */
  readonly stream: string;
  /** The only stream whose events it reads (every stream when absent). */
  readonly source?: string;
  /** Id of the last event handled (-1 when none). */
  readonly at: number;
  /** Id of the last event found reacting into it. */
  readonly head: number;
  /** Failed attempts at the next event. */
  readonly retry: number;
  /** Whether it is blocked. */
  readonly blocked: boolean;
  /** Why it was blocked. */
  readonly error?: string;
  /** The drainer holding its lease, if any. */
  readonly leasedBy?: string;
  /** When that lease, or the backoff before a retry, ends (epoch ms). */
  readonly leasedUntil?: number;
  /** Reactions already run on the partly handled event after `at`. */
  readonly done: readonly string[];
  /** The generation of its lease. */
  readonly token: number;
  /** The reactions registered on it. */
  readonly reactions: readonly string[];
  /** Reactions that handled it past `at` (it moved back for one that joined late): the last event each handled. */
  readonly ahead: Readonly<Record<string, number>>;
};

/**
 * An idempotency key exactly as a store keeps it: the stream versions it
 * committed, for which request, and until when (epoch ms).
 *
 * @experimental
 * @example
 * ```ts
 * const key: KeyRecord = { stream: "order-1", key: "request-42", from: 3, to: 4, expires: Date.now() + 86_400_000 };
 * ```
 */
export type KeyRecord = {
  /** The stream the action was addressed to. */
  readonly stream: string;
  /** The key. */
  readonly key: string;
  /** Version of the first event committed under it. */
  readonly from: number;
  /** Version of the last one. */
  readonly to: number;
  /** When the key expires (epoch ms). */
  readonly expires: number;
  /** The digest of the request that used it, when kept. */
  readonly request?: string;
};

/**
 * A timer exactly as a store keeps it, in any status. Times are epoch
 * milliseconds by the clock of the app that wrote them.
 *
 * @experimental
 * @example
 * ```ts
 * const timer: TimerRecord = {
 *   id: "remind-1", action: "remind", stream: "t-1", actor: { id: "bot", name: "Bot" }, payload: {},
 *   due: Date.now() + 60_000, status: "pending", token: 0, attempts: 0, claimedUntil: 0,
 * };
 * ```
 */
export type TimerRecord = {
  /** The timer's id. */
  readonly id: string;
  /** The action it runs. */
  readonly action: string;
  /** The stream the action goes to. */
  readonly stream: string;
  /** Who the action runs as. */
  readonly actor: {
    /** The actor's id. */
    readonly id: string;
    /** The actor's name. */
    readonly name: string;
  };
  /** The action's payload. */
  readonly payload: unknown;
  /** When it is due (epoch ms). */
  readonly due: number;
  /** Where it is in its life. */
  readonly status: "pending" | "fired" | "failed" | "cancelled";
  /** The generation of its claim. */
  readonly token: number;
  /** How many times it was claimed. */
  readonly attempts: number;
  /** Who holds its claim, if anyone. */
  readonly claimedBy?: string;
  /** When the claim, or the wait before the next attempt, ends (epoch ms; 0: none). */
  readonly claimedUntil: number;
  /** When it fired or failed for good (epoch ms). */
  readonly fired?: number;
  /** Why its last attempt failed. */
  readonly error?: string;
  /** The correlation id its action's events get (absent: the fired action starts its own). */
  readonly correlation?: string;
};

/**
 * A data subject's keys exactly as a store keeps them (see `SubjectKeyStore`):
 * every version, `null` for a destroyed one (a forgotten subject has only
 * `null`s), and the streams holding the subject's data, whose snapshots a
 * later `forget` empties.
 *
 * @experimental
 * @see [Personal data](/docs/guides/personal-data) — keys, rotation and forgetting.
 * @example
 * ```ts
 * const forgotten: SubjectRecord = { subject: "customer-7", keys: [null, null], streams: ["order-1"] };
 * ```
 */
export type SubjectRecord = {
  /** The data subject. */
  readonly subject: string;
  /** Each version's raw key in base64, version 1 first; `null` once destroyed. */
  readonly keys: ReadonlyArray<string | null>;
  /** The streams holding the subject's data, in byte order. */
  readonly streams: readonly string[];
};

/**
 * An archived event exactly as a store keeps it: the event, with its id,
 * version and creation time, and when it was archived (what retention
 * measures from).
 *
 * @experimental
 * @see [Archiving and retention](/docs/guides/archiving) — what moves to the archive and when it is purged.
 * @example
 * ```ts
 * const [first]: ArchivedRecord[] = await store().transfer!.archived(-1, 1);
 * console.log(first?.event.stream, new Date(first?.archived ?? 0));
 * ```
 */
export type ArchivedRecord = {
  /** The event, as the archive returns it. */
  readonly event: Committed<Schemas, string>;
  /** When it was archived (epoch ms). */
  readonly archived: number;
};

/**
 * Everything a store keeps beside its events: reaction streams, idempotency
 * keys, discovery positions, timers and the keys of data subjects, as rows.
 * Each list is ordered by its key (stream, stream and key, reaction, timer
 * id, subject), so two stores holding the same records give equal values.
 *
 * @experimental
 * @example
 * ```ts
 * const records: StoreRecords = await store().transfer!.records();
 * console.log(records.watermarks.length, "reaction streams");
 * ```
 */
export type StoreRecords = {
  /** Every reaction stream. */
  readonly watermarks: readonly WatermarkRecord[];
  /** Every idempotency key, expired ones included. */
  readonly keys: readonly KeyRecord[];
  /** How far correlation has gone, per reaction name. */
  readonly discovery: ReadonlyArray<{
    /** The reaction, as `"<event>/<reaction key>"`. */
    readonly reaction: string;
    /** The id of the last event correlated for it. */
    readonly at: number;
  }>;
  /** Every timer, in any status. */
  readonly timers: readonly TimerRecord[];
  /** Every data subject's keys, destroyed versions included (never print them). */
  readonly subjects: readonly SubjectRecord[];
};

/**
 * The part of the store port that copies a store into another one verbatim
 * (`copyStore`): events written with the ids, versions and times they
 * already have, and the records beside them written as they are. Optional on
 * `Store`: a store without it can be copied from (through `query` and this
 * port on the other side) only if it has it too.
 *
 * @experimental
 * @see [Moving and backing up a store](/docs/guides/moving-a-store) — copies a store into another one.
 * @example
 * ```ts
 * const transfer = store().transfer;
 * if (!transfer) throw new Error("this store cannot be copied into");
 * const { watermarks, timers } = await transfer.records();
 * console.log(`${watermarks.length} reaction streams, ${timers.length} timers`);
 * ```
 */
export interface StoreTransfer {
  /**
   * Writes `events` exactly as given — ids, streams, versions, names, data,
   * metadata and `created` — in one transaction, running no reaction and
   * announcing nothing. The store's last event (snapshots included) must be
   * `after` (-1: the store holds no event), and the ids must grow from there:
   * anything else is refused before a row is written, so two copies into one
   * store, or a page written twice, fail instead of mixing logs. New events
   * committed afterwards get ids above the highest written.
   *
   * @param events - the events, in id order, as `query` returns them (`with_snaps`)
   * @param after - the id of the store's last event, as the caller knows it (-1 when empty)
   * @throws {@link StoreError} (reason `"rejected"`) when the store's last event is not `after`, the ids do not grow, or the store cannot hold these ids
   */
  append(events: readonly Committed<Schemas, string>[], after: number): Promise<void>;
  /**
   * Every record beside the events, read in one consistent view.
   *
   * @returns the reaction streams, idempotency keys, discovery positions, timers and subject keys, each list ordered by its key
   */
  records(): Promise<StoreRecords>;
  /**
   * Writes `records` exactly as given, in one transaction.
   *
   * @param records - what `records()` of another store returned
   * @throws {@link StoreError} (reason `"rejected"`) when the store already holds a reaction stream, an idempotency key, a discovery position, a timer or a subject's key
   */
  restore(records: StoreRecords): Promise<void>;
  /**
   * A page of the archive (see `ArchiveStore`) in id order, each event with
   * its archiving time.
   *
   * @param after - the id to read after (-1: from the start)
   * @param limit - how many events at most
   * @returns the archived events after `after`, at most `limit`
   */
  archived(after: number, limit: number): Promise<ArchivedRecord[]>;
  /**
   * Writes archived events into the archive exactly as given — event fields
   * and archiving times — in one transaction. The archive's last event must
   * be `after` (-1: it is empty) and the ids must grow from there, as for
   * {@link StoreTransfer.append}; nothing of a refused page is written.
   *
   * @param events - the archived events, in id order, as `archived` returns them
   * @param after - the id of the archive's last event, as the caller knows it (-1 when empty)
   * @throws {@link StoreError} (reason `"rejected"`) when the archive's last event is not `after` or the ids do not grow
   */
  archive(events: readonly ArchivedRecord[], after: number): Promise<void>;
}
