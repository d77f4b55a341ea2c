/**
 * Archiving a large log, per store: `ARCHIVE_EVENTS` events (default
 * 1,000,000) over streams of 100 events — 98 `Incremented`, then the
 * summary snapshot and the close event, as `app.close` writes them — of
 * which one stream in ten stays open (no summary, no close). Figures:
 *
 * - the time `app.archive({ afterMillis: 0 })` takes to move every event
 *   of the closed streams but their summaries and closes, and its rate;
 * - the space: before, after the move, and after `app.purge` — for a
 *   database store after the store's own compaction (`compact`: SQLite
 *   `VACUUM`, PostgreSQL `VACUUM FULL`), as the store reports it (`sizes`).
 *
 * Run by each store's `npm run bench`; this file run directly measures the
 * in-memory store (no sizes).
 */
import {
  act,
  disposeAndExit,
  SNAP_EVENT,
  CLOSE_EVENT,
  type Commit,
  type Schemas,
  type Store,
  store,
} from "@act-root/act";
import { performance } from "node:perf_hooks";
import { Counter } from "./states.js";

const meta = { correlation: "bench", causation: {} };
const STREAM_EVENTS = 100;

/** What a store's runner hands the bench. */
export type ArchiveTarget = {
  /** Names the store in the output. */
  label: string;
  /** An empty, seeded store, put on the store port. */
  fresh(): Promise<Store>;
  /** Compacts the store's files or tables (nothing for the in-memory store). */
  compact?(): Promise<void>;
  /** The space the log and the archive take, in bytes, by what is measured. */
  sizes?(): Promise<Record<string, number>>;
};

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const show = (sizes: Record<string, number> | undefined) =>
  sizes
    ? Object.entries(sizes)
        .map(([what, bytes]) => `${what} ${mb(bytes)}`)
        .join(", ")
    : "n/a";

/** Fills the log, archives it, purges the archive, and prints the figures. */
export async function archiveBench(target: ArchiveTarget): Promise<void> {
  const total = Number(process.env.ARCHIVE_EVENTS ?? 1_000_000);
  const log = await target.fresh();
  const app = act().with(Counter).build({ store: log });
  const streams = Math.ceil(total / STREAM_EVENTS);
  const fill = performance.now();
  let closed = 0;
  for (let s = 0; s < streams; s++) {
    const open = s % 10 === 9;
    const added = open ? STREAM_EVENTS : STREAM_EVENTS - 2;
    const messages: Commit<Schemas>["messages"] = Array.from({ length: added }, () => ({
      name: "Incremented",
      data: { by: 1 },
    }));
    if (!open) {
      messages.push({ name: SNAP_EVENT, data: { of: Counter.version, state: { count: added } } });
      messages.push({ name: CLOSE_EVENT, data: { by: { id: "bench", name: "Bench" }, reason: "bench" } });
      closed++;
    }
    await log.commit({ stream: `order-${s}`, messages, meta, expectedVersion: -1 });
  }
  const filled = (performance.now() - fill) / 1000;
  console.log(
    `\n${target.label}: archive ${(streams * STREAM_EVENTS).toLocaleString()} events, ${streams.toLocaleString()} streams (${closed.toLocaleString()} closed); filled in ${filled.toFixed(1)} s`
  );
  const probe = `order-0`;
  const before = await app.load(Counter, probe);
  await target.compact?.();
  const sizeBefore = await target.sizes?.();
  const start = performance.now();
  const moved = await app.archive({ afterMillis: 0 });
  const seconds = (performance.now() - start) / 1000;
  const after = await app.load(Counter, probe);
  if (after.state.count !== before.state.count) throw new Error("the archived stream loads another state");
  const sizeMoved = await target.sizes?.();
  await target.compact?.();
  const sizeCompacted = await target.sizes?.();
  const purgeStart = performance.now();
  const purged = await app.purge({ afterMillis: 0 });
  const purgeSeconds = (performance.now() - purgeStart) / 1000;
  await target.compact?.();
  const sizePurged = await target.sizes?.();
  console.log(
    `  archive: ${moved.events.toLocaleString()} events of ${moved.streams.length.toLocaleString()} streams in ${seconds.toFixed(2)} s (${Math.round(moved.events / seconds).toLocaleString()} events/s), ${moved.held} held`
  );
  console.log(
    `  purge:   ${purged.events.toLocaleString()} events in ${purgeSeconds.toFixed(2)} s (${Math.round(purged.events / purgeSeconds).toLocaleString()} events/s)`
  );
  console.log(`  space before:                ${show(sizeBefore)}`);
  console.log(`  after the move:              ${show(sizeMoved)}`);
  console.log(`  after the move, compacted:   ${show(sizeCompacted)}`);
  console.log(`  after the purge, compacted:  ${show(sizePurged)}`);
}

if (import.meta.url === `file://${process.argv[1]}`)
  archiveBench({ label: "InMemoryStore", fresh: async () => store() })
    .then(() => disposeAndExit("EXIT"))
    .catch((error) => {
      console.error(error);
      process.exit(1);
    });
