import { correlate } from "./correlate.js";
import { logger } from "../core/ports.js";
import type { RouteIndex } from "./route-index.js";
import type { Query } from "../core/schemas.js";
import type { Schemas } from "../types/action.js";
import type { Store } from "../types/ports.js";
import type { EventRegister } from "../types/reaction.js";
import type { Lease } from "../types/lease.js";

/** Query fields that leave events out of a pass: such a pass moves no position. */
const NARROWING = [
  "stream",
  "names",
  "ids",
  "created_before",
  "created_after",
  "correlation",
  "from_snapshot",
  "backward",
] as const;

/** A reaction as the store names it, with the names it answered to before (their positions count as its own) and its `since`. */
type Named = { name: string; event: string; aliases: string[]; since?: Date };

/** Reactions discovered up to the same event id. */
type Group = { at: number; names: string[] };

/** What a discovery step or pass did: the streams registered, the last event id read, and whether there is more to read. */
export type Discovered = { leased: Lease[]; last_id: number; behind: boolean };

/** A reaction's position among those the store has: the most advanced of its names (-1 for none). */
const furthest = (found: ReadonlyMap<string, number>, name: string, aliases: readonly string[]) =>
  Math.max(-1, ...[name, ...aliases].map((n) => found.get(n) ?? -1));

/**
 * Discovery of reaction work, shared through the store: how far correlation
 * has registered reaction streams is kept per reaction name in the store
 * (`Store.discovered`/`Store.discover`), so a process that starts continues
 * where the last one stopped instead of reading the log from its start.
 *
 * The positions are read once per store, when the app first correlates in
 * it; from then on this process moves them as it correlates. Reactions at
 * the same position form a group, correlated together. A drain first
 * brings the most advanced group to the head of the log ({@link Discovery.lead})
 * — new work is found at once — and spends pages on the lagging groups (a
 * reaction the store has never seen starts at the beginning of the log)
 * while it handles what it found ({@link Discovery.lag}), each group
 * reading only its reactions' events up to the group ahead of it, which it
 * joins once there. So a backfill delays the others' new work by little.
 *
 * Each pass registers the streams it found before it moves the positions:
 * a crash in between only repeats registrations, which are idempotent.
 */
export class Discovery {
  private log?: Store;
  private known?: Map<string, number>;
  private loading?: Promise<Map<string, number>>;
  /** The position of an app without reactions: nothing to record in the store, but passes still report it. */
  private bare = -1;
  private readonly reactions: Named[];
  private readonly events = new Map<string, string>();
  private readonly since = new Map<string, Date | undefined>();

  /**
   * @param register - the app's events and their reactions
   * @param by - the drainer id registrations carry
   * @param routes - the drainer's route index, fed with the passes that routed every reaction
   * @param store - the app's store, read at each step or pass
   * @param backfill - the drainer's index of a backfill, fed with the lagging groups' passes (which read only their events)
   */
  constructor(
    private readonly register: EventRegister<Schemas, any>,
    private readonly by: string,
    private readonly routes: RouteIndex,
    private readonly store: () => Store,
    private readonly backfill?: RouteIndex
  ) {
    this.reactions = Object.entries(register).flatMap(([event, { reactions }]) =>
      [...reactions].map(([key, reaction]) => ({
        name: `${event}/${key}`,
        event,
        aliases: ((reaction as { aliases?: readonly string[] }).aliases ?? []).map((alias) => `${event}/${alias}`),
        since: reaction.options.since,
      }))
    );
    for (const { name, event, since } of this.reactions) {
      this.events.set(name, event);
      this.since.set(name, since);
    }
  }

  /**
   * The positions of the app's reactions in the current store (-1 for a
   * reaction never discovered), read from the store once per store. A
   * reaction that answered to another name before continues from the most
   * advanced of its names.
   */
  async positions(log: Store = this.store()): Promise<Map<string, number>> {
    if (this.log !== log) {
      this.log = log;
      this.known = undefined;
      this.loading = undefined;
      this.bare = -1;
    }
    if (this.known) return this.known;
    this.loading ??= (async () => {
      const names = this.names();
      try {
        // A store that refuses the positions (an app role without access to
        // the table, say) must not stop reactions: the process then reads the
        // log from its start, as before positions were shared. A failure
        // worth retrying fails the drain instead, which is retried.
        const found = names.length
          ? await log.discovered(names).catch((error: { retryable?: boolean }) => {
              if (error?.retryable) throw error;
              logger.error(error, "discovery positions could not be read; correlating the log from its start");
              return new Map<string, number>();
            })
          : new Map<string, number>();
        const known = new Map(this.reactions.map(({ name, aliases }) => [name, furthest(found, name, aliases)]));
        if (this.log === log) this.known = known;
        return known;
      } catch (error) {
        if (this.log === log) this.loading = undefined; // read again on the next call
        throw error;
      }
    })();
    return this.loading;
  }

  /** Every name the app's reactions answer to in the store: their own and the ones they had before. */
  private names(): string[] {
    return this.reactions.flatMap(({ name, aliases }) => [name, ...aliases]);
  }

  /**
   * Each reaction's position as the store has it now (not this process's
   * copy), the most advanced of its names: what `Act.stats` reports.
   */
  async report(): Promise<Array<{ reaction: string; at: number }>> {
    const names = this.names();
    let found = new Map<string, number>();
    try {
      if (names.length) found = await this.store().discovered(names);
    } catch (error) {
      // As for the positions: a store that refuses them (no right to read the
      // table) leaves the report without them rather than failing it.
      if ((error as { retryable?: boolean })?.retryable) throw error;
      logger.error(error, "discovery positions could not be read for the report");
      return [];
    }
    return this.reactions.map(({ name, aliases }) => ({
      reaction: name,
      at: furthest(found, name, aliases),
    }));
  }

  /** The lowest position known in the current store: every reaction was discovered up to it (-1 before the positions were read). */
  lowest(): number {
    if (this.log !== this.store() || !this.known) return -1;
    if (!this.known.size) return this.bare;
    let lowest = Number.POSITIVE_INFINITY;
    for (const at of this.known.values()) lowest = Math.min(lowest, at);
    return lowest;
  }

  /**
   * One step of discovery: {@link Discovery.lead}, then {@link Discovery.lag}.
   */
  async step(pages: number, size: number): Promise<Discovered> {
    const lead = await this.lead(pages, size);
    const lag = await this.lag(pages, size);
    return { leased: [...lead.leased, ...lag.leased], last_id: lag.last_id, behind: lead.behind || lag.behind };
  }

  /**
   * Brings the most advanced group towards the head of the log: up to
   * `pages` pages of `size` events, so new work is found at once. `behind`
   * when the pages ran out before the end of the log.
   */
  async lead(pages: number, size: number): Promise<Discovered> {
    const log = this.store();
    const known = await this.positions(log);
    const lead = this.groups(known)[0];
    const leased: Lease[] = [];
    let caught = false;
    for (let page = 0; page < pages && !caught; page++) {
      const after = lead.at;
      const names = new Set(lead.names);
      const pass = await correlate(log, this.register, this.by, { after, limit: size }, (name) => names.has(name));
      // The pass routed every reaction (it registered only the group's), so
      // the index can vouch for every stream over its range.
      this.routes.add(log, after, pass.last_id, pass.routes, pass.found);
      leased.push(...pass.leased);
      await this.advance(log, known, lead, pass.last_id);
      caught = pass.read < size;
    }
    return { leased, last_id: lead.at, behind: !caught };
  }

  /**
   * Spends up to `pages` pages of `size` events on the groups behind the
   * most advanced one, the most advanced first — at least one, and more
   * while `more()` says there is time — each reading only its reactions'
   * events up to the group ahead of it, which it joins once there. `behind` while a group is
   * still behind the most advanced. It moves no position of the most
   * advanced group, so it may run while a drain handles what
   * {@link Discovery.lead} found.
   */
  async lag(pages: number, size: number, more: () => boolean = () => true): Promise<Discovered> {
    const log = this.store();
    const known = await this.positions(log);
    const groups = this.groups(known);
    const leased: Lease[] = [];
    let budget = pages;
    const next = () => budget > 0 && (budget === pages || more());
    for (let i = 1; i < groups.length && next(); i++) {
      const group = groups[i];
      const ahead = groups[i - 1];
      // Only the group's events, and none past the group ahead: all of those
      // were visible when that group passed them.
      const names = [...new Set(group.names.map((name) => this.events.get(name)!))];
      // Reactions that all start at a point in time see nothing before it:
      // the read skips those events (routing would drop them anyway).
      const since = group.names.map((name) => this.since.get(name)?.getTime());
      const from = since.every((t) => t !== undefined) ? Math.min(...(since as number[])) : undefined;
      while (next() && group.at < ahead.at) {
        budget--;
        const query: Query = { after: group.at, before: ahead.at + 1, limit: size, names };
        if (from !== undefined) query.created_after = new Date(from - 1);
        const members = new Set(group.names);
        const pass = await correlate(log, this.register, this.by, query, (name) => members.has(name));
        leased.push(...pass.leased);
        const after = group.at;
        const reached = pass.read < size ? ahead.at : pass.last_id;
        // The pass saw every event of its names in (after, reached]: the drain
        // reads by id the streams only those names react into (the streams
        // this backfill registers, typically) instead of pages of the log.
        // Not a pass that skipped events before a `since`.
        if (from === undefined) this.backfill?.add(log, after, reached, pass.routes, pass.found, new Set(names));
        await this.advance(log, known, group, reached);
      }
      if (group.at < ahead.at) break;
      ahead.names.push(...group.names);
      groups[i] = ahead; // merged: the next group catches up with both
    }
    return { leased, last_id: groups[0].at, behind: groups.some((group) => group.at < groups[0].at) };
  }

  /**
   * A pass over an explicit query, as `Act.correlate` asks. Only a pass
   * that read the log without leaving events out moves positions: those of
   * the reactions it continues (at or after its start). It registers the
   * streams of those reactions, and of the others only for events their
   * discovery has passed: a reaction registered on a stream ahead of its
   * discovery would carry it already when its discovery reaches the
   * stream's earlier events, and would not take the watermark back to them.
   */
  async pass(query: Query): Promise<Discovered> {
    const log = this.store();
    const known = await this.positions(log);
    const narrowed = NARROWING.some((key) => query[key] !== undefined && query[key] !== false);
    const after = query.after ?? -1;
    const continued = (name: string) => !narrowed && (known.get(name) ?? -1) >= after;
    const correlated = await correlate(
      log,
      this.register,
      this.by,
      query,
      (name, id) => continued(name) || (known.get(name) ?? -1) >= id
    );
    const pass = { ...correlated, behind: query.limit !== undefined && correlated.read >= query.limit };
    if (narrowed) return pass;
    let highest = known.size ? -1 : this.bare;
    for (const at of known.values()) highest = Math.max(highest, at);
    if (after <= highest) this.routes.add(log, after, pass.last_id, pass.routes, pass.found);
    const moved = [...known].filter(([, at]) => at >= after && at < pass.last_id).map(([name]) => name);
    if (moved.length)
      await log
        .discover(moved, pass.last_id)
        .catch((error) => logger.error(error, "discovery positions could not be recorded; this process goes on"));
    // Another pass of this app may have moved them further meanwhile.
    for (const name of moved) known.set(name, Math.max(known.get(name) ?? -1, pass.last_id));
    if (!known.size && this.bare >= after) this.bare = Math.max(this.bare, pass.last_id);
    return pass;
  }

  /** The reactions grouped by position, the most advanced first (one group without names for an app without reactions). */
  private groups(known: Map<string, number>): Group[] {
    if (!known.size) return [{ at: this.bare, names: [] }];
    const byAt = new Map<number, string[]>();
    for (const [name, at] of known) {
      const names = byAt.get(at);
      if (names) names.push(name);
      else byAt.set(at, [name]);
    }
    return [...byAt].map(([at, names]) => ({ at, names })).sort((a, b) => b.at - a.at);
  }

  /** Records a group's new position — after the pass registered its streams, so a crash between repeats only idempotent work. */
  private async advance(log: Store, known: Map<string, number>, group: Group, at: number): Promise<void> {
    if (at <= group.at) return;
    if (group.names.length)
      // Not recorded, the positions only cost the next process a longer read;
      // this one goes on from where it is.
      await log
        .discover(group.names, at)
        .catch((error) => logger.error(error, "discovery positions could not be recorded; this process goes on"));
    else this.bare = Math.max(this.bare, at);
    group.at = at;
    for (const name of group.names) known.set(name, Math.max(known.get(name) ?? -1, at));
  }
}
