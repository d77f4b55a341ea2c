/**
 * Appending events: `commit` and `commitInline` (one write transaction that
 * takes the lock before reading the stream's version, running the inline
 * projections' writes inside it), and idempotency keys (`recall`, and the
 * purge of expired ones). The statements are `SQL.lastVersion`, `insert`,
 * `recall`, `remember` and `purgeKeys` in `schema.ts`.
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
import { type Database, synchronously } from "./database.js";
import type { Connection } from "./driver.js";
import type { Notifier } from "./notify.js";
import { SQL } from "./schema.js";

/** Commits, inline commits and idempotency keys of one store. */
export class Appender {
  #keysPurgedAt = 0;

  constructor(
    private readonly db: Database,
    private readonly notifier: Notifier
  ) {}

  /** `commit`, with `work` run inside its transaction when given. */
  commit<E extends Schemas>(
    commit: InlineCommit<E>,
    work?: (events: Committed<E, keyof E>[], db: Connection) => unknown
  ): Committed<E, keyof E>[] {
    checkCommit(commit);
    const { stream, messages, meta, expectedVersion, idempotencyKey, lastId, request } = commit;
    const operation = `commit to "${stream.length > 80 ? `${stream.slice(0, 80)}…` : stream}"`;
    const encoded = messages.map(({ name, data }) =>
      stringifyJson(data, `SqliteStore ${operation}: data of event "${String(name)}"`)
    );
    const metaText = stringifyJson(meta, `SqliteStore ${operation}: meta`);
    const lastVersion = this.db.statement(operation, SQL.lastVersion);
    const insert = this.db.statement(operation, SQL.insert);
    const keyed = idempotencyKey !== undefined;
    const recall = keyed ? this.db.statement(operation, SQL.recall) : undefined;
    const remember = keyed ? this.db.statement(operation, SQL.remember) : undefined;
    const now = Date.now();
    const created = new Date(now);
    let thrown: { error: unknown } | undefined;
    const write = () =>
      this.db.write(operation, () => {
        const row = lastVersion.row(stream);
        const last = Number(row?.[0] ?? -1);
        if (
          (expectedVersion !== undefined && expectedVersion !== last) ||
          // The stream was dropped and written again up to the caller's version: not the state it knows.
          (lastId !== undefined && Number(row?.[1] ?? Number.NaN) !== lastId) ||
          (keyed && recall!.row(stream, idempotencyKey, now) !== undefined)
        )
          throw new ConcurrencyError(stream, last, messages as Message<Schemas, string>[], expectedVersion ?? last);
        if (keyed) {
          remember!.run(
            stream,
            idempotencyKey,
            last + 1,
            last + messages.length,
            now + this.db.settings.idempotencyMillis,
            request ?? null
          );
          this.#purgeKeys(operation, now);
        }
        const events = messages.map(({ name }, i) => ({
          id: Number(insert.row(stream, last + 1 + i, name, encoded[i], metaText, now)![0]),
          stream,
          version: last + 1 + i,
          created,
          name,
          data: JSON.parse(encoded[i]),
          meta: JSON.parse(metaText),
        })) as Committed<E, keyof E>[];
        if (work)
          try {
            synchronously(
              this.db.handle(operation, (handed) => work(events, handed)),
              "inline projection handlers"
            );
          } catch (error) {
            thrown = { error };
            throw error;
          }
        return events;
      });
    let committed: Committed<E, keyof E>[];
    try {
      committed = write();
    } catch (error) {
      // The handler's own error, not a store failure wrapping it.
      throw thrown ? thrown.error : error;
    }
    if (committed.length) this.notifier.committed(committed);
    return committed;
  }

  /** The versions committed under a key, unless it expired. */
  recall(stream: string, idempotencyKey: string): KeyedVersions | undefined {
    checkName("stream", stream);
    checkName("idempotency key", idempotencyKey);
    const [row] = this.db.read(`recall of "${stream}"`, SQL.recall, stream, idempotencyKey, Date.now());
    if (!row) return undefined;
    const range = { from: Number(row[0]), to: Number(row[1]) };
    return row[2] === null || row[2] === undefined ? range : { ...range, request: String(row[2]) };
  }

  /** Deletes expired idempotency keys, at most once a minute (inside a keyed commit's transaction). */
  #purgeKeys(operation: string, now: number) {
    if (now - this.#keysPurgedAt < 60_000) return;
    this.#keysPurgedAt = now;
    this.db.statement(operation, SQL.purgeKeys).run(now);
  }
}
