/**
 * An in-memory read model beside a SQLite app in one process: each app is
 * bound to its store with `build({ store })`, commits, reacts, projects and
 * drains with its own consumer there, and neither sees the other's events
 * or reaction streams.
 */
import { disposeAndExit, InMemoryStore, store } from "@act-root/act";
import { settle } from "@act-root/act/testing";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteStore } from "../src/index.js";
import { auditedApp, Counter, streamsOf } from "../../act/test/audited-app.js";
import { tempFile } from "./support.js";

const actor = { id: "u", name: "U" };

afterAll(async () => {
  await disposeAndExit();
});

describe("an in-memory app beside a SQLite app", () => {
  it("each commits, reacts, projects and drains with its own consumer, neither seeing the other's events", async () => {
    const sqlite = new SqliteStore({ filename: tempFile() });
    await sqlite.seed();
    const memory = new InMemoryStore();
    const onDisk = new Map<string, number>();
    const inMemory = new Map<string, number>();
    const a = auditedApp(sqlite, onDisk);
    const b = auditedApp(memory, inMemory);
    a.app.start({ pollMillis: 50 });
    b.app.start({ pollMillis: 50 });
    try {
      const fromA = await a.app.do("increment", { stream: "c", actor }, { by: 1 });
      const fromB = await b.app.do("increment", { stream: "c", actor }, { by: 10 });
      await b.app.do("increment", { stream: "only-memory", actor }, { by: 5 });
      await a.app.settled(fromA, { timeoutMillis: 4_000 });
      await b.app.settled(fromB, { timeoutMillis: 4_000 });
      await a.app.projected(a.Totals, fromA);
      await b.app.projected(b.Totals, fromB);
    } finally {
      await a.app.stop();
      await b.app.stop();
    }
    expect((await a.app.load(Counter, "audit-c")).state.count).toBe(1);
    expect((await b.app.load(Counter, "audit-c")).state.count).toBe(10);
    expect(await streamsOf(sqlite)).toEqual(["audit-c", "c"]);
    expect(await streamsOf(memory)).toEqual(["audit-c", "audit-only-memory", "c", "only-memory"]);
    expect(onDisk.get("c")).toBe(1);
    expect(inMemory.get("c")).toBe(10);
    expect((await sqlite.reactions()).map((r) => r.stream).sort()).toEqual(["audit-c", "c", "projection:Totals"]);
    // The store port's store saw nothing of either.
    expect(await streamsOf(store())).toEqual([]);
  });

  it("settles a SQLite app with the testing kit while the store port holds an in-memory store", async () => {
    const sqlite = new SqliteStore({ filename: tempFile() });
    await sqlite.seed();
    const { app } = auditedApp(sqlite, new Map());
    await app.do("increment", { stream: "kit", actor }, { by: 2 });
    await settle(app);
    expect((await app.load(Counter, "audit-kit")).state.count).toBe(2);
    expect(await streamsOf(store())).toEqual([]);
  });
});
