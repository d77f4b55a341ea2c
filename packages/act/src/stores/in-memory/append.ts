/**
 * Appending events: `commit` and `commitInline` (whose handlers run before
 * the append, other commits waiting for asynchronous ones), and idempotency
 * keys (`recall`; an expired key is forgotten when it is looked up).
 */
import { ConcurrencyError } from "../../core/errors.js";
import { checkCommit, checkName } from "../../core/inputs.js";
import { copyJson } from "../../core/json.js";
import { SNAP_EVENT } from "../../core/schemas.js";
import type { Committed, Message, Schemas } from "../../types/action.js";
import type { InlineCommit, KeyedVersions } from "../../types/ports.js";
import type { Database, Event, StreamLog } from "./database.js";
import type { Notifier } from "./notify.js";

/** Commits, inline commits and idempotency keys of one store. */
export class Appender {
  /** The asynchronous work of the inline commit in progress, if any: commits wait for it. */
  #running?: Promise<unknown>;

  constructor(
    private readonly db: Database,
    private readonly notifier: Notifier,
    private readonly idempotencyMillis: number
  ) {}

  /** Checks and appends in one step, after any inline commit in progress. */
  async commit<E extends Schemas>(commit: InlineCommit<E>): Promise<Committed<E, keyof E>[]> {
    // No await between this check and the append: they must be one step.
    while (this.#running) await this.#running.catch(() => undefined);
    const staged = this.#stage(commit);
    staged.append();
    return staged.events;
  }

  /**
   * Checks, runs `work` with the events (other commits waiting while it
   * runs), then appends — together with `along`, the commit's other writes
   * (its timers), run in the same synchronous step as the append.
   */
  async commitInline<E extends Schemas>(
    commit: InlineCommit<E>,
    work: (events: Committed<E, keyof E>[], tx: undefined) => unknown,
    along?: () => void
  ): Promise<Committed<E, keyof E>[]> {
    // No await between this check and the append: they must be one step.
    while (this.#running) await this.#running.catch(() => undefined);
    const staged = this.#stage(commit);
    const result = work(staged.events, undefined);
    if (typeof (result as PromiseLike<unknown> | undefined)?.then === "function") {
      const running = Promise.resolve(result);
      this.#running = running;
      try {
        await running;
      } finally {
        this.#running = undefined;
      }
    }
    along?.();
    staged.append();
    return staged.events;
  }

  /** The versions committed under a key, unless it expired. */
  recall(stream: string, idempotencyKey: string): KeyedVersions | undefined {
    checkName("stream", stream);
    checkName("idempotency key", idempotencyKey);
    return this.#remembered(stream, idempotencyKey);
  }

  /**
   * Checks a commit and prepares its events, ids assigned; `append` (called
   * with no await in between) appends them. Synchronous: the check and the
   * append are one step.
   */
  #stage<E extends Schemas>(commit: InlineCommit<E>): { events: Committed<E, keyof E>[]; append: () => void } {
    checkCommit(commit);
    const { stream, messages, meta, expectedVersion, idempotencyKey, lastId, request } = commit;
    const db = this.db;
    const log = db.streams.get(stream);
    const lastVersion = log ? log.ids.length - 1 : -1;
    const used = idempotencyKey !== undefined && this.#remembered(stream, idempotencyKey) !== undefined;
    const rewritten = lastId !== undefined && log?.ids[lastVersion] !== lastId;
    if (used || rewritten || (expectedVersion !== undefined && expectedVersion !== lastVersion))
      throw new ConcurrencyError(
        stream,
        lastVersion,
        messages as Message<Schemas, string>[],
        expectedVersion ?? lastVersion
      );
    // Kept as every store keeps it, as JSON (a frozen copy equal to the JSON
    // text parsed back): what Postgres refuses is refused here (before
    // anything is appended), and what comes back has the same types.
    const copies = messages.map(({ name, data }) => ({
      name: name as string,
      data: copyJson(data, `data of event "${String(name)}"`),
    }));
    const frozenMeta = copyJson(meta, "meta");
    const created = new Date();
    const events = copies.map(
      ({ name, data }, i) =>
        Object.freeze({
          id: db.first + db.events.length + i,
          stream,
          version: lastVersion + 1 + i,
          created,
          name,
          data,
          meta: frozenMeta,
        }) as Event
    );
    const append = () => {
      const target: StreamLog = log ?? { ids: [], snaps: new Map() };
      if (!log) db.streams.set(stream, target);
      if (idempotencyKey !== undefined)
        db.keys.set(`${stream}\u0000${idempotencyKey}`, {
          from: lastVersion + 1,
          to: lastVersion + messages.length,
          expires: Date.now() + this.idempotencyMillis,
          ...(request !== undefined && { request }),
        });
      this.notifier.committed(events);
      for (const event of events) {
        const of = event.name === SNAP_EVENT ? (event.data as { of?: unknown } | null)?.of : undefined;
        if (typeof of === "string") target.snaps.set(of, event.version);
        db.events.push(event);
        target.ids.push(event.id);
      }
    };
    return { events: events as Committed<E, keyof E>[], append };
  }

  #remembered(stream: string, idempotencyKey: string): KeyedVersions | undefined {
    const key = `${stream}\u0000${idempotencyKey}`;
    const found = this.db.keys.get(key);
    if (!found) return undefined;
    if (found.expires <= Date.now()) {
      this.db.keys.delete(key);
      return undefined;
    }
    return found.request === undefined
      ? { from: found.from, to: found.to }
      : { from: found.from, to: found.to, request: found.request };
  }
}
