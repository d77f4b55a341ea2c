/**
 * Files the store is pointed at: wrong paths and wrong files are refused with
 * an error naming the file and left as they were; older schemas move forward;
 * what was committed is there after reopening.
 */
import { StoreError } from "@act-root/act";
import Database from "libsql";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, lstatSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
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
    await first.commit({ stream: "s", messages: [{ name: "A", data: {} }], meta });
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
    await first.commit({ stream: "s", messages: [{ name: "A", data: {} }], meta });
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
      INSERT INTO act_keys (stream, key, from_version, to_version, expires) VALUES ('s', 'old-key', 0, 0, 9e15);
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
    // Version 4: idempotency keys keep what their request asked for; a key stored before has nothing.
    expect(await store.recall("s", "old-key")).toEqual({ from: 0, to: 0 });
    await store.commit({
      stream: "s",
      messages: [{ name: "B", data: {} }],
      meta,
      expectedVersion: 0,
      idempotencyKey: "new-key",
      request: "sha256:ab",
    });
    expect(await store.recall("s", "new-key")).toEqual({ from: 1, to: 1, request: "sha256:ab" });
    // Version 5: reactions ahead of a watermark that moved back for one that joined late; none on an upgraded file.
    const [again] = await store.lease([{ stream: "r", by: "d", at: -1, retry: 0, token: granted.token }], 1_000);
    expect(again.ahead).toEqual({});
    // Version 6: timers, none on an upgraded file, kept from then on.
    const due = new Date(0);
    expect(await store.timers.list()).toEqual([]);
    const timer = { id: "t", action: "a", stream: "s", actor: { id: "u", name: "U" }, payload: {}, due };
    expect(await store.timers.schedule([timer])).toEqual(["t"]);
    // Version 7: keys of data subjects, none on an upgraded file, kept from then on.
    expect(await store.keys.read([{ subject: "p", version: 1 }])).toEqual([]);
    expect(await store.keys.current({ subject: "p", stream: "s", fresh: "a2V5" })).toEqual({
      subject: "p",
      version: 1,
      key: "a2V5",
    });
    // Version 8: the archive, empty on an upgraded file; its move finds no closed stream.
    expect(await store.archive.move({ closedBefore: new Date(), at: new Date(), reactions: [] })).toEqual({
      events: 0,
      streams: [],
      held: 0,
    });
    expect(await store.archive.query(() => {})).toBe(0);
    const check = new Database(file);
    expect((check.prepare("PRAGMA user_version").raw(true).get() as number[])[0]).toBe(9);
    check.close();
  });

  it("adds the timers' correlation to a version 8 file written before it, keeping its timers", async () => {
    const file = tempFile();
    await make(file).seed();
    const raw = new Database(file);
    // The timers table as version 6 to 8 first wrote it: no correlation column.
    raw.exec(`
      DROP TABLE act_timers;
      CREATE TABLE act_timers (id TEXT PRIMARY KEY, action TEXT NOT NULL, stream TEXT NOT NULL, actor TEXT NOT NULL,
        payload TEXT NOT NULL, due INTEGER NOT NULL, status TEXT NOT NULL DEFAULT 'pending', token INTEGER NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0, claimed_by TEXT, claimed_until INTEGER NOT NULL DEFAULT 0, fired INTEGER,
        error TEXT) WITHOUT ROWID;
      CREATE INDEX act_timers_pending ON act_timers (due, id) WHERE status = 'pending';
      INSERT INTO act_timers (id, action, stream, actor, payload, due) VALUES ('old', 'a', 's', '{"id":"u","name":"U"}', '{}', 0);
      PRAGMA user_version = 8;
    `);
    raw.close();
    for (let i = 0; i < 2; i++) {
      // Twice: an upgraded file opens again without another change.
      const store = make(file);
      await store.seed();
      await store.dispose();
    }
    const store = make(file);
    const actor = { id: "u", name: "U" };
    await store.timers.schedule([
      { id: "new", action: "a", stream: "s", actor, payload: {}, due: new Date(1), correlation: "c-1" },
    ]);
    const claimed = await store.timers.claim({ now: new Date(5), by: "p", millis: 1_000, limit: 10, actions: ["a"] });
    expect(claimed.map(({ id, correlation }) => ({ id, correlation }))).toEqual([
      { id: "old", correlation: undefined },
      { id: "new", correlation: "c-1" },
    ]);
    const check = new Database(file);
    expect((check.prepare("PRAGMA user_version").raw(true).get() as number[])[0]).toBe(9);
    check.close();
  });

  it("keeps what was committed after the store is closed and opened again", async () => {
    const file = tempFile();
    const first = make(file);
    await first.seed();
    const [a] = await first.commit({
      stream: "s",
      messages: [{ name: "A", data: { when: new Date(5).toJSON() } }],
      meta,
    });
    await first.dispose();
    const second = make(file);
    await second.seed();
    const events: Array<{ id: number; created: Date; data: unknown }> = [];
    await second.query((e) => events.push(e));
    expect(events).toEqual([
      expect.objectContaining({ id: a.id, created: a.created, data: { when: "1970-01-01T00:00:00.005Z" } }),
    ]);
    const [b] = await second.commit({ stream: "s", messages: [{ name: "B", data: {} }], meta, expectedVersion: 0 });
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
    const error = await store
      .commit({ stream: "s", messages: [{ name: "A", data: {} }], meta })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ reason: "disposed", retryable: false });
  });
});

describe("calls after dispose", () => {
  const lease = { stream: "r", source: "s", by: "d", at: -1, retry: 0 };
  const calls: [string, (store: SqliteStore) => Promise<unknown>][] = [
    ["lease", (store) => store.lease([lease], 1_000)],
    ["ack", (store) => store.ack([lease])],
    ["block", (store) => store.block([{ ...lease, error: "no" }])],
    ["unblock", (store) => store.unblock(["r"])],
    ["reset", (store) => store.reset(["r"])],
    ["retire", (store) => store.retire(["x"])],
    ["discover", (store) => store.discover(["x"], 0)],
    ["project", (store) => store.project({ ...lease, token: 1 }, () => {})],
  ];

  it("fail each with a StoreError that names the call", async () => {
    const store = make(":memory:");
    await store.seed();
    await store.dispose();
    for (const [operation, call] of calls) {
      const error = await call(store).catch((e: unknown) => e);
      expect(error, operation).toBeInstanceOf(StoreError);
      expect(error, operation).toMatchObject({ operation, reason: "disposed" });
    }
  });

  it("answer at once when given nothing to do, without touching the file", async () => {
    const store = make(":memory:");
    await store.seed();
    await store.dispose();
    expect(await store.lease([], 1_000)).toEqual([]);
    expect(await store.ack([])).toEqual([]);
    expect(await store.block([])).toEqual([]);
    expect(await store.discovered([])).toEqual(new Map());
    await expect(store.discover([], 0)).resolves.toBeUndefined();
  });
});

describe("backups", () => {
  it("backup() copies the running database to a new file, and refuses to overwrite one", async () => {
    const file = tempFile();
    const live = make(file);
    await live.seed();
    for (let i = 0; i < 20; i++)
      await live.commit({ stream: `s-${i % 3}`, messages: [{ name: "A", data: { i } }], meta });
    const backup = join(dirname(file), "backup.db");
    await live.backup(backup);
    await live.commit({ stream: "s-0", messages: [{ name: "After", data: {} }], meta });
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
    for (let i = 0; i < 20; i++)
      await live.commit({ stream: `s-${i % 3}`, messages: [{ name: "A", data: { i } }], meta });
    const backup = join(dirname(file), "backup.db");
    const raw = new Database(file);
    raw.exec(`VACUUM INTO '${backup}'`);
    raw.close();
    await live.commit({ stream: "s-0", messages: [{ name: "After", data: {} }], meta });
    const copy = make(backup);
    await copy.seed();
    const names: string[] = [];
    await copy.query((e) => names.push(e.name));
    expect(names).toHaveLength(20);
    expect(names).not.toContain("After");
  });
});

describe("file permissions", () => {
  /** The permission bits of a file (not of a link's target). */
  const mode = (path: string) => lstatSync(path).mode & 0o777;

  it("a new database and its -wal and -shm files are readable and writable by their owner only", async () => {
    const file = tempFile();
    const store = make(file);
    await store.seed();
    await store.commit({ stream: "s", messages: [{ name: "A", data: {} }], meta });
    for (const path of [file, `${file}-wal`, `${file}-shm`]) expect(mode(path), path).toBe(0o600);
  });

  it("an existing database keeps the mode its owner gave it", async () => {
    const file = tempFile();
    writeFileSync(file, "");
    chmodSync(file, 0o640);
    const store = make(file);
    await store.seed();
    expect(mode(file)).toBe(0o640);
  });

  it("a backup is readable and writable by its owner only", async () => {
    const file = tempFile();
    const live = make(file);
    await live.seed();
    await live.commit({ stream: "s", messages: [{ name: "A", data: {} }], meta });
    const backup = join(dirname(file), "backup.db");
    await live.backup(backup);
    expect(mode(backup)).toBe(0o600);
    const names: string[] = [];
    await make(backup).query((e) => names.push(e.name));
    expect(names).toEqual(["A"]);
  });
});

describe("backup destinations", () => {
  async function refused(store: SqliteStore, destination: string): Promise<StoreError> {
    const error = await store.backup(destination).then(
      () => undefined,
      (e: unknown) => e
    );
    expect(error, destination).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ operation: "backup", reason: "rejected", retryable: false });
    return error as StoreError;
  }

  it("refuses a file: URI, whose parameters SQLite would read, and writes nothing", async () => {
    const file = tempFile();
    const live = make(file);
    await live.seed();
    const dir = dirname(file);
    for (const uri of [`file:${dir}/uri.db?mode=rwc`, `FILE:${dir}/uri.db`, "file:uri.db"]) {
      const error = await refused(live, uri);
      expect(error.message).toMatch(/`file:` URI is not accepted/);
    }
    expect(readdirSync(dir).sort()).toEqual(["test.db", "test.db-shm", "test.db-wal"]);
  });

  it("refuses a symbolic link, dangling or not, and leaves what it points at alone", async () => {
    const file = tempFile();
    const live = make(file);
    await live.seed();
    const dir = dirname(file);
    // A link planted where the app will write its backup, pointing somewhere the attacker reads.
    const dangling = join(dir, "dangling.db");
    const target = join(dir, "elsewhere.db");
    symlinkSync(target, dangling);
    expect((await refused(live, dangling)).message).toMatch(/symbolic link/);
    expect(existsSync(target)).toBe(false);
    const present = join(dir, "present.db");
    const empty = join(dir, "empty.db");
    writeFileSync(empty, "");
    symlinkSync(empty, present);
    expect((await refused(live, present)).message).toMatch(/symbolic link/);
    expect(readFileSync(empty, "utf8")).toBe("");
    expect(lstatSync(present).isSymbolicLink()).toBe(true);
  });

  it("refuses an existing file and a missing directory, and creates nothing", async () => {
    const file = tempFile();
    const live = make(file);
    await live.seed();
    const dir = dirname(file);
    const existing = join(dir, "existing.db");
    writeFileSync(existing, "");
    expect((await refused(live, existing)).message).toMatch(/exists/);
    expect(readFileSync(existing, "utf8")).toBe("");
    const missing = join(dir, "missing", "backup.db");
    expect((await refused(live, missing)).message).toMatch(/does not exist/);
    expect(existsSync(dirname(missing))).toBe(false);
    for (const nothing of ["", ":memory:"]) await refused(live, nothing);
  });
});
