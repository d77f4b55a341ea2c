/**
 * The real app on a SQLite file: snapshots written by `.snap()` and loads
 * that start from them, time travel, and the state surviving a reopened file.
 */
import { act, disposeAndExit, SNAP_EVENT, state, store } from "@act-root/act";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { SqliteStore } from "../src/index.js";
import { sleep, tempFile } from "./support.js";

const Counter = state("Counter", z.object({ count: z.number() }))
  .init(() => ({ count: 0 }))
  .emits({ Incremented: z.object({ by: z.number() }) })
  .patch({ Incremented: (e, s) => ({ count: s.count + e.data.by }) })
  .on("increment", z.object({ by: z.number() }))
  .emit(({ by }) => ["Incremented", { by }])
  .snap((s) => s.patches >= 10)
  .build();

const actor = { id: "u", name: "U" };
const file = tempFile();
const app = act().with(Counter).build();

beforeAll(async () => {
  store(new SqliteStore({ filename: file }));
  await store().seed();
});

afterAll(async () => {
  await disposeAndExit();
});

describe("the app on a SQLite file", () => {
  it("writes snapshots and loads from the latest one, reading only the events after it", async () => {
    for (let i = 0; i < 25; i++) await app.do("increment", { stream: "c", actor }, { by: 1 });
    const snaps: number[] = [];
    await store().query((e) => snaps.push(e.version), { stream: "c", names: [SNAP_EVENT], with_snaps: true });
    expect(snaps.length).toBeGreaterThanOrEqual(2);
    let folded = 0;
    const loaded = await app.load(Counter, "c", { onSnapshot: () => folded++ });
    expect(loaded.state.count).toBe(25);
    expect(folded).toBeLessThan(10); // the tail after the last snapshot, not 25 events
  });

  it("travels in time: by version, by id and by creation time", async () => {
    const first = await app.do("increment", { stream: "t", actor }, { by: 1 });
    await sleep(20);
    const cut = new Date();
    await sleep(20);
    await app.do("increment", { stream: "t", actor }, { by: 10 });
    await app.do("increment", { stream: "t", actor }, { by: 100 });
    expect((await app.load(Counter, "t", { at: { version: 0 } })).state.count).toBe(1);
    expect((await app.load(Counter, "t", { at: { id: first[0].event!.id } })).state.count).toBe(1);
    expect((await app.load(Counter, "t", { at: { time: cut } })).state.count).toBe(1);
    expect((await app.load(Counter, "t", { at: { version: 1 } })).state.count).toBe(11);
    expect((await app.load(Counter, "t")).state.count).toBe(111);
  });

  it("travels in time across snapshots", async () => {
    let expected = 0;
    await store().query((e) => e.version <= 15 && expected++, { stream: "c", names: ["Incremented"] });
    expect(expected).toBeGreaterThan(10);
    expect((await app.load(Counter, "c", { at: { version: 15 } })).state.count).toBe(expected);
  });

  it("finds the state again in the file from another store", async () => {
    const other = new SqliteStore({ filename: file });
    const names: string[] = [];
    expect(await other.query((e) => names.push(e.name), { stream: "c", from_snapshot: Counter.version })).toBeLessThan(
      10
    );
    expect(names[0]).toBe(SNAP_EVENT);
    await other.dispose();
  });
});
