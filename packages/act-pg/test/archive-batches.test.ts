/**
 * The archive move runs in batches of closed streams, each its own
 * transaction: stopped between two batches it leaves every event exactly
 * once in the log or the archive, and the next move finishes the work; a
 * commit and a drain make progress while a move is under way.
 */
import { type ArchiveMoved, type ArchiveStore, act, type Committed, type Schemas } from "@act-root/act";
import { settle, testClock } from "@act-root/act/testing";
import { afterAll, describe, expect, it } from "vitest";
import { Archive } from "../src/archive.js";
import { Database } from "../src/database.js";
import { Counter } from "./fixtures/states.js";
import { connectionString, freshStores } from "./support.js";

const TABLE = "archive_batches";
const actor = { id: "u-1", name: "Ada" };
const HOUR = 3_600_000;
const fresh = freshStores(TABLE);
const databases: Database[] = [];
afterAll(async () => {
  for (const db of databases) await db.pool.end();
});

/** A fresh store whose archive moves `batch` streams per batch and awaits `between` after each but the last. */
async function batched(batch: number, between: (sofar: ArchiveMoved) => Promise<void> | void) {
  const log = await fresh();
  const db = new Database({ connectionString: connectionString() }, "public", TABLE);
  db.pool.on("error", () => {});
  databases.push(db);
  (log as { archive: ArchiveStore }).archive = new Archive(db, batch, between);
  return log;
}

/** Closed streams `order-0` … `order-<n-1>` of three increments each, closed an hour before the app's clock. */
async function closedOrders(app: ReturnType<typeof appOn>, n: number) {
  for (let i = 0; i < n; i++) {
    const target = { stream: `order-${i}`, actor };
    for (let k = 0; k < 3; k++) await app.do("increment", target, { by: 1 });
    await app.close(Counter, target.stream, { by: actor });
  }
}

const appOn = (log: Awaited<ReturnType<typeof fresh>>, seen: number[] = []) =>
  act()
    .with(Counter)
    .on("Incremented")
    .do(async function tally(event) {
      seen.push(event.id);
    })
    .build({ store: log, clock: testClock(new Date(Date.now() + HOUR)) });

async function ids(read: (callback: (e: Committed<Schemas, string>) => void) => Promise<number>) {
  const found: number[] = [];
  await read((e) => found.push(e.id));
  return found;
}

describe("archive moves in batches", () => {
  it("stopped between batches, leaves each event once in the log or the archive; the next move finishes", async () => {
    let stops = 1;
    const log = await batched(2, (sofar) => {
      if (stops-- > 0) throw new Error(`stopped after ${sofar.streams.length} streams`);
    });
    const app = appOn(log);
    await closedOrders(app, 5);
    await settle(app);
    const all = await ids((cb) => log.query(cb, { with_snaps: true }));

    await expect(app.archive({ afterMillis: 0 })).rejects.toThrow("stopped after 2 streams");
    const archived = await ids((cb) => log.archive.query(cb, { with_snaps: true }));
    expect(archived).toHaveLength(6); // the three increments of each of the first two streams
    const left = await ids((cb) => log.query(cb, { with_snaps: true }));
    expect([...left, ...archived].sort((a, b) => a - b)).toEqual(all);

    const rest = await app.archive({ afterMillis: 0 });
    expect(rest).toEqual({ events: 9, streams: ["order-2", "order-3", "order-4"], held: 0 });
    const after = await ids((cb) => log.archive.query(cb, { with_snaps: true }));
    const kept = await ids((cb) => log.query(cb, { with_snaps: true }));
    expect(after).toHaveLength(15);
    expect([...kept, ...after].sort((a, b) => a - b)).toEqual(all);
    for (let i = 0; i < 5; i++) expect((await app.load(Counter, `order-${i}`)).state.count).toBe(3);
  });

  it("lets commits and drains go on between its batches", async () => {
    const seen: number[] = [];
    let app: ReturnType<typeof appOn> | undefined;
    const during: Array<{ moved: number; handled: boolean }> = [];
    const log = await batched(1, async (sofar) => {
      const [committed] = await app!.do("increment", { stream: `live-${sofar.streams.length}`, actor }, { by: 1 });
      await settle(app!);
      during.push({ moved: sofar.streams.length, handled: seen.includes(committed.event!.id) });
    });
    app = appOn(log, seen);
    await closedOrders(app, 3);
    await settle(app);
    const moved = await app.archive({ afterMillis: 0 });
    expect(moved).toMatchObject({ events: 9, streams: ["order-0", "order-1", "order-2"] });
    // After each batch, with the move not done yet (it ends on a batch that finds no stream), a new event was handled.
    expect(during).toEqual([
      { moved: 1, handled: true },
      { moved: 2, handled: true },
      { moved: 3, handled: true },
    ]);
  });
});
