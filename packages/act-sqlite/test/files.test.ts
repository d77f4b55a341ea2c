/**
 * Files the store is pointed at: wrong paths and wrong files are refused with
 * an error naming the file and left as they were; older schemas move forward;
 * what was committed is there after reopening.
 */
import { StoreError } from "@act-root/act";
import Database from "libsql";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteStore } from "../src/index.js";
import { meta, tempFile } from "./support.js";

const opened: SqliteStore[] = [];
const make = (filename: string) => {
  const s = new SqliteStore({ filename });
  opened.push(s);
  return s;
};
afterEach(async () => {
  for (const s of opened.splice(0)) await s.dispose();
});

const digest = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

async function refusal(store: SqliteStore): Promise<StoreError> {
  const error = await store.seed().then(
    () => undefined,
    (e: unknown) => e
  );
  expect(error).toBeInstanceOf(StoreError);
  return error as StoreError;
}

describe("files that cannot be used", () => {
  it("refuses a path in a missing directory, naming both, and creates nothing", async () => {
    const file = join(dirname(tempFile()), "missing", "app.db");
    const error = await refusal(make(file));
    expect(error.message).toContain(file);
    expect(error.message).toMatch(/directory .* does not exist/);
    expect(error).toMatchObject({ operation: "open", reason: "rejected", retryable: false });
    expect(existsSync(dirname(file))).toBe(false);
  });

  it("refuses a read-only file and leaves it as it was", async () => {
    const file = tempFile();
    const first = make(file);
    await first.seed();
    await first.commit("s", [{ name: "A", data: {} }], meta);
    await first.dispose();
    chmodSync(file, 0o444);
    const before = digest(file);
    const error = await refusal(make(file));
    expect(error.message).toContain(file);
    expect(error.message).toMatch(/read-only/);
    expect(digest(file)).toBe(before);
  });

  it("refuses a file that is not a SQLite database and leaves it as it was", async () => {
    const file = tempFile("notes.txt");
    writeFileSync(file, "these are my notes, not a database\n".repeat(200));
    const before = digest(file);
    const error = await refusal(make(file));
    expect(error.message).toContain(file);
    expect(error.message).toMatch(/not a SQLite database/);
    expect(digest(file)).toBe(before);
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it("refuses a database written by a newer version of the package and leaves it as it was", async () => {
    const file = tempFile();
    const first = make(file);
    await first.seed();
    await first.commit("s", [{ name: "A", data: {} }], meta);
    await first.dispose();
    const raw = new Database(file);
    raw.exec("PRAGMA user_version = 99");
    raw.close();
    const before = digest(file);
    const error = await refusal(make(file));
    expect(error.message).toContain(file);
    expect(error.message).toMatch(/newer version of @act-root\/act-sqlite \(schema version 99/);
    expect(digest(file)).toBe(before);
  });
});

describe("schema versions", () => {
  it("moves a version 1 file forward, keeping its events and watermarks", async () => {
    const file = tempFile();
    const raw = new Database(file);
    // The first schema: watermarks without lease generations or reactions.
    raw.exec(`
      CREATE TABLE act_events (id INTEGER PRIMARY KEY AUTOINCREMENT, stream TEXT NOT NULL, version INTEGER NOT NULL,
        name TEXT NOT NULL, data TEXT NOT NULL, meta TEXT NOT NULL, created INTEGER NOT NULL);
      CREATE UNIQUE INDEX act_events_stream_version ON act_events (stream, version);
      CREATE TABLE act_watermarks (stream TEXT PRIMARY KEY, source TEXT, at INTEGER NOT NULL, retry INTEGER NOT NULL DEFAULT 0,
        blocked INTEGER NOT NULL DEFAULT 0, error TEXT, leased_by TEXT, leased_until INTEGER, done TEXT NOT NULL DEFAULT '[]',
        head INTEGER NOT NULL DEFAULT -1);
      CREATE TABLE act_keys (stream TEXT NOT NULL, key TEXT NOT NULL, from_version INTEGER NOT NULL, to_version INTEGER NOT NULL,
        expires INTEGER NOT NULL, PRIMARY KEY (stream, key)) WITHOUT ROWID;
      INSERT INTO act_events (stream, version, name, data, meta, created) VALUES ('s', 0, 'A', '{"n":1}', '{"correlation":"c","causation":{}}', 0);
      INSERT INTO act_watermarks (stream, at, head) VALUES ('r', -1, 1);
      PRAGMA user_version = 1;
    `);
    raw.close();
    const store = make(file);
    await store.seed();
    const events: unknown[] = [];
    await store.query((e) => events.push(e.data));
    expect(events).toEqual([{ n: 1 }]);
    const [granted] = (await store.lease([{ stream: "r", by: "d", at: -1, retry: 0 }], 1_000)) as Array<{
      token?: number;
    }>;
    expect(granted.token).toBe(1);
    // Version 3: positions of discovery, none yet on an upgraded file, recorded from then on.
    expect(await store.discovered(["A/r#1"])).toEqual(new Map());
    await store.discover(["A/r#1"], 0);
    expect(await store.discovered(["A/r#1"])).toEqual(new Map([["A/r#1", 0]]));
    const check = new Database(file);
    expect((check.prepare("PRAGMA user_version").raw(true).get() as number[])[0]).toBe(3);
    check.close();
  });

  it("keeps what was committed after the store is closed and opened again", async () => {
    const file = tempFile();
    const first = make(file);
    await first.seed();
    const [a] = await first.commit("s", [{ name: "A", data: { when: new Date(5).toJSON() } }], meta);
    await first.dispose();
    const second = make(file);
    await second.seed();
    const events: Array<{ id: number; created: Date; data: unknown }> = [];
    await second.query((e) => events.push(e));
    expect(events).toEqual([
      expect.objectContaining({ id: a.id, created: a.created, data: { when: "1970-01-01T00:00:00.005Z" } }),
    ]);
    const [b] = await second.commit("s", [{ name: "B", data: {} }], meta, 0);
    expect(b.id).toBeGreaterThan(a.id);
  });
});

describe("options and lifecycle", () => {
  it("refuses options out of range", () => {
    expect(() => new SqliteStore({ filename: ":memory:", synchronous: "OFF" as never })).toThrow(/synchronous/);
    expect(() => new SqliteStore({ filename: ":memory:", busyTimeoutMillis: -1 })).toThrow(/busyTimeoutMillis/);
    expect(() => new SqliteStore({} as never)).toThrow(/filename/);
  });

  it("fails every call after dispose with a StoreError that is not retryable", async () => {
    const store = make(":memory:");
    await store.seed();
    await store.dispose();
    await store.dispose(); // twice is fine
    const error = await store.commit("s", [{ name: "A", data: {} }], meta).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ reason: "disposed", retryable: false });
  });
});

describe("backups", () => {
  it("backup() copies the running database to a new file, and refuses to overwrite one", async () => {
    const file = tempFile();
    const live = make(file);
    await live.seed();
    for (let i = 0; i < 20; i++) await live.commit(`s-${i % 3}`, [{ name: "A", data: { i } }], meta);
    const backup = join(dirname(file), "backup.db");
    await live.backup(backup);
    await live.commit("s-0", [{ name: "After", data: {} }], meta);
    const error = await live.backup(backup).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toContain(backup);
    const copy = make(backup);
    await copy.seed();
    const names: string[] = [];
    await copy.query((e) => names.push(e.name));
    expect(names).toHaveLength(20);
  });

  it("VACUUM INTO on another connection copies a running database, recent commits in the WAL included", async () => {
    const file = tempFile();
    const live = make(file);
    await live.seed();
    for (let i = 0; i < 20; i++) await live.commit(`s-${i % 3}`, [{ name: "A", data: { i } }], meta);
    const backup = join(dirname(file), "backup.db");
    const raw = new Database(file);
    raw.exec(`VACUUM INTO '${backup}'`);
    raw.close();
    await live.commit("s-0", [{ name: "After", data: {} }], meta);
    const copy = make(backup);
    await copy.seed();
    const names: string[] = [];
    await copy.query((e) => names.push(e.name));
    expect(names).toHaveLength(20);
    expect(names).not.toContain("After");
  });
});
