import type { Committed, Message, Schemas } from "../types/action.js";
import { ConcurrencyError, ValidationError } from "../errors.js";
import type { InlineCommit, KeyedVersions, ReactionFilter, ReactionStream, Store } from "../types/ports.js";
import type { BlockedLease, Lease, Poll } from "../types/reaction.js";
import { type EventMeta, type Query, QuerySchema, SNAP_EVENT, StreamSchema } from "../schemas.js";
import { checkCommit, checkDiscovery, checkName, checkOptions, OptionSchemas } from "../inputs.js";
import { copyJson } from "../json.js";
import { upper, validate } from "../utils.js";

type Event = Committed<Schemas, string>;

/** A stream's events (by global id) and where each state's latest snapshot is (index in `ids`). */
type StreamLog = { ids: number[]; snaps: Map<string, number> };

/** A reaction stream's watermark and lease. */
type Watermark = {
  stream: string;
  source?: string;
  at: number;
  retry: number;
  /** Reactions already run on the partly handled event after `at`. */
  done: string[];
  /** The last event correlation found reacting into this stream: there is work while it is past `at`. */
  head: number;
  /** The reactions that target this stream: only apps that have them all lease it. */
  reactions: Set<string>;
  /** Reactions that handled the stream past `at` (it moved back for one that joined late): the last event each handled. */
  ahead: Record<string, number>;
  /** The lease's generation: a new lease, `reset` and `unblock` move it on. */
  token: number;
  blocked: boolean;
  error?: string;
  by?: string;
  /** End of the lease, or of the backoff before a retry (0: none). */
  until: number;
};

/**
 * The default {@link Store}: events and watermarks in process memory. It is
 * exact (stream names match exactly), costs O(1) amortised per commit and
 * O(events read) per query, and adds no artificial delay. Everything is lost
 * when the process ends — use it for tests, examples and the browser.
 *
 * It keeps data as JSON, like `PostgresStore`: it refuses what JSON cannot
 * hold (functions, bigints, maps, class instances, cycles…) with the same
 * error, and a date comes back as its ISO string (the app restores dates
 * where an event's schema declares them). The events it hands out are
 * frozen: changing one cannot change the log.
 *
 * @see [Event sourcing](/docs/concepts/event-sourcing#the-two-stores) — compares the two stores.
 * @example
 * ```ts
 * const memory = new InMemoryStore();
 * store(memory);
 * ```
 */
export class InMemoryStore implements Store {
  /** The log: the event with id `first + i` at index `i`. */
  private events: Event[] = [];
  /**
   * Id of the first event in the log. Ids are never reused, not even after
   * `drop()` (as in PostgreSQL), so an app that remembers how far it has read
   * the log never mistakes new events for ones it has already seen.
   */
  private first = 0;
  private streams = new Map<string, StreamLog>();
  private watermarks = new Map<string, Watermark>();
  /**
   * The watermarks with work (`head` past `at`, not blocked), kept in step
   * by every change to those fields: `poll` looks only at these, so the
   * reaction streams that have caught up cost a drain nothing, as the
   * partial index of the database stores does.
   */
  private pending = new Set<Watermark>();
  /** Told after each commit (see `subscribe`). */
  private listeners = new Set<(names?: readonly string[]) => void>();
  /** Idempotency keys by stream and key: the versions committed under each, and when the key expires. */
  private keys = new Map<string, { from: number; to: number; expires: number; request?: string }>();
  /** The asynchronous work of the inline commit in progress, if any: commits wait for it. */
  private running?: Promise<unknown>;
  /** How far correlation has gone, by reaction name (see `discover`). */
  private discoveries = new Map<string, number>();

  /**
   * @param options - the store's settings; all optional
   * @throws {@link ValidationError} naming an option that is not a whole number of at least 1
   */
  constructor(
    private readonly options: {
      /** How long an idempotency key is remembered, in ms (default 24 hours; a whole number, at least 1). */
      idempotencyMillis?: number;
    } = {}
  ) {
    checkOptions("store", options, OptionSchemas.store);
  }

  private get idempotencyMillis() {
    return this.options.idempotencyMillis ?? 24 * 3600 * 1000;
  }

  /** Nothing to create. */
  async seed(): Promise<void> {}

  /** Forgets every event, watermark, idempotency key and discovery position; ids go on from where they were. */
  async drop(): Promise<void> {
    this.first += this.events.length;
    this.events = [];
    this.streams = new Map();
    this.watermarks = new Map();
    this.pending = new Set();
    this.keys = new Map();
    this.discoveries = new Map();
  }

  /** Same as {@link InMemoryStore.drop}. */
  async dispose(): Promise<void> {
    await this.drop();
  }

  async commit<E extends Schemas>(
    stream: string,
    messages: Message<E, keyof E>[],
    meta: EventMeta,
    expectedVersion?: number,
    idempotencyKey?: string,
    lastId?: number,
    request?: string
  ): Promise<Committed<E, keyof E>[]> {
    // No await between this check and the append: they must be one step.
    while (this.running) await this.running.catch(() => undefined);
    const staged = this.stage({ stream, messages, meta, expectedVersion, idempotencyKey, lastId, request });
    staged.append();
    return staged.events;
  }

  /**
   * Commits like `commit`, running `work` with the events (ids assigned)
   * before they are appended: a throw from `work` appends nothing and is
   * rethrown as it is. There is no transaction to undo what `work` wrote
   * before throwing, and `tx` is `undefined`. While a `work` that returns a
   * promise runs, other commits to this store wait for it, as they would
   * for a database transaction holding the ids.
   *
   * @param commit - the arguments of `commit`, by name
   * @param work - the inline projections' handlers
   * @returns the committed events
   * @throws ConcurrencyError as `commit` does
   * @example
   * ```ts
   * const titles = new Map<number, string>();
   * await new InMemoryStore().commitInline(
   *   { stream: "t-1", messages: [{ name: "Opened", data: { title: "Printer" } }], meta: { correlation: "c", causation: {} } },
   *   (events) => void titles.set(events[0].id, "Printer")
   * );
   * ```
   */
  async commitInline<E extends Schemas>(
    commit: InlineCommit<E>,
    work: (events: Committed<E, keyof E>[], tx: undefined) => unknown
  ): Promise<Committed<E, keyof E>[]> {
    // No await between this check and the append: they must be one step.
    while (this.running) await this.running.catch(() => undefined);
    const staged = this.stage(commit);
    const result = work(staged.events, undefined);
    if (typeof (result as PromiseLike<unknown> | undefined)?.then === "function") {
      const running = Promise.resolve(result);
      this.running = running;
      try {
        await running;
      } finally {
        this.running = undefined;
      }
    }
    staged.append();
    return staged.events;
  }

  /**
   * Checks a commit and prepares its events, ids assigned; `append` (called
   * with no await in between) appends them. Synchronous: the check and the
   * append are one step.
   */
  private stage<E extends Schemas>({
    stream,
    messages,
    meta,
    expectedVersion,
    idempotencyKey,
    lastId,
    request,
  }: InlineCommit<E>): { events: Committed<E, keyof E>[]; append: () => void } {
    checkCommit(stream, messages, meta, expectedVersion, idempotencyKey, lastId, request);
    const log = this.streams.get(stream);
    const lastVersion = log ? log.ids.length - 1 : -1;
    const used = idempotencyKey !== undefined && this.remembered(stream, idempotencyKey) !== undefined;
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
          id: this.first + this.events.length + i,
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
      if (!log) this.streams.set(stream, target);
      if (idempotencyKey !== undefined)
        this.keys.set(`${stream}\u0000${idempotencyKey}`, {
          from: lastVersion + 1,
          to: lastVersion + messages.length,
          expires: Date.now() + this.idempotencyMillis,
          ...(request !== undefined && { request }),
        });
      if (this.listeners.size) {
        const names = [...new Set(events.map(({ name }) => name as string))];
        queueMicrotask(() => {
          for (const listener of this.listeners) listener(names);
        });
      }
      for (const event of events) {
        const of = event.name === SNAP_EVENT ? (event.data as { of?: unknown } | null)?.of : undefined;
        if (typeof of === "string") target.snaps.set(of, event.version);
        this.events.push(event);
        target.ids.push(event.id);
      }
    };
    return { events: events as Committed<E, keyof E>[], append };
  }

  async query<E extends Schemas>(callback: (event: Committed<E, keyof E>) => void, query: Query = {}): Promise<number> {
    const {
      stream,
      names,
      ids: wanted,
      before,
      after,
      limit,
      created_before,
      created_after,
      backward,
      correlation,
      with_snaps,
      from_snapshot,
    } = validate("query", query, QuerySchema);
    if (stream !== undefined) validate("stream", stream, StreamSchema);
    // Candidates: one stream's ids, or the whole log (where index = id - first).
    let ids: number[] | undefined;
    let start = 0;
    let end = this.events.length;
    if (stream !== undefined) {
      const log = this.streams.get(stream);
      if (!log) return 0;
      ids = log.ids;
      end = ids.length;
      if (from_snapshot !== undefined) start = log.snaps.get(from_snapshot) ?? 0;
      if (after !== undefined) start = Math.max(start, upper(ids, after));
      if (before !== undefined) end = Math.min(end, upper(ids, before - 1));
    } else {
      if (after !== undefined) start = Math.max(0, after + 1 - this.first);
      if (before !== undefined) end = Math.min(end, Math.max(0, before - this.first));
    }
    if (wanted) {
      // Named ids: only those within the range found above, in id order.
      const low = ids ? ids[start] : start + this.first;
      const high = ids ? ids[end - 1] : end - 1 + this.first;
      const picked = [...new Set(wanted)].filter((id) => id >= low && id <= high).sort((a, b) => a - b);
      ids = ids ? picked.filter((id) => this.events[id - this.first].stream === stream) : picked;
      start = 0;
      end = ids.length;
    }
    const include = (e: Event) =>
      (with_snaps || from_snapshot !== undefined || e.name !== SNAP_EVENT) &&
      (!names || names.includes(e.name)) &&
      (!created_before || e.created < created_before) &&
      (!created_after || e.created > created_after) &&
      (!correlation || e.meta.correlation === correlation);
    let count = 0;
    const max = limit ?? Number.POSITIVE_INFINITY;
    for (let i = 0; i < end - start && count < max; i++) {
      const index = backward ? end - 1 - i : start + i;
      const event = this.events[ids ? ids[index] - this.first : index];
      if (include(event)) {
        callback(event as Committed<E, keyof E>);
        count++;
      }
    }
    return count;
  }

  async poll(lagging: number, leading: number, reactions?: readonly string[]): Promise<Poll[]> {
    const now = Date.now();
    const owned = reactions && new Set(reactions);
    const ready: Watermark[] = [];
    for (const w of this.pending)
      if (w.until <= now && (!owned || [...w.reactions].every((r) => owned.has(r)))) ready.push(w);
    // As the database stores order them: the most lagging first, ties by name;
    // the leading ones from the other end, ties by name too.
    const byName = (a: Watermark, b: Watermark) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0);
    ready.sort((a, b) => a.at - b.at || byName(a, b));
    const lag = ready.slice(0, lagging);
    const lead = ready
      .slice(lag.length)
      .sort((a, b) => b.at - a.at || byName(a, b))
      .slice(0, leading);
    const toPoll = (w: Watermark, lagging: boolean): Poll => ({
      stream: w.stream,
      source: w.source,
      at: w.at,
      lagging,
    });
    return [...lag.map((w) => toPoll(w, true)), ...lead.map((w) => toPoll(w, false))];
  }

  async lease(leases: Lease[], millis: number): Promise<Lease[]> {
    if (!Number.isSafeInteger(millis) || millis < 0)
      throw new ValidationError("lease duration", millis, [
        { path: "", message: "must be a non-negative integer of milliseconds" },
      ]);
    const now = Date.now();
    const granted: Lease[] = [];
    for (const lease of leases) {
      let w = this.watermarks.get(lease.stream);
      if (!w) {
        w = {
          stream: lease.stream,
          source: lease.source,
          at: lease.at,
          retry: 0,
          done: [],
          head: lease.at,
          reactions: new Set(),
          ahead: {},
          token: 0,
          blocked: false,
          until: 0,
        };
        this.watermarks.set(lease.stream, w);
      }
      if (millis <= 0) {
        this.join(w, lease);
        w.head = Math.max(w.head, lease.head ?? lease.at);
        this.track(w);
        for (const reaction of lease.reactions ?? []) w.reactions.add(reaction);
        // Reactions from different sources share this stream: it must read them all.
        if (w.source !== undefined && w.source !== lease.source) w.source = undefined;
        granted.push({ ...lease, retry: w.retry, done: [...w.done] });
        continue;
      }
      // A watermark past the polled one means another drainer handled those events.
      if (w.blocked || w.at > lease.at) continue;
      if (lease.token !== undefined) {
        // A renewal: only of the very lease granted, which no one took over since.
        if (w.by !== lease.by || w.token !== lease.token) continue;
      } else {
        // Held by another drainer, or waiting out a retry's backoff: not yet.
        if (w.until > now && w.by !== lease.by) continue;
        w.token++;
      }
      w.by = lease.by;
      w.until = now + millis;
      granted.push({
        ...lease,
        at: w.at,
        token: w.token,
        retry: w.retry,
        done: [...w.done],
        head: w.head,
        ahead: { ...w.ahead },
        reactions: [...w.reactions],
      });
    }
    return granted;
  }

  /**
   * A reaction new to a stream that already carries reactions joins it where
   * its events start: a watermark past that point moves back to it, under a
   * new token, and the reactions already there are recorded as `ahead` up to
   * the old watermark, so they do not run again.
   */
  private join(w: Watermark, lease: Lease): void {
    if (!w.reactions.size || !lease.joining?.length) return;
    let at = w.at;
    for (const { names, at: from } of lease.joining)
      if (from < at && !names.some((name) => w.reactions.has(name))) at = from;
    if (at >= w.at) return;
    for (const reaction of w.reactions) w.ahead[reaction] = Math.max(w.ahead[reaction] ?? w.at, w.at);
    Object.assign(w, { at, retry: 0, token: w.token + 1 });
  }

  /**
   * The watermark `lease.by` still holds under the lease's token, if any —
   * and if the holder has every reaction the stream carries now.
   */
  private held(lease: Lease): Watermark | undefined {
    const w = this.holding(lease);
    return w && this.owns(w, lease) ? w : undefined;
  }

  /** The watermark `lease.by` still holds under the lease's token, whatever reactions it carries. */
  private holding(lease: Lease): Watermark | undefined {
    const w = this.watermarks.get(lease.stream);
    return !w || w.by !== lease.by || w.token !== lease.token || w.blocked ? undefined : w;
  }

  /** Whether the lease's holder has every reaction the stream carries (or did not say which it has). */
  private owns(w: Watermark, lease: Lease): boolean {
    const owned = lease.reactions && new Set(lease.reactions);
    return !owned || [...w.reactions].every((r) => owned.has(r));
  }

  /**
   * A holder that lacks a reaction the stream gained while it held the lease
   * (a newer release registered it): the watermark stays, since that
   * reaction has not run; the holder's reactions are recorded as ahead up to
   * its progress, with its `done`, so nothing it ran runs again; the stream
   * is released.
   */
  private keepProgressOf(lease: Lease): boolean {
    const w = this.holding(lease);
    if (!w) return false;
    if (lease.at > w.at)
      for (const reaction of lease.reactions ?? [])
        if (w.reactions.has(reaction)) w.ahead[reaction] = Math.max(w.ahead[reaction] ?? -1, lease.at);
    w.done = [...new Set([...w.done, ...(lease.done ?? [])])];
    Object.assign(w, { by: undefined, until: 0 });
    return true;
  }

  /** Keeps `pending` in step with a watermark whose `at`, `head` or `blocked` just changed. */
  private track(w: Watermark): void {
    if (w.head > w.at && !w.blocked) this.pending.add(w);
    else this.pending.delete(w);
  }

  /**
   * A holder whose lease an operator reset or unblock overtook has finished
   * its handlers when it acks or blocks: its refused call gives the stream
   * back, so other drainers need not wait for the old lease to run out.
   */
  private releaseOvertaken(lease: Lease): void {
    const w = this.watermarks.get(lease.stream);
    if (w && lease.token !== undefined && w.by === lease.by && w.token > lease.token)
      Object.assign(w, { by: undefined, until: 0 });
  }

  async ack(leases: Lease[]): Promise<Lease[]> {
    const acked: Lease[] = [];
    for (const lease of leases) {
      const w = this.held(lease);
      if (!w) {
        if (!this.keepProgressOf(lease)) this.releaseOvertaken(lease);
        continue;
      }
      w.at = Math.max(w.at, lease.at);
      this.track(w);
      w.retry = lease.retry;
      w.done = [...(lease.done ?? [])];
      for (const [reaction, at] of Object.entries(w.ahead)) if (at <= w.at) delete w.ahead[reaction];
      w.by = undefined;
      w.until = lease.delay && lease.delay > 0 ? Date.now() + lease.delay : 0;
      acked.push(lease);
    }
    return acked;
  }

  /**
   * Runs `work` with no handle — a read model kept next to this store lives
   * in the process's memory like the store, and no crash can leave one
   * without the other — then acknowledges `lease`. A lease that is not the
   * caller's any more runs nothing; a throw leaves the position untouched
   * and undoes nothing. Because it hands `work` no handle, the app then
   * records the progress of the events applied before the failing one, so
   * they are not applied again; what the failing handler wrote before
   * throwing stays (write it last, or make it idempotent).
   *
   * @param lease - the lease to acknowledge, with the last event projected as `at`
   * @param work - applies the events to the read model
   * @returns whether the lease was acknowledged
   * @example
   * ```ts
   * const memory = new InMemoryStore();
   * const totals = new Map<string, number>();
   * const moved = await memory.project({ ...granted, at: 57, retry: 0 }, () => void totals.set("n", 1));
   * ```
   */
  async project(lease: Lease, work: (tx: undefined) => unknown): Promise<boolean> {
    if (!this.held(lease)) return false;
    await work(undefined);
    return (await this.ack([lease])).length > 0;
  }

  async block(leases: BlockedLease[]): Promise<BlockedLease[]> {
    const blocked: BlockedLease[] = [];
    for (const lease of leases) {
      const w = this.held(lease);
      if (!w) {
        if (!this.keepProgressOf(lease)) this.releaseOvertaken(lease);
        continue;
      }
      // Progress made before the failure stands: the stream resumes after it.
      w.at = Math.max(w.at, lease.at);
      w.blocked = true;
      this.track(w);
      w.error = lease.error;
      w.retry = lease.retry;
      w.done = [...(lease.done ?? [])];
      w.by = undefined;
      w.until = 0;
      blocked.push(lease);
    }
    return blocked;
  }

  async reactions(filter: ReactionFilter = {}): Promise<ReactionStream[]> {
    const now = Date.now();
    // Named streams are looked up by name: a waiter asking for two rows does not walk them all.
    const rows = filter.streams
      ? [...new Set(filter.streams)].flatMap((stream) => this.watermarks.get(stream) ?? [])
      : [...this.watermarks.values()];
    return rows
      .filter((w) => filter.blocked === undefined || w.blocked === filter.blocked)
      .sort((a, b) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0))
      .slice(0, filter.limit ?? Number.POSITIVE_INFINITY)
      .map((w) => {
        // One shape, optional fields added after: thousands of rows stay cheap to make and to copy.
        const r: { -readonly [K in keyof ReactionStream]: ReactionStream[K] } = {
          stream: w.stream,
          at: w.at,
          head: w.head,
          reactions: [...w.reactions].sort(),
          token: w.token,
          retry: w.retry,
          blocked: w.blocked,
        };
        if (w.source !== undefined) r.source = w.source;
        if (w.error !== undefined) r.error = w.error;
        if (w.by !== undefined && w.until > now) r.leasedBy = w.by;
        if (w.until > now) r.leasedUntil = new Date(w.until);
        return r;
      });
  }

  async unblock(streams: string[]): Promise<string[]> {
    return streams.filter((stream) => {
      const w = this.watermarks.get(stream);
      if (!w?.blocked) return false;
      Object.assign(w, { blocked: false, error: undefined, retry: 0, by: undefined, until: 0, token: w.token + 1 });
      this.track(w);
      return true;
    });
  }

  async reset(streams: string[], at = -1): Promise<string[]> {
    return streams.filter((stream) => {
      const w = this.watermarks.get(stream);
      if (!w) return false;
      Object.assign(w, {
        at,
        done: [],
        ahead: {},
        blocked: false,
        error: undefined,
        retry: 0,
        token: w.token + 1,
      });
      this.track(w);
      return true;
    });
  }

  async retire(reactions: string[]): Promise<string[]> {
    return [...this.watermarks.values()]
      .filter((w) => reactions.filter((r) => w.reactions.delete(r)).length > 0)
      .map((w) => w.stream)
      .sort();
  }

  async discovered(reactions: readonly string[]): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    for (const name of checkDiscovery(reactions)) {
      const at = this.discoveries.get(name);
      if (at !== undefined) found.set(name, at);
    }
    return found;
  }

  async discover(reactions: readonly string[], at: number): Promise<void> {
    for (const name of checkDiscovery(reactions, at))
      this.discoveries.set(name, Math.max(at, this.discoveries.get(name) ?? -1));
  }

  /**
   * Calls `listener` after each commit to this store (apps in this process share it).
   *
   * @param listener - called after the commit with the names of the events committed; it should only schedule work (e.g. a drain)
   * @returns a function that stops the notifications
   */
  subscribe(listener: (names?: readonly string[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async recall(stream: string, idempotencyKey: string): Promise<KeyedVersions | undefined> {
    checkName("stream", stream);
    checkName("idempotency key", idempotencyKey);
    return this.remembered(stream, idempotencyKey);
  }

  private remembered(stream: string, idempotencyKey: string): KeyedVersions | undefined {
    const key = `${stream}\u0000${idempotencyKey}`;
    const found = this.keys.get(key);
    if (!found) return undefined;
    if (found.expires <= Date.now()) {
      this.keys.delete(key);
      return undefined;
    }
    return found.request === undefined
      ? { from: found.from, to: found.to }
      : { from: found.from, to: found.to, request: found.request };
  }
}
