/**
 * Reaction streams: polling for work, registering and leasing streams,
 * acknowledging and blocking leases, the operator's reset, unblock and
 * retire, the listing of streams, and how far correlation has gone
 * (discovery positions) — the rules the database stores write in SQL, on
 * the watermarks in memory.
 */
import { ValidationError } from "../../core/errors.js";
import { checkDiscovery } from "../../core/inputs.js";
import type { PollRequest, ReactionFilter, ReactionStream } from "../../types/reaction-streams.js";
import type { BlockedLease, Lease, Poll } from "../../types/lease.js";
import type { Database, Watermark } from "./database.js";

/**
 * `lease` with `over` written over it, key by key. A spread followed by keys
 * its source lacks (`{ ...lease, token }`) takes a slow path in V8 on
 * Node 20 that cost microseconds per lease — about a tenth of an in-memory
 * drain whose handlers do nothing.
 * Every key of `Lease` is listed (the type says so), so one added to it later
 * is not dropped here.
 */
function copy(
  lease: Lease,
  // Only the keys a grant replaces: any other given here would be silently ignored.
  over: Pick<Lease, "retry" | "done"> & Partial<Pick<Lease, "at" | "head" | "token" | "reactions" | "ahead">>
): Lease {
  const granted: { [K in keyof Required<Lease>]: Lease[K] } = {
    stream: lease.stream,
    source: lease.source,
    by: lease.by,
    at: over.at ?? lease.at,
    retry: over.retry,
    lagging: lease.lagging,
    done: over.done,
    delay: lease.delay,
    head: over.head ?? lease.head,
    error: lease.error,
    token: over.token ?? lease.token,
    reactions: over.reactions ?? lease.reactions,
    joining: lease.joining,
    ahead: over.ahead ?? lease.ahead,
  };
  return granted;
}

/** The reaction-stream operations of one store. */
export class Leases {
  constructor(private readonly db: Database) {}

  /** Streams with work, lagging ones first. */
  poll({ lagging, leading, reactions }: PollRequest): Poll[] {
    const now = Date.now();
    const owned = reactions && new Set(reactions);
    const ready: Watermark[] = [];
    for (const w of this.db.pending)
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

  /** Registers the streams (`millis` 0) or leases them for `millis`. */
  lease(leases: Lease[], millis: number): Lease[] {
    if (!Number.isSafeInteger(millis) || millis < 0)
      throw new ValidationError("lease duration", millis, [
        { path: "", message: "must be a non-negative integer of milliseconds" },
      ]);
    const now = Date.now();
    const granted: Lease[] = [];
    for (const lease of leases) {
      let w = this.db.watermarks.get(lease.stream);
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
        this.db.watermarks.set(lease.stream, w);
      }
      if (millis <= 0) {
        this.#join(w, lease);
        w.head = Math.max(w.head, lease.head ?? lease.at);
        this.#track(w);
        for (const reaction of lease.reactions ?? []) w.reactions.add(reaction);
        // Reactions from different sources share this stream: it must read them all.
        if (w.source !== undefined && w.source !== lease.source) w.source = undefined;
        granted.push(copy(lease, { retry: w.retry, done: [...w.done] }));
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
      granted.push(
        copy(lease, {
          at: w.at,
          token: w.token,
          retry: w.retry,
          done: [...w.done],
          head: w.head,
          ahead: { ...w.ahead },
          reactions: [...w.reactions],
        })
      );
    }
    return granted;
  }

  /**
   * A reaction new to a stream that already carries reactions joins it where
   * its events start: a watermark past that point moves back to it, under a
   * new token, and the reactions already there are recorded as `ahead` up to
   * the old watermark, so they do not run again.
   */
  #join(w: Watermark, lease: Lease): void {
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
  held(lease: Lease): Watermark | undefined {
    const w = this.#holding(lease);
    return w && this.#owns(w, lease) ? w : undefined;
  }

  /** The watermark `lease.by` still holds under the lease's token, whatever reactions it carries. */
  #holding(lease: Lease): Watermark | undefined {
    const w = this.db.watermarks.get(lease.stream);
    return !w || w.by !== lease.by || w.token !== lease.token || w.blocked ? undefined : w;
  }

  /** Whether the lease's holder has every reaction the stream carries (or did not say which it has). */
  #owns(w: Watermark, lease: Lease): boolean {
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
  #keepProgressOf(lease: Lease): boolean {
    const w = this.#holding(lease);
    if (!w) return false;
    if (lease.at > w.at)
      for (const reaction of lease.reactions ?? [])
        if (w.reactions.has(reaction)) w.ahead[reaction] = Math.max(w.ahead[reaction] ?? -1, lease.at);
    w.done = [...new Set([...w.done, ...(lease.done ?? [])])];
    Object.assign(w, { by: undefined, until: 0 });
    return true;
  }

  /** Keeps `pending` in step with a watermark whose `at`, `head` or `blocked` just changed. */
  #track(w: Watermark): void {
    if (w.head > w.at && !w.blocked) this.db.pending.add(w);
    else this.db.pending.delete(w);
  }

  /**
   * A holder whose lease an operator reset or unblock overtook has finished
   * its handlers when it acks or blocks: its refused call gives the stream
   * back, so other drainers need not wait for the old lease to run out.
   */
  #releaseOvertaken(lease: Lease): void {
    const w = this.db.watermarks.get(lease.stream);
    if (w && lease.token !== undefined && w.by === lease.by && w.token > lease.token)
      Object.assign(w, { by: undefined, until: 0 });
  }

  /** Acknowledges the leases their holders still hold; returns those, in input order. */
  ack(leases: Lease[]): Lease[] {
    const acked: Lease[] = [];
    for (const lease of leases) {
      const w = this.held(lease);
      if (!w) {
        if (!this.#keepProgressOf(lease)) this.#releaseOvertaken(lease);
        continue;
      }
      w.at = Math.max(w.at, lease.at);
      this.#track(w);
      w.retry = lease.retry;
      w.done = [...(lease.done ?? [])];
      for (const [reaction, at] of Object.entries(w.ahead)) if (at <= w.at) delete w.ahead[reaction];
      w.by = undefined;
      w.until = lease.delay && lease.delay > 0 ? Date.now() + lease.delay : 0;
      acked.push(lease);
    }
    return acked;
  }

  /** Blocks the leases' streams their holders still hold; returns those, in input order. */
  block(leases: BlockedLease[]): BlockedLease[] {
    const blocked: BlockedLease[] = [];
    for (const lease of leases) {
      const w = this.held(lease);
      if (!w) {
        if (!this.#keepProgressOf(lease)) this.#releaseOvertaken(lease);
        continue;
      }
      // Progress made before the failure stands: the stream resumes after it.
      w.at = Math.max(w.at, lease.at);
      w.blocked = true;
      this.#track(w);
      w.error = lease.error;
      w.retry = lease.retry;
      w.done = [...(lease.done ?? [])];
      w.by = undefined;
      w.until = 0;
      blocked.push(lease);
    }
    return blocked;
  }

  /** The reaction streams `filter` selects, by name. */
  reactions(filter: ReactionFilter): ReactionStream[] {
    const now = Date.now();
    // Named streams are looked up by name: a waiter asking for two rows does not walk them all.
    const rows = filter.streams
      ? [...new Set(filter.streams)].flatMap((stream) => this.db.watermarks.get(stream) ?? [])
      : [...this.db.watermarks.values()];
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

  /** Unblocks the streams that are blocked; returns those, in input order. */
  unblock(streams: string[]): string[] {
    return streams.filter((stream) => {
      const w = this.db.watermarks.get(stream);
      if (!w?.blocked) return false;
      Object.assign(w, { blocked: false, error: undefined, retry: 0, by: undefined, until: 0, token: w.token + 1 });
      this.#track(w);
      return true;
    });
  }

  /** Moves the streams' watermarks back to `at`; returns the streams reset, in input order. */
  reset(streams: string[], at: number): string[] {
    return streams.filter((stream) => {
      const w = this.db.watermarks.get(stream);
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
      this.#track(w);
      return true;
    });
  }

  /** Forgets the reactions on every stream that carries them; returns those streams, by name. */
  retire(reactions: string[]): string[] {
    return [...this.db.watermarks.values()]
      .filter((w) => reactions.filter((r) => w.reactions.delete(r)).length > 0)
      .map((w) => w.stream)
      .sort();
  }

  /** How far correlation has gone for each reaction that has a position. */
  discovered(reactions: readonly string[]): Map<string, number> {
    const found = new Map<string, number>();
    for (const name of checkDiscovery(reactions)) {
      const at = this.db.discoveries.get(name);
      if (at !== undefined) found.set(name, at);
    }
    return found;
  }

  /** Moves the reactions' discovery positions forward to `at`, never back. */
  discover(reactions: readonly string[], at: number): void {
    for (const name of checkDiscovery(reactions, at))
      this.db.discoveries.set(name, Math.max(at, this.db.discoveries.get(name) ?? -1));
  }
}
