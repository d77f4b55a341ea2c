import { route as routes } from "./correlate.js";
import type { Committed, CommittedOf, Schemas } from "../types/action.js";
import type { Store } from "../types/ports.js";
import type { EventRegister, Reaction } from "../types/reaction.js";
import type { Lease } from "../types/lease.js";

/** One reaction to run: the event, the reaction registered on it, and its key in the register. */
export type Job = {
  event: Committed<Schemas, string>;
  key: string;
  reaction: Reaction<Schemas, string>;
  invalid?: unknown;
};

/** The work of one leased stream: its events, the reactions to run, and where its watermark ends when all ran. */
export type Batch<E extends Schemas> = { lease: Lease; events: CommittedOf<E>[]; jobs: Job[]; end: number };

/**
 * The jobs still to run on a leased stream: without those of reactions that
 * handled the event already — the stream moved back for a reaction that
 * joined it late (`Lease.ahead`), and the others must not run twice.
 */
function waiting(lease: Lease, jobs: Job[] | undefined): Job[] | undefined {
  const ahead = lease.ahead;
  if (!jobs || !ahead || !Object.keys(ahead).length) return jobs;
  const left = jobs.filter(({ event, key, reaction }) => {
    const names = [key, ...(reaction.aliases ?? [])];
    return !names.some((name) => (ahead[`${event.name}/${name}`] ?? -1) >= event.id);
  });
  return left.length ? left : undefined;
}

/**
 * Events known to react into a stream, by id: those in `(watermark, to]`,
 * where `to` is as far as the knowledge goes (the stream's head, or less:
 * the log past `to` is still to be read for it).
 */
export type Known = { ids: number[]; to: number };

/**
 * A page of a shared read: every event with a reaction in `(after, last]`
 * was routed, and `routes` lists per target stream the ids reacting into
 * it (ascending). `lagging` when the page started at a lagging stream's
 * position (the lowest work there is).
 */
export type Scanned = { after: number; last: number; routes: Map<string, number[]>; lagging: boolean };

/** Events per read of the whole log, shared by every leased stream without a source. */
const PAGE = 1_000;
/** Reads of the whole log per drain at most, so one drain stays short on a long log. */
const MAX_PAGES = 10;

/**
 * Reads the leased streams' next events and the reactions that resolve to
 * each stream. A stream with a source reads that stream; the others share
 * reads of the whole log — one read covers every leased stream whose
 * watermark falls in its range — so a drain cycle costs reads of the log,
 * not reads per target stream. Reads skip events no reaction listens to and
 * stop at the leased streams' `head` (the last event correlation found
 * reacting into them): past it there is nothing to handle, so the cost
 * follows the work, not the length of the log behind it.
 *
 * Streams whose events `known` can name (the ids this process's correlation
 * found reacting into them, see `RouteIndex`) skip the shared reads: one
 * read of exactly those ids serves them all, so a drain reads the events it
 * handles and not the other streams' events between them. Of those ids,
 * the events `kept` still holds from correlation's read are not read again:
 * when it holds them all, the drain reads nothing. Ids known only up to a
 * point short of the head (`Known.to`) serve the stream that far; the
 * shared reads continue it from there when that is less than `enough`
 * events.
 *
 * Each page of the shared reads is told to `scanned`, so the caller can
 * remember which streams its events react into: the next drain's streams
 * then take those events by id instead of reading the same pages again.
 */
export async function readBatches<E extends Schemas>(
  events: EventRegister<E, any>,
  leased: Lease[],
  eventLimit: number | ((lease: Lease) => number),
  log: Store,
  known: (lease: Lease) => Known | undefined = () => undefined,
  kept: (ids: number[]) => ReadonlyMap<number, Committed<Schemas, string>> = () => new Map(),
  scanned: (page: Scanned) => void = () => {},
  enough?: number
): Promise<Batch<E>[]> {
  const limitOf = (lease: Lease) => (typeof eventLimit === "number" ? eventLimit : eventLimit(lease));
  const batches = new Map<string, Batch<E>>(
    leased.map((lease) => [lease.stream, { lease, events: [], jobs: [], end: lease.at }])
  );
  /**
   * Every reaction to an event, by the stream its resolver targets (resolvers
   * run once per event). An event that cannot be decoded, or whose resolver
   * throws, still routes; its reactions then fail with the reason, so the
   * stream retries and blocks on it instead of handing a handler a bad shape.
   */
  const resolve = (stored: Committed<E, keyof E>) => {
    const byTarget = new Map<string, Job[]>();
    for (const { event, key, reaction, target, invalid } of routes(events, stored as never)) {
      const jobs = byTarget.get(target) ?? [];
      jobs.push({ event, key, reaction, invalid });
      byTarget.set(target, jobs);
    }
    return byTarget;
  };

  /**
   * Adds an event after the batch's watermark, with the reactions that target
   * the batch's stream. Once the batch is full, events without such reactions
   * still move its end (nothing to do there), up to the next one with work.
   */
  const route = (
    batch: Batch<E>,
    id: number,
    routed: Job[] | undefined,
    count: { events: number; closed: boolean; after: number }
  ) => {
    if (id <= count.after || count.closed) return;
    const jobs = waiting(batch.lease, routed);
    if (jobs && count.events >= limitOf(batch.lease)) {
      count.closed = true;
      return;
    }
    batch.end = id;
    if (!jobs) return;
    batch.events.push(jobs[0].event as CommittedOf<E>);
    batch.jobs.push(...jobs);
    count.events++;
  };

  // Only events some reaction listens to: the others route nowhere.
  const names = Object.keys(events).filter((name) => events[name].reactions.size);
  if (!names.length) return [...batches.values()];
  // A store that does not report `head` leaves the reads bounded by the page size only.
  const head = (lease: Lease) => lease.head ?? Number.POSITIVE_INFINITY;
  const upTo = (last: number) => (Number.isFinite(last) ? { before: last + 1 } : {});
  const pending = leased.filter((lease) => head(lease) > lease.at);

  await Promise.all(
    pending
      .filter((lease) => lease.source !== undefined)
      .map(async (lease) => {
        const batch = batches.get(lease.stream)!;
        const count = { events: 0, closed: false, after: lease.at };
        await log.query<E>((event) => route(batch, event.id, resolve(event).get(lease.stream), count), {
          stream: lease.source,
          after: lease.at,
          limit: limitOf(lease),
          names,
          ...upTo(head(lease)),
        });
      })
  );

  // Streams without a source whose events are known by id: their next
  // `eventLimit` ids, read together. A batch ends at its last id when the
  // stream has more, otherwise where the knowledge ends (nothing else up to
  // there): at its head, or short of it, where the shared reads go on.
  const exact = new Map<string, Known>();
  for (const lease of pending) {
    if (lease.source !== undefined || lease.head === undefined) continue;
    const ids = known(lease);
    if (ids) exact.set(lease.stream, ids);
  }
  /** Where the shared reads start for a stream: past what it took by id. */
  const start = new Map<string, number>();
  if (exact.size) {
    const takers = new Map<number, string[]>();
    for (const [stream, { ids }] of exact)
      for (const id of ids.slice(0, limitOf(batches.get(stream)!.lease))) {
        const streams = takers.get(id);
        if (streams) streams.push(stream);
        else takers.set(id, [stream]);
      }
    if (takers.size) {
      const wanted = [...takers.keys()];
      const held = kept(wanted);
      const found = [...held.values()] as Committed<E, keyof E>[];
      const missing = wanted.filter((id) => !held.has(id));
      if (missing.length) await log.query<E>((event) => found.push(event), { ids: missing, names });
      found.sort((a, b) => a.id - b.id);
      for (const event of found) {
        const byTarget = resolve(event);
        for (const stream of takers.get(event.id) ?? []) {
          const batch = batches.get(stream)!;
          const jobs = waiting(batch.lease, byTarget.get(stream));
          if (!jobs) continue;
          batch.events.push(jobs[0].event as CommittedOf<E>);
          batch.jobs.push(...jobs);
        }
      }
    }
    for (const [stream, { ids, to }] of exact) {
      const batch = batches.get(stream)!;
      const limit = limitOf(batch.lease);
      if (ids.length > limit) batch.end = ids[limit - 1];
      else if (to >= batch.lease.head!) batch.end = batch.lease.head!;
      else {
        // Enough for this drain's share, the stream waits for the next
        // drain to read on: pages read now would be read ahead of the
        // handlers, for every stream at once.
        batch.end = to;
        if (ids.length < (enough ?? limit)) start.set(stream, to);
      }
    }
  }

  // Streams without a source share reads of the whole log: each read starts
  // at the lowest position not read yet for a stream still open, ends at the
  // highest head among them, and serves every such stream whose watermark it
  // passes. A stream is done when its batch is full (its end then covers the
  // rest of the page it filled up in), the reads passed its head, or the log
  // ends.
  const open = pending.filter(
    (lease) => lease.source === undefined && (!exact.has(lease.stream) || start.has(lease.stream))
  );
  const counts = new Map(
    open.map((lease) => [
      lease.stream,
      {
        events: batches.get(lease.stream)!.events.length,
        closed: false,
        after: start.get(lease.stream) ?? lease.at,
      },
    ])
  );
  const cursor = new Map(open.map((lease) => [lease.stream, counts.get(lease.stream)!.after]));
  // Only streams polled as leading left to read for (the lagging ones had
  // their events by id): one page. Where no earlier read of this process
  // covers the log, the leading streams are the ones at its frontier, and
  // each drain would push them ten pages further ahead of every other
  // stream's work.
  const pages = open.every((lease) => lease.lagging === false) ? 1 : MAX_PAGES;
  for (let page = 0; open.length && page < pages; page++) {
    const from = Math.min(...open.map((lease) => cursor.get(lease.stream)!));
    const to = Math.max(...open.map(head));
    const lagging = open.some((lease) => lease.lagging && cursor.get(lease.stream) === from);
    const targets = new Map<string, number[]>();
    let last = from;
    let read = 0;
    await log.query<E>(
      (event) => {
        last = event.id;
        read++;
        const byTarget = resolve(event);
        for (const target of byTarget.keys()) {
          const ids = targets.get(target);
          if (ids) ids.push(event.id);
          else targets.set(target, [event.id]);
        }
        for (const lease of open)
          route(batches.get(lease.stream)!, event.id, byTarget.get(lease.stream), counts.get(lease.stream)!);
      },
      { after: from, limit: PAGE, names, ...upTo(to) }
    );
    if (read) scanned({ after: from, last, routes: targets, lagging });
    if (read < PAGE) break; // the end of the log, or past every head
    for (let i = open.length - 1; i >= 0; i--) {
      const stream = open[i].stream;
      cursor.set(stream, Math.max(cursor.get(stream)!, last));
      const count = counts.get(stream)!;
      if (count.closed || count.events >= limitOf(open[i]) || last >= head(open[i])) open.splice(i, 1);
    }
  }
  return [...batches.values()];
}
