/**
 * Appending events: `commit` (one statement on the pool), `commitInline` (the
 * same statement inside a transaction that also runs the inline projections'
 * writes), idempotency keys (`recall`, and the purge of expired ones). The
 * statements are `commit`, `commitChecked`, `lastVersion`, `recall` and `purgeKeys` in `sql.ts`
 * (`Database.statements.commit` holds each commit statement by what it checks).
 */
import {
  type Committed,
  ConcurrencyError,
  type InlineCommit,
  type KeyedVersions,
  type Message,
  type Schemas,
} from "@act-root/act";
import { checkCommit, checkName, stringifyJson } from "@act-root/act/internal";
import type pg from "pg";
import type { Database } from "./database.js";
import type { DriverError } from "./errors.js";
import type { IdCheck } from "./lifecycle.js";
import type { Notifier, Ride } from "./notify.js";
import { MAX_EVENTS_PER_COMMIT } from "./sql.js";

/** Expired idempotency keys are purged at most this often, and at most this many at a time. */
const PURGE_EVERY_MILLIS = 60_000;
const PURGE_BATCH = 10_000;

/** Row of the commit statements (`commitChecked`'s rows have only `id`, `version` and `created`). */
type CommitRow = {
  last?: number;
  last_id?: number | null;
  id: number | null;
  version: number | null;
  /** Epoch milliseconds, as the reads return it: cheaper to turn into a `Date` than timestamp text. */
  created: number | null;
};

/** A statement runner: the pool's (`Database.run`) or a transaction client's. */
type Run = (operation: string, text: string, values: unknown[]) => Promise<pg.QueryResult<any>>;

/** Commits, inline commits and idempotency keys of one store. */
export class Appender {
  /** When expired idempotency keys were last purged (0: not yet), and the purge in flight. */
  #purgedAt = 0;
  #purging?: Promise<void>;

  constructor(
    private readonly db: Database,
    private readonly ids: IdCheck,
    private readonly notifier: Notifier
  ) {}

  /** Appends in one statement, trying again (at most 10 times) when a commit with nothing to check collides. */
  async commit<E extends Schemas>(commit: InlineCommit<E>): Promise<Committed<E, keyof E>[]> {
    const operation = this.#checkCommit(commit);
    for (let attempt = 0; ; attempt++) {
      const done = await this.#append(operation, commit, this.db.run.bind(this.db), attempt);
      if (!done) continue;
      if (done.events.length) this.notifier.committed(done.events, done.ride);
      return done.events;
    }
  }

  /** Appends on one pooled client between `BEGIN` and `COMMIT`, running `work` before `COMMIT`. */
  async commitInline<E extends Schemas>(
    commit: InlineCommit<E>,
    work: (events: Committed<E, keyof E>[], client: pg.PoolClient) => unknown
  ): Promise<Committed<E, keyof E>[]> {
    const operation = this.#checkCommit(commit);
    // Before taking a connection: the check runs on the pool, and with every
    // connection held (a pool of one) it would wait for this one.
    await this.ids.check(operation);
    for (let attempt = 0; ; attempt++) {
      const client = await this.db.connect(operation);
      // A connection that failed mid-transaction is closed rather than reused.
      let broken: Error | undefined;
      let handler = false;
      let ride: Ride | undefined;
      try {
        await client.query(this.db.begin());
        const run = (what: string, text: string, values: unknown[]) =>
          client.query({ name: this.db.name(text), text, values }).catch(async (error: DriverError) => {
            // A collision aborts the transaction: end it, so the stream's version can be read on this client
            // (in a new one, which sets the tenant of shared tables again; the paths after it roll it back).
            if (error.code === "23505") await client.query(`ROLLBACK; ${this.db.begin()}`);
            throw this.db.failure(what, error);
          });
        const done = await this.#append(operation, commit, run as never, attempt, true);
        if (!done) {
          await client.query("ROLLBACK");
          continue;
        }
        handler = true;
        ride = done.ride;
        await work(done.events, client);
        handler = false;
        await client.query("COMMIT");
        if (done.events.length) this.notifier.committed(done.events, done.ride);
        return done.events;
      } catch (error) {
        // Rolled back (or unknown): what the commit was to announce for earlier commits is announced later.
        this.notifier.failed(ride);
        await client.query("ROLLBACK").catch((lost: Error) => {
          broken = lost;
        });
        throw handler ? error : this.db.failure(operation, error as DriverError);
      } finally {
        client.release(broken);
      }
    }
  }

  /** The versions committed under a key, unless it expired. */
  async recall(stream: string, idempotencyKey: string): Promise<KeyedVersions | undefined> {
    checkName("stream", stream);
    checkName("idempotency key", idempotencyKey);
    const { rows } = await this.db.run<{ from_version: number; to_version: number; request: string | null }>(
      `recall of "${stream}"`,
      this.db.statements.recall,
      [stream, idempotencyKey]
    );
    if (!rows.length) return undefined;
    const [{ from_version: from, to_version: to, request }] = rows;
    return request === null ? { from, to } : { from, to, request };
  }

  /** For `dispose`: waits for the purge in flight, if any. */
  async purged(): Promise<void> {
    await this.#purging;
  }

  /** Checks a commit's arguments and sizes; returns the operation's name for errors. */
  #checkCommit<E extends Schemas>(commit: InlineCommit<E>): string {
    checkCommit(commit);
    const { stream, messages } = commit;
    const operation = `commit to "${stream}"`;
    if (messages.length > MAX_EVENTS_PER_COMMIT)
      throw new RangeError(
        `PostgresStore ${operation}: at most ${MAX_EVENTS_PER_COMMIT} events per commit, got ${messages.length}`
      );
    return operation;
  }

  /**
   * Runs the commit statement once with `run` (the pool, or a transaction's
   * client). Returns the events, or `undefined` when a concurrent commit took
   * the same version and, with nothing to check and fewer than 10 attempts
   * made, the caller should try again. `transaction`: `run` is a
   * transaction's, which a refusal rolls back (with the notification the
   * statement may carry).
   */
  async #append<E extends Schemas>(
    operation: string,
    { stream, messages, meta, expectedVersion, idempotencyKey, lastId, request }: InlineCommit<E>,
    run: Run,
    attempt: number,
    transaction = false
  ): Promise<{ events: Committed<E, keyof E>[]; ride?: Ride } | undefined> {
    const encoded = stringifyJson(
      messages.map(({ name, data }) => ({ name, data })),
      `PostgresStore ${operation}: messages`
    );
    const metaText = stringifyJson(meta, `PostgresStore ${operation}: meta`);
    await this.ids.check(operation);
    const conflict = (lastVersion: number) =>
      new ConcurrencyError(stream, lastVersion, messages as Message<Schemas, string>[], expectedVersion ?? lastVersion);
    let rows: CommitRow[];
    // The store's notification, when one is due, goes in this statement (see `Notifier`).
    const ride = this.notifier.ride(messages.map(({ name }) => name));
    // A caller that says where the stream ends (an app's action always does)
    // gets the statement that does not read the stream's last event first.
    const checked =
      idempotencyKey === undefined &&
      messages.length > 0 &&
      expectedVersion !== undefined &&
      (expectedVersion === -1 ? lastId === undefined : lastId !== undefined);
    try {
      const { statements } = this.db;
      const values: unknown[] = [stream, encoded, metaText, expectedVersion ?? null, lastId ?? null];
      if (idempotencyKey !== undefined)
        values.push(idempotencyKey, this.db.settings.idempotencyMillis, request ?? null);
      if (ride) values.push(this.db.names.channel, ride.payload);
      const kind = checked ? "checked" : idempotencyKey === undefined ? "plain" : "keyed";
      const text = statements.commit[kind][ride ? "announcing" : "quiet"];
      ({ rows } = await run(operation, text, values));
    } catch (error) {
      this.notifier.failed(ride);
      // 23505: a concurrent commit took the same (stream, version) or key first.
      if ((error as DriverError).code !== "23505") throw error;
      // Without an expected version there is no check to fail: a collision with
      // a concurrent commit just means "try again on top of it".
      if (expectedVersion === undefined && idempotencyKey === undefined && lastId === undefined && attempt < 10)
        return undefined;
      throw conflict(await this.#lastVersion(operation, stream, run));
    }
    if (checked && !rows.length) {
      // Refused without inserting: the statement may not have sent its
      // notification, so what it was to announce is announced later.
      this.notifier.failed(ride);
      throw conflict(await this.#lastVersion(operation, stream, run));
    }
    // The other statements return the stream's end, checked here.
    const last = rows[0].last;
    const refused =
      last !== undefined &&
      ((expectedVersion !== undefined && last !== expectedVersion) ||
        // Same version, another event: the stream was dropped and written again.
        (lastId !== undefined && rows[0].last_id !== lastId) ||
        // Nothing inserted although the version matched: the key is taken.
        (rows[0].id === null && messages.length > 0));
    if (refused) {
      // On its own the statement was committed, and its notification sent;
      // in a transaction the refusal rolls both back.
      if (transaction) this.notifier.failed(ride);
      throw conflict(last);
    }
    if (idempotencyKey !== undefined) this.#purgeExpiredKeys();
    // Every event of a commit has the transaction's time.
    const created = rows[0].created ?? Date.now();
    // The data as the database keeps it (what a read returns), from the text already sent.
    const stored = JSON.parse(encoded) as { data: unknown }[];
    return {
      ride,
      events: messages.map(({ name }, i) => ({
        id: rows[i].id!,
        stream,
        version: rows[i].version!,
        created: new Date(created),
        name,
        data: stored[i].data,
        meta: JSON.parse(metaText),
      })) as Committed<E, keyof E>[],
    };
  }

  /** The stream's last version, for the error of a refused commit (read with the commit's `run`). */
  async #lastVersion(operation: string, stream: string, run: Run): Promise<number> {
    const { rows } = await run(operation, this.db.statements.lastVersion, [stream]);
    return rows[0].v as number;
  }

  /**
   * Deletes expired idempotency keys, so the keys table does not grow for
   * ever. It runs after a keyed commit, at most once per `PURGE_EVERY_MILLIS`,
   * as a statement of its own that the commit does not wait for, and removes
   * at most `PURGE_BATCH` keys each time (the expiry index finds them). An
   * expired key that is still there is ignored anyway (`recall` and the commit
   * check `expires`), so a purge that fails or falls behind changes nothing
   * but the table's size.
   */
  #purgeExpiredKeys(): void {
    const now = Date.now();
    if (this.#purging || now - this.#purgedAt < PURGE_EVERY_MILLIS) return;
    this.#purgedAt = now;
    this.#purging = this.db
      .background(
        "purge of expired idempotency keys",
        this.db.statements.purgeKeys,
        [PURGE_BATCH],
        "act-pg: could not purge expired idempotency keys; trying again later"
      )
      .finally(() => {
        this.#purging = undefined;
      });
  }
}
