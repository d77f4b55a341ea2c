/**
 * Copying into and out of SQLite (`copyStore`): the shared suite from the
 * in-memory store, the id sequence after a copy, and the `act-copy`
 * command on two files.
 */
import { copyStore, InMemoryStore, logDigest, type Store } from "@act-root/act";
import { describe, expect, it } from "vitest";
import { copySuite } from "../../act/test/copy.suite.js";
import { runCopyCommand } from "../../act/src/cli/copy-command.js";
import { SqliteStore } from "../src/index.js";
import { meta, tempFile } from "./support.js";

const opened: Store[] = [];
/** A seeded store, disposed after the test. */
const open = async (store: Store) => {
  opened.push(store);
  await store.seed();
  return store;
};
const disposeAll = async () => {
  for (const store of opened.splice(0)) await store.dispose();
};

copySuite("memory → SQLite", {
  source: () => open(new InMemoryStore()),
  target: () => open(new SqliteStore({ filename: tempFile() })),
  dispose: disposeAll,
});

copySuite("SQLite → SQLite", {
  source: () => open(new SqliteStore({ filename: tempFile() })),
  target: () => open(new SqliteStore({ filename: tempFile() })),
  dispose: disposeAll,
});

describe("a copy into SQLite", () => {
  it("moves the id sequence past the copied ids, so new events follow them even when the source's ids have gaps", async () => {
    const source = new InMemoryStore();
    await source.commit({ stream: "a", messages: [{ name: "E", data: {} }], meta });
    await source.drop(); // ids go on from 1
    await source.commit({
      stream: "a",
      messages: [
        { name: "E", data: {} },
        { name: "E", data: {} },
      ],
      meta,
    });
    const target = new SqliteStore({ filename: tempFile() });
    await copyStore(source, target);
    const [next] = await target.commit({ stream: "b", messages: [{ name: "E", data: {} }], meta });
    expect(next.id).toBe(3);
    await target.dispose();
  });

  it("refuses a page that does not follow the target's last event, and writes nothing of it", async () => {
    const target = new SqliteStore({ filename: tempFile() });
    await target.seed();
    const event = { id: 5, stream: "a", version: 0, name: "E", data: {}, meta, created: new Date() };
    await expect(target.transfer.append([event], 4)).rejects.toThrow(/last event is -1, not 4/);
    await target.transfer.append([event], -1);
    await expect(target.transfer.append([{ ...event, id: 5, version: 1 }], 5)).rejects.toThrow(/ids must grow/);
    const records = {
      watermarks: [],
      keys: [],
      discovery: [{ reaction: "E/r", at: 5 }],
      timers: [],
      subjects: [{ subject: "s-1", keys: [null, "a2V5"], streams: ["a", "b"] }],
    };
    await expect(target.transfer.restore(records)).resolves.toBeUndefined();
    await expect(target.transfer.restore({ ...records, discovery: [], subjects: [] })).rejects.toThrow(
      /already holds 3/
    );
    expect(await target.transfer.records()).toEqual(records);
    expect((await logDigest(target)).events).toBe(1);
    const archived = { event: { ...event, id: 2, stream: "z" }, archived: 1_000 };
    await expect(target.transfer.archive([archived], 1)).rejects.toThrow(/archive's last event is -1, not 1/);
    await target.transfer.archive([archived], -1);
    await expect(target.transfer.archive([archived], 2)).rejects.toThrow(/ids must grow: 2 follows 2/);
    expect(await target.transfer.archived(-1, 10)).toEqual([archived]);
    expect((await logDigest(target)).archive).toMatchObject({ events: 1, last: 2 });
    await target.dispose();
  });
});

describe("act-copy", () => {
  const openFile = async (url: string) => {
    if (!url.startsWith("sqlite:")) throw new Error(`"${url}" is not a store: write sqlite:<path> or postgres://…`);
    return new SqliteStore({ filename: url.slice(7) }) as Store;
  };
  const run = async (argv: string[], env: Record<string, string> = {}) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCopyCommand(argv, { out: (l) => out.push(l), err: (l) => err.push(l) }, openFile, env);
    return { code, out: out.join("\n"), err: err.join("\n") };
  };

  it("copies one file into another, printing progress and the digest both logs share", async () => {
    const from = tempFile();
    const source = new SqliteStore({ filename: from });
    await source.seed();
    for (let i = 0; i < 30; i++)
      await source.commit({ stream: `s-${i % 3}`, messages: [{ name: "E", data: { i } }], meta });
    const digest = await logDigest(source);
    await source.dispose();
    const to = tempFile();

    const copied = await run(["--from", `sqlite:${from}`, "--to", "env:TARGET", "--batch", "7"], {
      TARGET: `sqlite:${to}`,
    });
    expect(copied).toMatchObject({ code: 0, err: "" });
    expect(copied.out).toContain("events: 0 copied");
    expect(copied.out).toContain("done: 30 events copied");
    expect(copied.out).toContain(digest.digest);

    const printed = await run(["--digest", `sqlite:${to}`]);
    expect(printed).toMatchObject({ code: 0, out: `30 events, last id 29, ${digest.digest}` });
    // Copying again into the same file: nothing left to copy, and still equal.
    expect((await run(["--from", `sqlite:${from}`, "--to", `sqlite:${to}`])).out).toContain(
      "done: 0 events copied (continued after id 29)"
    );
  });

  it("exits 2 on wrong arguments and 1 with the reason when the copy is refused", async () => {
    expect(await run(["--from", "sqlite:a.db"])).toMatchObject({
      code: 2,
      err: expect.stringContaining("both --from and --to are needed"),
    });
    expect(await run(["--from", "sqlite:a", "--to", "sqlite:b", "--batch", "0"])).toMatchObject({
      code: 2,
      err: expect.stringContaining("--batch must be a whole number"),
    });
    expect(await run(["--to", "env:NOPE", "--from", "sqlite:a"])).toMatchObject({
      code: 2,
      err: expect.stringContaining("NOPE is not set"),
    });
    expect(await run(["--help"])).toMatchObject({ code: 0, out: expect.stringContaining("act-copy --from <store>") });

    const from = tempFile();
    const to = tempFile();
    for (const file of [from, to]) {
      const store = new SqliteStore({ filename: file });
      await store.seed();
      await store.commit({ stream: file, messages: [{ name: "E", data: {} }], meta });
      await store.dispose();
    }
    const refused = await run(["--from", `sqlite:${from}`, "--to", `sqlite:${to}`]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/^act-copy: copyStore: the target is not empty and is not a copy of the source/);
  });
});
