/**
 * Two apps in one process, each bound to its own PostgreSQL table with
 * `build({ store })`: each commits, reacts, projects and drains with its own
 * consumer (woken by its own table's notifications), and neither sees the
 * other's events or reaction streams — nor does the store port's store.
 */
import { store } from "@act-root/act";
import { settle } from "@act-root/act/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresStore } from "../src/index.js";
import { auditedApp, Counter, streamsOf } from "../../act/test/audited-app.js";
import { makeStore } from "./support.js";

const actor = { id: "u", name: "U" };
let left: PostgresStore;
let right: PostgresStore;

beforeAll(async () => {
  left = makeStore({ table: "per_app_left" });
  right = makeStore({ table: "per_app_right" });
  for (const s of [left, right]) {
    await s.drop();
    await s.seed();
  }
});
afterAll(async () => {
  for (const s of [left, right]) {
    await s.drop();
    await s.dispose();
  }
});

describe("two apps on two PostgreSQL tables in one process", () => {
  it("each drains with its own consumer on its own table, neither seeing the other's events or streams", async () => {
    const leftTotals = new Map<string, number>();
    const rightTotals = new Map<string, number>();
    const a = auditedApp(left, leftTotals);
    const b = auditedApp(right, rightTotals);
    a.app.start({ pollMillis: 60_000 });
    b.app.start({ pollMillis: 60_000 });
    try {
      const fromA = await a.app.do("increment", { stream: "c", actor }, { by: 1 });
      const fromB = await b.app.do("increment", { stream: "c", actor }, { by: 10 });
      await b.app.do("increment", { stream: "only-b", actor }, { by: 5 });
      await a.app.settled(fromA, { timeoutMillis: 10_000 });
      await b.app.settled(fromB, { timeoutMillis: 10_000 });
      await a.app.projected(a.Totals, fromA, { timeoutMillis: 10_000 });
      await b.app.projected(b.Totals, fromB, { timeoutMillis: 10_000 });
    } finally {
      await a.app.stop();
      await b.app.stop();
    }
    expect((await a.app.load(Counter, "audit-c")).state.count).toBe(1);
    expect((await b.app.load(Counter, "audit-c")).state.count).toBe(10);
    expect(await streamsOf(left)).toEqual(["audit-c", "c"]);
    expect(await streamsOf(right)).toEqual(["audit-c", "audit-only-b", "c", "only-b"]);
    expect(leftTotals.get("c")).toBe(1);
    expect(rightTotals.get("c")).toBe(10);
    expect((await left.reactions()).map((r) => r.stream)).not.toContain("audit-only-b");
    // The store port holds a store of its own, untouched by either app.
    expect(await streamsOf(store())).toEqual([]);
  });

  it("settles an app bound to its table with the testing kit while the port holds another store", async () => {
    const { app } = auditedApp(left, new Map());
    await app.do("increment", { stream: "kit", actor }, { by: 2 });
    await settle(app);
    expect((await app.load(Counter, "audit-kit")).state.count).toBe(2);
    expect(await streamsOf(right)).not.toContain("kit");
    expect(await streamsOf(store())).toEqual([]);
  });
});
