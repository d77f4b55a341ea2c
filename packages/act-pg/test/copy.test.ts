/**
 * Copying into PostgreSQL (`copyStore`): the shared suite from SQLite and
 * from another PostgreSQL table, where the ids of new events start after a
 * copy, a source whose ids this server cannot follow, and a copying process
 * killed with SIGKILL between and during batches — of the log, of the
 * archive, and while it writes the records and subject keys.
 */
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Committed, copyStore, logDigest, type Schemas, type Store } from "@act-root/act";
import { afterAll, describe, expect, it } from "vitest";
import { ada, appOn, Member, Tab } from "../../act/test/copy-kept.suite.js";
import { copySuite } from "../../act/test/copy.suite.js";
import { SqliteStore } from "../../act-sqlite/src/index.js";
import { forkWorker } from "../tools/fork-worker.js";
import { connectionString, makeStore } from "./support.js";

const meta = { correlation: "c", causation: {} };
const dir = mkdtempSync(join(tmpdir(), "act-pg-copy-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const sqliteFile = () => join(dir, `${files++}.db`);

const opened: Store[] = [];
/** A store with nothing in it, seeded, disposed (and dropped) after the test. */
async function empty(store: Store) {
  opened.push(store);
  await store.drop();
  await store.seed();
  return store;
}
async function disposeAll() {
  for (const store of opened.splice(0)) {
    await store.drop();
    await store.dispose();
  }
}

copySuite("SQLite → PostgreSQL", {
  source: () => empty(new SqliteStore({ filename: sqliteFile() })),
  target: () => empty(makeStore({ schema: "copy_to" })),
  dispose: disposeAll,
});

copySuite("PostgreSQL → PostgreSQL", {
  source: () => empty(makeStore({ schema: "copy_from" })),
  target: () => empty(makeStore({ schema: "copy_to" })),
  dispose: disposeAll,
});

/** Every event of a store, snapshots included. */
async function events(s: Store) {
  const all: Committed<Schemas, string>[] = [];
  await s.query((e) => void all.push(e as Committed<Schemas, string>), { with_snaps: true });
  return all;
}

describe("a copy into PostgreSQL", () => {
  it("gives new events ids above every copied one", async () => {
    const source = await empty(new SqliteStore({ filename: sqliteFile() }));
    for (let i = 0; i < 5; i++) await source.commit({ stream: `s-${i}`, messages: [{ name: "E", data: { i } }], meta });
    const target = await empty(makeStore({ schema: "copy_to" }));
    await copyStore(source, target);
    const [next] = await target.commit({ stream: "new", messages: [{ name: "E", data: {} }], meta });
    expect(next.id).toBeGreaterThan(4);
    // Read after the copied ones by position, as a drain does: the new event is found.
    const after: number[] = [];
    await target.query((e) => void after.push(e.id), { after: 4 });
    expect(after).toEqual([next.id]);
    await disposeAll();
  });

  it("refuses, before writing anything, ids this server would give new events again, and says how to move it past them", async () => {
    const source = await empty(new SqliteStore({ filename: sqliteFile() }));
    // Ids as a PostgreSQL server far ahead of this one gives them (epoch 1).
    const high = 2 ** 48 + 5;
    await source.transfer?.append(
      [{ id: high, stream: "s", version: 0, name: "E", data: {}, meta, created: new Date() }],
      -1
    );
    const target = await empty(makeStore({ schema: "copy_to" }));
    await expect(copyStore(source, target)).rejects.toThrow(/pg_resetwal -e 2 "\$PGDATA"/);
    expect(await events(target)).toEqual([]);
    await disposeAll();
  });

  it("refuses a page that does not follow the table's last event, and records over records, writing nothing", async () => {
    const target = await empty(makeStore({ schema: "copy_to" }));
    const transfer = target.transfer;
    if (!transfer) throw new Error("no transfer port");
    const event = { id: 5, stream: "a", version: 0, name: "E", data: { n: 1 }, meta, created: new Date() };
    await expect(transfer.append([event], 4)).rejects.toThrow(/ends at event -1, not 4/);
    await transfer.append([event], -1);
    await expect(transfer.append([{ ...event, version: 1 }], 5)).rejects.toThrow(/ids must grow: 5 follows 5/);
    const records = {
      watermarks: [],
      keys: [],
      discovery: [{ reaction: "E/r", at: 5 }],
      timers: [],
      subjects: [{ subject: "s-1", keys: [null, "a2V5"], streams: ["a", "b"] }],
    };
    await transfer.restore(records);
    await expect(transfer.restore(records)).rejects.toThrow(/already holds 3/);
    expect(await events(target)).toEqual([event]);
    expect(await transfer.records()).toEqual(records);
    const archived = { event: { ...event, id: 2, stream: "z" }, archived: 1_000 };
    await expect(transfer.archive([archived], 1)).rejects.toThrow(/archive ends at event -1, not 1/);
    await transfer.archive([archived], -1);
    await expect(transfer.archive([archived], 2)).rejects.toThrow(/ids must grow: 2 follows 2/);
    expect(await transfer.archived(-1, 10)).toEqual([archived]);
    await disposeAll();
  });

  it("a copying process killed with SIGKILL, again and again, is finished by the next run with equal logs", async () => {
    const filename = sqliteFile();
    const source = await empty(new SqliteStore({ filename }));
    for (let i = 0; i < 40; i++)
      await source.commit({
        stream: `s-${i % 7}`,
        messages: Array.from({ length: 50 }, (_, n) => ({ name: "E", data: { i, n } })),
        meta,
      });
    const target = await empty(makeStore({ schema: "copy_to" }));
    const worker = fileURLToPath(new URL("../tools/copy-worker.ts", import.meta.url));
    const children = new Set<ChildProcess>();
    let kills = 0;
    for (let round = 0; round < 3; round++) {
      const child = await forkWorker(
        worker,
        { SOURCE: filename, DATABASE_URL: connectionString() ?? "", SCHEMA: "copy_to", BATCH: "40" },
        children
      );
      // Killed after a few batches, wherever it is then (often inside the next one).
      await new Promise<void>((resolve) => {
        let batches = 0;
        child.on("message", (p: { phase?: string }) => {
          if (p.phase === "events" && ++batches === 4) {
            child.kill("SIGKILL");
            kills++;
          }
        });
        child.once("exit", () => resolve());
      });
    }
    expect(kills).toBe(3);
    const partial = (await events(target)).length;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(2000);
    expect(partial % 40).toBe(0); // only whole batches: a killed one left nothing

    const report = await copyStore(source, target);
    expect(report.resumedAfter).toBe(partial - 1);
    expect(report.copied).toBe(2000 - partial);
    expect(await logDigest(target)).toEqual(await logDigest(source));
    await disposeAll();
  });

  it("a copy killed with SIGKILL while it copies the archive, and again while it writes the records and subject keys, is finished by the next run", async () => {
    const filename = sqliteFile();
    const source = await empty(new SqliteStore({ filename }));
    const app = appOn(source);
    for (let s = 0; s < 20; s++) {
      for (let i = 0; i < 20; i++) await app.do("charge", { stream: `tab-${s}`, actor: ada }, { amount: i });
      await app.close(Tab, `tab-${s}`, { by: ada });
    }
    for (let p = 0; p < 10; p++)
      await app.do("join", { stream: `member-${p}`, actor: ada }, { personId: `p-${p}`, email: `p-${p}@example.com` });
    await app.forget("p-3");
    expect((await app.archive({ afterMillis: 0 })).events).toBe(400);
    const records = await source.transfer?.records();
    const target = await empty(makeStore({ schema: "copy_to" }));
    const worker = fileURLToPath(new URL("../tools/copy-worker.ts", import.meta.url));
    const children = new Set<ChildProcess>();
    // Killed first in the archive's third batch (or between batches), then as it starts on the records.
    for (const [phase, at] of [
      ["archive", 3],
      ["records", 1],
    ] as const) {
      const child = await forkWorker(
        worker,
        { SOURCE: filename, DATABASE_URL: connectionString() ?? "", SCHEMA: "copy_to", BATCH: "40" },
        children
      );
      await new Promise<void>((resolve) => {
        let seen = 0;
        child.on("message", (p: { phase?: string }) => {
          if (p.phase === phase && ++seen === at) child.kill("SIGKILL");
        });
        child.once("exit", () => resolve());
      });
      const archived = (await target.transfer?.archived(-1, 1_000))?.length ?? 0;
      expect(archived % 40).toBe(0); // only whole batches: a killed one left nothing
      if (phase === "archive") expect(archived).toBeLessThan(400);
      // The records and keys are written in one transaction: all or none.
      const kept = await target.transfer?.records();
      expect(kept?.subjects.length === 0 || JSON.stringify(kept) === JSON.stringify(records)).toBe(true);
    }

    await copyStore(source, target);
    expect(await logDigest(target)).toEqual(await logDigest(source));
    expect((await logDigest(target)).archive?.events).toBe(400);
    expect(await target.transfer?.records()).toEqual(records);
    const there = appOn(target);
    expect((await there.load(Member, "member-1")).state.email).toBe("p-1@example.com");
    expect((await there.load(Tab, "tab-7")).state.total).toBe(190);
    await disposeAll();
  });
});
