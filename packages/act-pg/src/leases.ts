/**
 * Reaction streams: polling for work, registering and leasing streams,
 * acknowledging and blocking leases, the operator's reset, unblock and
 * retire, the listing of streams, and how far correlation has gone
 * (discovery positions). Every operation is one statement of
 * `watermark-sql.ts`, its input passed as one JSON parameter where it takes
 * many streams.
 */
import {
  type BlockedLease,
  type Lease,
  logger,
  type Poll,
  type PollRequest,
  type ReactionFilter,
  type ReactionStream,
  ValidationError,
} from "@act-root/act";
import { checkDiscovery } from "@act-root/act/internal";
import type { Database } from "./database.js";

/**
 * A row of `reactions()`, by position: stream, source, at, head, reactions
 * (JSON), token, retry, blocked, error, leased_by, leased_until (epoch ms).
 */
type ReactionRow = [
  string,
  string | null,
  number,
  number,
  string[],
  number,
  number,
  boolean,
  string | null,
  string | null,
  number | null,
];

/** The reaction-stream operations of one store. */
export class Leases {
  /** When slow writers were last looked for. */
  #writersCheckedAt = 0;

  constructor(private readonly db: Database) {}

  /** Streams with work, lagging ones first; looks for slow writers on the side. */
  async poll({ lagging, leading, reactions }: PollRequest): Promise<Poll[]> {
    const { rows } = await this.db.run<{ stream: string; source: string | null; at: number; lagging: boolean }>(
      "poll",
      this.db.statements.poll,
      [Math.max(0, lagging), Math.max(0, leading), reactions ?? null]
    );
    void this.#warnSlowWriters();
    const lag = rows.filter((r) => r.lagging).sort((a, b) => a.at - b.at || (a.stream < b.stream ? -1 : 1));
    const lead = rows.filter((r) => !r.lagging).sort((a, b) => b.at - a.at || (a.stream < b.stream ? -1 : 1));
    return [...lag, ...lead].map(({ stream, source, at, lagging }) =>
      source === null ? { stream, at, lagging } : { stream, source, at, lagging }
    );
  }

  /** Warns, at most once per `slowWriterMillis`, about writers of the events table open longer than that. */
  async #warnSlowWriters(): Promise<void> {
    const now = Date.now();
    if (now - this.#writersCheckedAt < this.db.settings.slowWriterMillis) return;
    this.#writersCheckedAt = now;
    try {
      const { rows } = await this.db.run<{ pid: number; age_ms: number }>(
        "slow writer check",
        this.db.statements.slowWriters,
        [this.db.settings.slowWriterMillis]
      );
      for (const { pid, age_ms } of rows)
        logger.warn(
          `act-pg: backend pid ${pid} has held a write transaction on ${this.db.names.events} open for ${Math.round(age_ms / 1000)} s; reactions cannot move past the events it may still commit until it ends`
        );
    } catch {
      // Only a diagnostic: the next poll tries again.
    }
  }

  /** Registers the streams (`millis` 0) or leases them for `millis`. */
  async lease(leases: Lease[], millis: number): Promise<Lease[]> {
    if (!Number.isSafeInteger(millis) || millis < 0)
      throw new ValidationError("lease duration", millis, [
        { path: "", message: "must be a non-negative integer of milliseconds" },
      ]);
    const unique = [...new Map(leases.map((l) => [l.stream, l])).values()];
    if (!unique.length) return [];
    const input = JSON.stringify(
      unique.map(({ stream, source, at, by, head, token, reactions, joining }) => ({
        stream,
        source: source ?? null,
        at,
        holder: by,
        head: head ?? null,
        token: token ?? null,
        reactions: reactions ?? [],
        joining: joining?.length ? joining : null,
      }))
    );
    type Row = {
      stream: string;
      at?: string | number;
      retry: number;
      done: string[];
      token: string | number | null;
      head: string | number;
      ahead?: Record<string, number>;
      reactions?: string[];
    };
    const { rows } =
      millis > 0
        ? await this.db.run<Row>("lease", this.db.statements.lease, [input, millis])
        : await this.db.run<Row>("lease", this.db.statements.register, [input]);
    const stored = new Map(rows.map((r) => [r.stream, r]));
    // A stream another drainer's lease is creating right now is neither
    // inserted nor granted by a lease: it exists, with no retries yet.
    const withState = (l: Lease) => ({
      ...l,
      retry: stored.get(l.stream)?.retry ?? 0,
      done: stored.get(l.stream)?.done ?? [],
    });
    if (millis <= 0) return unique.map(withState);
    return unique
      .filter((l) => stored.has(l.stream))
      .map((l) => {
        const row = stored.get(l.stream)!;
        return {
          ...withState(l),
          at: Number(row.at),
          token: Number(row.token),
          head: Number(row.head),
          ahead: row.ahead ?? {},
          reactions: row.reactions ?? [],
        };
      });
  }

  /** Acknowledges the leases their holders still hold; returns those, in input order. */
  async ack(leases: Lease[]): Promise<Lease[]> {
    if (!leases.length) return [];
    const { rows } = await this.db.run<{ stream: string; owns: boolean }>("ack", this.db.statements.ack, [
      ackInput(leases),
    ]);
    const acked = new Set(rows.filter((r) => r.owns).map((r) => r.stream));
    return leases.filter((l) => acked.has(l.stream));
  }

  /** Blocks the leases' streams their holders still hold; returns those, in input order. */
  async block(leases: BlockedLease[]): Promise<BlockedLease[]> {
    if (!leases.length) return [];
    const input = leasesInput(leases, ({ error }) => ({ error }));
    const { rows } = await this.db.run<{ stream: string; owns: boolean }>("block", this.db.statements.block, [input]);
    const blocked = new Set(rows.filter((r) => r.owns).map((r) => r.stream));
    return leases.filter((l) => blocked.has(l.stream));
  }

  /** The reaction streams `filter` selects, by name. */
  async reactions(filter: ReactionFilter): Promise<ReactionStream[]> {
    const { statements } = this.db;
    const { rows } = filter.streams
      ? await this.db.run<ReactionRow>(
          "reactions",
          statements.reactionsIn,
          [filter.limit ?? null, filter.streams, filter.blocked ?? null],
          "array"
        )
      : await this.db.run<ReactionRow>(
          "reactions",
          filter.blocked === undefined
            ? statements.reactions
            : filter.blocked
              ? statements.blocked
              : statements.notBlocked,
          [filter.limit ?? null],
          "array"
        );
    return rows.map(([stream, source, at, head, reactions, token, retry, blocked, error, by, until]) => {
      // Built in one shape, optional fields added after: thousands of rows stay cheap to make and to copy.
      const r: { -readonly [K in keyof ReactionStream]: ReactionStream[K] } = {
        stream,
        at,
        head,
        reactions,
        token,
        retry,
        blocked,
      };
      if (source !== null) r.source = source;
      if (error !== null) r.error = error;
      if (by !== null) r.leasedBy = by;
      if (until !== null) r.leasedUntil = new Date(until);
      return r;
    });
  }

  /** Unblocks the streams that are blocked; returns those, in input order. */
  async unblock(streams: string[]): Promise<string[]> {
    const { rows } = await this.db.run<{ stream: string }>("unblock", this.db.statements.unblock, [streams]);
    const done = new Set(rows.map((r) => r.stream));
    return streams.filter((s) => done.has(s));
  }

  /** Moves the streams' watermarks back to `at`; returns the streams reset, in input order. */
  async reset(streams: string[], at: number): Promise<string[]> {
    const { rows } = await this.db.run<{ stream: string }>("reset", this.db.statements.reset, [streams, at]);
    const done = new Set(rows.map((r) => r.stream));
    return streams.filter((s) => done.has(s));
  }

  /** Forgets the reactions on every stream that carries them; returns those streams, by name. */
  async retire(reactions: string[]): Promise<string[]> {
    const { rows } = await this.db.run<{ stream: string }>("retire", this.db.statements.retire, [reactions]);
    return rows.map((r) => r.stream).sort();
  }

  /** How far correlation has gone for each reaction that has a position. */
  async discovered(reactions: readonly string[]): Promise<Map<string, number>> {
    const names = checkDiscovery(reactions);
    if (!names.length) return new Map();
    const { rows } = await this.db.run<{ name: string; at: number }>("discovered", this.db.statements.discovered, [
      names,
    ]);
    return new Map(rows.map((r) => [r.name, r.at]));
  }

  /** Moves the reactions' discovery positions forward to `at`, never back. */
  async discover(reactions: readonly string[], at: number): Promise<void> {
    const names = checkDiscovery(reactions, at);
    if (names.length) await this.db.run("discover", this.db.statements.discover, [names, at]);
  }
}

/** `ack`'s input: the leases as the JSON array its statement reads. */
export function ackInput(leases: Lease[]): string {
  return leasesInput(leases, ({ delay }) => ({ delay: delay ?? 0 }));
}

/** The leases as the JSON array `ack` and `block` read, with each one's own field (`delay`, `error`). */
function leasesInput<L extends Lease>(leases: L[], own: (lease: L) => object): string {
  return JSON.stringify(
    leases.map((lease) => ({
      stream: lease.stream,
      holder: lease.by,
      token: lease.token ?? null,
      reactions: lease.reactions ?? null,
      at: lease.at,
      retry: lease.retry,
      done: lease.done ?? [],
      ...own(lease),
    }))
  );
}
