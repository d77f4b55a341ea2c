/**
 * `copyStore`: copies one store into another, verbatim — archive, log, and
 * the records beside them — in batches that each commit on their own, so
 * an interrupted copy continues where the target stopped; then checks both
 * logs, both archives and the records.
 */
import type { Committed, Schemas } from "../types/action.js";
import type { Store } from "../types/ports.js";
import type { ArchivedRecord, StoreTransfer } from "../types/transfer.js";
import { CopyError } from "./copy-error.js";
import { archivedText, compareLogs, type Difference, eventText, type LogDigest, page } from "./log-digest.js";
import { recordsDiffer } from "./records-diff.js";

/**
 * How {@link copyStore} runs.
 *
 * @experimental
 * @example
 * ```ts
 * const options: CopyOptions = { batch: 5_000, onProgress: (p) => console.log(p.phase, p.copied) };
 * ```
 */
export type CopyOptions = {
  /** Events per batch, each written in one transaction of the target (default 1,000; 1 to 65,536). */
  readonly batch?: number;
  /**
   * Called after each batch and at each phase: to print progress.
   *
   * @param progress - the phase, the events written by this run so far and the target's last id
   */
  readonly onProgress?: (progress: CopyProgress) => void;
};

/**
 * Where a copy is: which phase, and how many events it has written in this
 * run (and up to which id).
 *
 * @experimental
 * @example
 * ```ts
 * const print = ({ phase, copied, last }: CopyProgress) => console.log(`${phase}: ${copied} events, up to id ${last}`);
 * ```
 */
export type CopyProgress = {
  /**
   * `"archive"` while copying archived events, `"events"` while copying the
   * log, `"records"` while copying the records beside them, `"verify"` while
   * checking.
   */
  readonly phase: "archive" | "events" | "records" | "verify";
  /** Events written by this run so far (archived ones in the `"archive"` phase). */
  readonly copied: number;
  /** The id of the last event the target holds (-1: none), in its archive in the `"archive"` phase. */
  readonly last: number;
};

/**
 * What {@link copyStore} did: the events it wrote in this run, where it
 * started (after an interrupted copy, the target's last event), the digest
 * both logs (and archives) share, and how many records it copied.
 *
 * @experimental
 * @example
 * ```ts
 * const report: CopyReport = await copyStore(new InMemoryStore(), new InMemoryStore());
 * console.log(`${report.copied} events copied, ${report.log.events} in the log, ${report.log.digest}`);
 * ```
 */
export type CopyReport = {
  /** Events written by this run. */
  readonly copied: number;
  /** Archived events written by this run. */
  readonly archived: number;
  /** The id of the target's last event when this run started (-1: the target was empty). */
  readonly resumedAfter: number;
  /** The digest of the log (and of the archive, when it holds events), equal on both sides. */
  readonly log: LogDigest;
  /** How many records were copied (0 each when an earlier run had copied them). */
  readonly records: {
    /** Reaction streams. */
    readonly watermarks: number;
    /** Idempotency keys. */
    readonly keys: number;
    /** Discovery positions. */
    readonly discovery: number;
    /** Timers. */
    readonly timers: number;
    /** Data subjects, each with every version of its key. */
    readonly subjects: number;
  };
};

/** How an event is named in messages. */
const describe = (e: Committed<Schemas, string>) =>
  `id ${e.id} ("${e.name}", version ${e.version} of "${e.stream}", created ${e.created.toISOString()})`;

/** The transfer port of a store, or a clear refusal. */
function transferOf(store: Store, side: string): StoreTransfer {
  if (!store.transfer)
    throw new CopyError(
      `copyStore: the ${side} store (${store.constructor.name}) has no transfer port (Store.transfer), so it cannot be copied ${side === "source" ? "from" : "into"}`
    );
  return store.transfer;
}

/** The message for logs that differ. */
function mismatch(
  { position, source, target, archived }: Difference,
  digests: { source: LogDigest; target: LogDigest }
) {
  const what = archived ? "archives" : "logs";
  const where = `the ${what} first differ at event #${position}: the source has ${source ? describe(source) : "no event"}, the target ${target ? describe(target) : "no event"}`;
  const sums = (d: LogDigest) =>
    `${d.events} events, ${d.digest}${d.archive ? `; archive ${d.archive.events} events, ${d.archive.digest}` : ""}`;
  return new CopyError(
    `copyStore: the copy does not match its source (source ${sums(digests.source)}; target ${sums(digests.target)}); ${where}. ` +
      "Was an app still writing to the source? Stop every app on both stores, empty the target (drop and seed) and copy again.",
    position,
    (source ?? target)?.id
  );
}

/**
 * Copies every archived event of `from` into the archive of `to`, with
 * its archiving time, then every event of the log with the ids, versions,
 * creation times and metadata they have — snapshots included — then the
 * records beside them: each reaction stream's watermark, retries, blocked
 * state and error, the discovery positions, the idempotency keys with the
 * versions they committed, the timers (every field), and the keys of data
 * subjects (every version, destroyed ones too, and the streams holding
 * each subject's data). An app started on `to` continues where the apps
 * on `from` were: no reaction runs again for an event already handled, a
 * retried idempotent action returns its first outcome, each pending timer
 * fires once, personal fields read as they did (a forgotten subject stays
 * forgotten), and closed streams load as they did.
 *
 * Events go in batches (`batch`), each written in one transaction of the
 * target, which refuses a batch that does not follow its last event (its
 * archive's, for archived events). Run it again after a crash and it
 * continues after the target's last archived event and last event. The
 * records go last, in one transaction: they point at events, and a target
 * holding them is a finished copy, so a target with events and no records
 * is always an interrupted one. At the end both logs and both archives are
 * read side by side and hashed ({@link logDigest}); a difference throws a
 * {@link CopyError} saying where they first differ. Subject keys are
 * compared too, and never printed.
 *
 * Stop the apps writing to `from` first: a log that moves during the copy
 * fails the check. `to` is seeded; it must be empty, or hold an
 * interrupted copy of `from`. Both stores need the `transfer` port
 * (`InMemoryStore`, `SqliteStore`, `PostgresStore`); an in-memory target
 * takes only a log with no gaps in its ids but archived ones (another
 * in-memory store's).
 *
 * @experimental
 * @param from - the store to copy
 * @param to - the store to copy into: empty, or holding an interrupted copy of `from`
 * @param options - batch size and progress callback
 * @returns how many events and archived events this run wrote, where it started, the digest and how many records it copied
 * @throws {@link CopyError} when `to` holds another log or records of its own, or the copy does not match `from`
 * @throws {@link StoreError} when a store fails (the batch in flight is rolled back: run the copy again)
 * @see [Moving and backing up a store](/docs/guides/moving-a-store) — moves SQLite to PostgreSQL step by step.
 * @example
 * ```ts
 * import { copyStore } from "@act-root/act";
 * import { PostgresStore } from "@act-root/act-pg";
 * import { SqliteStore } from "@act-root/act-sqlite";
 *
 * const from = new SqliteStore({ filename: "./app.db" });
 * const to = new PostgresStore({ connectionString: process.env.DATABASE_URL });
 * const report = await copyStore(from, to, { onProgress: (p) => console.log(p.phase, p.copied) });
 * console.log(`${report.log.events} events, ${report.log.digest}`);
 * ```
 */
export async function copyStore(from: Store, to: Store, options: CopyOptions = {}): Promise<CopyReport> {
  const batch = options.batch ?? 1000;
  if (!Number.isSafeInteger(batch) || batch < 1 || batch > 65_536)
    throw new CopyError(`copyStore: batch must be a whole number from 1 to 65,536, got ${String(batch)}`);
  if (from === to) throw new CopyError("copyStore: the source and the target are the same store");
  const source = transferOf(from, "source");
  const target = transferOf(to, "target");
  const progress = options.onProgress ?? (() => {});
  await to.seed();

  // The archive goes first: its events are older than the log's that
  // follow them, and a store that numbers its log without gaps (in memory)
  // needs to know which ids moved there.
  const archived = await copyArchive(from, to, source, target, batch, progress);

  // Where to start: an empty target, or the end of an interrupted copy —
  // whose last event must be the source's event with that id.
  const found: Committed<Schemas, string>[] = [];
  await to.query<Schemas>((e) => found.push(e as Committed<Schemas, string>), {
    backward: true,
    limit: 1,
    with_snaps: true,
  });
  const last = found[0];
  let kept = await target.records();
  const hasRecords = Object.values(kept).some((rows) => rows.length > 0);
  let after = -1;
  if (last) {
    const same: Committed<Schemas, string>[] = [];
    await from.query<Schemas>((e) => same.push(e as Committed<Schemas, string>), { ids: [last.id], with_snaps: true });
    if (!same.length || eventText(same[0]) !== eventText(last))
      throw new CopyError(
        `copyStore: the target is not empty and is not a copy of the source: its last event, ${describe(last)}, ${same.length ? `differs from the source's (${describe(same[0])})` : "is not in the source"}. Copy into an empty store.`,
        undefined,
        last.id
      );
    after = last.id;
  } else if (hasRecords)
    throw new CopyError(
      "copyStore: the target holds no event but has reaction streams, idempotency keys, discovery positions, timers or subject keys of its own. Copy into an empty store (drop and seed it)."
    );
  const resumedAfter = after;

  let copied = 0;
  progress({ phase: "events", copied, last: after });
  // The next page is read while the current one is written: the two stores wait on different things.
  let next = page(from, after, batch);
  for (;;) {
    const events = await next;
    if (!events.length) break;
    next = page(from, events[events.length - 1].id, batch);
    next.catch(() => {}); // a failed read is reported when it is awaited, not as unhandled
    await target.append(events, after);
    after = events[events.length - 1].id;
    copied += events.length;
    progress({ phase: "events", copied, last: after });
  }

  // The records go after every event: watermarks, discovery positions and
  // key versions point at events, so written first they would claim work
  // done on events the target does not hold yet; and written last, in one
  // transaction, they mark the copy as finished.
  progress({ phase: "records", copied, last: after });
  const records = await source.records();
  let restored = { watermarks: 0, keys: 0, discovery: 0, timers: 0, subjects: 0 };
  if (!hasRecords) {
    await target.restore(records);
    restored = {
      watermarks: records.watermarks.length,
      keys: records.keys.length,
      discovery: records.discovery.length,
      timers: records.timers.length,
      subjects: records.subjects.length,
    };
    kept = await target.records();
  }
  const differ = recordsDiffer(records, kept);
  if (differ)
    throw new CopyError(
      `copyStore: the target's records do not match the source's: ${differ}. Was an app running on either store? Stop every app, empty the target (drop and seed) and copy again.`
    );

  progress({ phase: "verify", copied, last: after });
  const { difference, ...digests } = await compareLogs(from, to);
  if (difference) throw mismatch(difference, digests);
  return { copied, archived, resumedAfter, log: digests.source, records: restored };
}

/**
 * Copies the archive, in batches, after the target archive's last event
 * (which must be the source's archived event with that id); returns how
 * many archived events this run wrote.
 */
async function copyArchive(
  from: Store,
  to: Store,
  source: StoreTransfer,
  target: StoreTransfer,
  batch: number,
  progress: (p: CopyProgress) => void
): Promise<number> {
  const first = from.archive ? await source.archived(-1, 1) : [];
  const found: Committed<Schemas, string>[] = [];
  await to.archive?.query<Schemas>((e) => found.push(e as Committed<Schemas, string>), {
    backward: true,
    limit: 1,
    with_snaps: true,
  });
  if (!first.length && !found.length) return 0;
  if (!to.archive)
    throw new CopyError(
      `copyStore: the source has archived events, but the target store (${to.constructor.name}) has no archive (Store.archive) to copy them into`
    );
  let after = -1;
  const last = found[0];
  if (last) {
    const [kept] = await target.archived(last.id - 1, 1);
    const [same] = await source.archived(last.id - 1, 1);
    if (!kept || !same || same.event.id !== last.id || archivedText(same) !== archivedText(kept))
      throw new CopyError(
        `copyStore: the target's archive is not a copy of the source's: its last archived event, ${describe(last)}, ${same?.event.id === last.id ? `differs from the source's (${describe(same.event)}) or its archiving time` : "is not in the source's archive"}. Copy into an empty store.`,
        undefined,
        last.id
      );
    after = last.id;
  }
  let copied = 0;
  progress({ phase: "archive", copied, last: after });
  let next = source.archived(after, batch);
  for (;;) {
    const events: ArchivedRecord[] = await next;
    if (!events.length) return copied;
    next = source.archived(events[events.length - 1].event.id, batch);
    next.catch(() => {}); // a failed read is reported when it is awaited, not as unhandled
    await target.archive(events, after);
    after = events[events.length - 1].event.id;
    copied += events.length;
    progress({ phase: "archive", copied, last: after });
  }
}
