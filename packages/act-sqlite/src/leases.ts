/**
 * Reaction streams: polling for work, registering and leasing streams,
 * acknowledging and blocking leases, the operator's reset, unblock and
 * retire, the listing of streams, and how far correlation has gone
 * (discovery positions). Each operation is one write transaction (or one
 * read) over the statements of `SQL` in `schema.ts`; the rules the
 * PostgreSQL store writes in SQL are partly here in TypeScript, row by row.
 */
import {
  type BlockedLease,
  type Lease,
  type Poll,
  type PollRequest,
  type ReactionFilter,
  type ReactionStream,
  ValidationError,
} from "@act-root/act";
import { checkDiscovery } from "@act-root/act/internal";
import type { Database } from "./database.js";
import { SQL } from "./schema.js";

/** The row of `SQL.watermark`. */
type WatermarkRow = [
  source: string | null,
  at: number,
  retry: number,
  blocked: number,
  by: string | null,
  until: number | null,
  done: string,
  head: number,
  token: number,
  reactions: string | null,
  ahead: string,
];

/** A row of `SQL.reactions` and `SQL.reactionsIn`. */
type ReactionRow = [
  stream: string,
  source: string | null,
  at: number,
  retry: number,
  blocked: number,
  error: string | null,
  by: string | null,
  until: number | null,
  head: number,
  reactions: string | null,
  token: number,
];

/** The stored set of reaction names (JSON, sorted) with `added` in it. */
const union = (stored: string | null, added: readonly string[] | undefined) =>
  added?.length
    ? JSON.stringify([...new Set([...(stored ? (JSON.parse(stored) as string[]) : []), ...added])].sort())
    : stored;

/** The reaction-stream operations of one store. */
export class Leases {
  constructor(private readonly db: Database) {}

  /** Streams with work, lagging ones first. */
  poll({ lagging, leading, reactions }: PollRequest): Poll[] {
    const rows = this.db.read(
      "poll",
      SQL.poll,
      Date.now(),
      reactions ? JSON.stringify(reactions) : null,
      Math.max(0, lagging),
      Math.max(0, leading)
    ) as Array<[string, string | null, number, number]>;
    return rows.map(([stream, source, at, lag]) =>
      source === null ? { stream, at, lagging: lag === 1 } : { stream, source, at, lagging: lag === 1 }
    );
  }

  /** Registers the streams (`millis` 0) or leases them for `millis`, in one transaction. */
  lease(leases: Lease[], millis: number): Lease[] {
    if (!Number.isSafeInteger(millis) || millis < 0)
      throw new ValidationError("lease duration", millis, [
        { path: "", message: "must be a non-negative integer of milliseconds" },
      ]);
    const unique = [...new Map(leases.map((l) => [l.stream, l])).values()];
    if (!unique.length) return [];
    const read = this.db.statement("lease", SQL.watermark);
    const register = this.db.statement("lease", SQL.register);
    const widen = this.db.statement("lease", SQL.widen);
    const join = this.db.statement("lease", SQL.join);
    const insertLeased = this.db.statement("lease", SQL.insertLeased);
    const grant = this.db.statement("lease", SQL.grant);
    const now = Date.now();
    return this.db.write("lease", () => {
      const granted: Lease[] = [];
      for (const lease of unique) {
        const row = read.row(lease.stream) as WatermarkRow | undefined;
        const source = lease.source ?? null;
        if (millis === 0) {
          const head = Math.max(lease.at, lease.head ?? lease.at);
          if (!row) register.run(lease.stream, source, lease.at, head, union(null, lease.reactions));
          else {
            const joined = joinedAt(row, lease);
            if (joined !== undefined) join.run(joined.at, JSON.stringify(joined.ahead), lease.stream);
            // Reactions from different sources share this stream: it must read them all.
            widen.run(
              row[0] !== null && row[0] !== source ? null : row[0],
              head,
              union(row[9], lease.reactions),
              lease.stream
            );
          }
          granted.push({ ...lease, retry: row ? row[2] : 0, done: row ? JSON.parse(row[6]) : [] });
          continue;
        }
        if (!row) {
          insertLeased.run(lease.stream, source, lease.at, lease.at, lease.by, now + millis);
          granted.push({ ...lease, retry: 0, done: [], token: 1, head: lease.at, ahead: {}, reactions: [] });
          continue;
        }
        const [, at, retry, blocked, by, until, done, head, token, reactions, ahead] = row;
        // A watermark past the polled one means another drainer handled those events.
        if (blocked || at > lease.at) continue;
        const renewal = lease.token !== undefined;
        if (renewal ? by !== lease.by || token !== lease.token : by !== lease.by && until !== null && until > now)
          continue;
        const next = renewal ? token : token + 1;
        grant.run(lease.by, now + millis, next, lease.stream);
        granted.push({
          ...lease,
          at,
          retry,
          done: JSON.parse(done),
          token: next,
          head,
          ahead: JSON.parse(ahead),
          reactions: reactions ? JSON.parse(reactions) : [],
        });
      }
      return granted;
    });
  }

  /** Acknowledges the leases their holders still hold, in one transaction; returns those, in input order. */
  ack(leases: Lease[]): Lease[] {
    if (!leases.length) return [];
    const ack = this.db.statement("ack", SQL.ack);
    const now = Date.now();
    return this.db.write("ack", () =>
      leases.filter((l) => {
        if (ack.run(...ackParams(l, now)) > 0) return true;
        this.#refused(l);
        return false;
      })
    );
  }

  /** Blocks the leases' streams their holders still hold, in one transaction; returns those, in input order. */
  block(leases: BlockedLease[]): BlockedLease[] {
    if (!leases.length) return [];
    const block = this.db.statement("block", SQL.block);
    return this.db.write("block", () =>
      leases.filter((l) => {
        if (
          block.run(
            l.at,
            l.retry,
            JSON.stringify(l.done ?? []),
            l.error,
            l.stream,
            l.by,
            l.token ?? null,
            l.reactions ? JSON.stringify(l.reactions) : null
          ) > 0
        )
          return true;
        this.#refused(l);
        return false;
      })
    );
  }

  /**
   * After an `ack` or `block` was refused, in its transaction. A holder that
   * still holds the stream under its token but lacks a reaction the stream
   * gained since the lease (a newer release registered it) keeps its
   * progress: the watermark stays, since that reaction has not run, and its
   * own reactions are recorded as ahead up to where it got, with its
   * `done`, so nothing it ran runs again. A holder an operator overtook
   * (same holder, older token) has finished its handlers and gives the
   * stream back. Either way the stream is released.
   */
  #refused(l: Lease): void {
    const row = this.db.statement("ack", SQL.watermark).row(l.stream) as WatermarkRow | undefined;
    if (row && row[4] === l.by && row[8] === l.token && !row[3]) {
      const carried: string[] = row[9] ? JSON.parse(row[9]) : [];
      const ahead: Record<string, number> = JSON.parse(row[10]);
      if (l.at > row[1])
        for (const reaction of l.reactions ?? [])
          if (carried.includes(reaction)) ahead[reaction] = Math.max(ahead[reaction] ?? -1, l.at);
      const done = [...new Set([...JSON.parse(row[6]), ...(l.done ?? [])])];
      this.db.statement("ack", SQL.keepProgress).run(JSON.stringify(ahead), JSON.stringify(done), l.stream);
      return;
    }
    this.db.statement("releaseOvertaken", SQL.releaseOvertaken).run(l.stream, l.by, l.token ?? null);
  }

  /** The reaction streams `filter` selects, by name. */
  reactions(filter: ReactionFilter): ReactionStream[] {
    const now = Date.now();
    const blocked = filter.blocked === undefined ? null : filter.blocked ? 1 : 0;
    const rows = (
      filter.streams
        ? this.db.read("reactions", SQL.reactionsIn, blocked, filter.limit ?? -1, JSON.stringify(filter.streams))
        : this.db.read("reactions", SQL.reactions, blocked, filter.limit ?? -1)
    ) as ReactionRow[];
    return rows.map(([stream, source, at, retry, blocked, error, by, until, head, reactions, token]) => {
      const leased = until !== null && until > now;
      // One shape, optional fields added after: thousands of rows stay cheap to make and to copy.
      const r: { -readonly [K in keyof ReactionStream]: ReactionStream[K] } = {
        stream,
        at,
        head,
        reactions: reactions ? (JSON.parse(reactions) as string[]) : [],
        token,
        retry,
        blocked: blocked === 1,
      };
      if (source !== null) r.source = source;
      if (error !== null) r.error = error;
      if (leased && by !== null) r.leasedBy = by;
      if (leased) r.leasedUntil = new Date(until);
      return r;
    });
  }

  /** Unblocks the streams that are blocked, in one transaction; returns those, in input order. */
  unblock(streams: string[]): string[] {
    const unblock = this.db.statement("unblock", SQL.unblock);
    return this.db.write("unblock", () => streams.filter((s) => unblock.run(s) > 0));
  }

  /** Moves the streams' watermarks back to `at`, in one transaction; returns the streams reset, in input order. */
  reset(streams: string[], at: number): string[] {
    const reset = this.db.statement("reset", SQL.reset);
    return this.db.write("reset", () => streams.filter((s) => reset.run(at, s) > 0));
  }

  /** Forgets the reactions on every stream that carries them, in one transaction; returns those streams, by name. */
  retire(reactions: string[]): string[] {
    const carrying = this.db.statement("retire", SQL.carrying);
    const set = this.db.statement("retire", SQL.setReactions);
    const retired = new Set(reactions);
    return this.db.write("retire", () =>
      (carrying.rows(JSON.stringify(reactions)) as Array<[string, string]>).map(([stream, stored]) => {
        const kept = (JSON.parse(stored) as string[]).filter((r) => !retired.has(r));
        set.run(kept.length ? JSON.stringify(kept) : null, stream);
        return stream;
      })
    );
  }

  /** How far correlation has gone for each reaction that has a position. */
  discovered(reactions: readonly string[]): Map<string, number> {
    const names = checkDiscovery(reactions);
    if (!names.length) return new Map();
    const rows = this.db.read("discovered", SQL.discovered, JSON.stringify(names)) as Array<[string, number]>;
    return new Map(rows);
  }

  /** Moves the reactions' discovery positions forward to `at`, never back. */
  discover(reactions: readonly string[], at: number): void {
    const names = checkDiscovery(reactions, at);
    if (!names.length) return;
    const discover = this.db.statement("discover", SQL.discover);
    this.db.write("discover", () => discover.run(JSON.stringify(names), at));
  }
}

/**
 * Where a registration's joining reactions start on a stream that already
 * carries reactions, for those none of whose names it carries, when that is
 * before its watermark: the watermark goes back there, and the reactions
 * already on the stream are ahead up to the old one (an entry already
 * further ahead stays). Undefined when the watermark stays.
 */
function joinedAt(row: WatermarkRow, lease: Lease): { at: number; ahead: Record<string, number> } | undefined {
  const carried: string[] = row[9] ? JSON.parse(row[9]) : [];
  if (!carried.length || !lease.joining?.length) return undefined;
  const current = row[1];
  let at = current;
  for (const { names, at: from } of lease.joining)
    if (from < at && !names.some((name) => carried.includes(name))) at = from;
  if (at >= current) return undefined;
  const ahead: Record<string, number> = JSON.parse(row[10]);
  for (const reaction of carried) ahead[reaction] = Math.max(ahead[reaction] ?? current, current);
  return { at, ahead };
}

/** `ack`'s parameters for one lease; `now` dates the end of a retry's backoff. */
export function ackParams(l: Lease, now: number): unknown[] {
  return [
    l.at,
    l.retry,
    JSON.stringify(l.done ?? []),
    l.delay && l.delay > 0 ? now + l.delay : null,
    l.stream,
    l.by,
    l.token ?? null,
    l.reactions ? JSON.stringify(l.reactions) : null,
  ];
}
