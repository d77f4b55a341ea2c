/**
 * Two apps in one process, each bound to its own PostgreSQL table with
 * `build({ store })`: each commits, reacts, projects and drains with its own
 * consumer (woken by its own table's notifications), and neither sees the
 * other's events or reaction streams — nor does the store port's store.
 */
import { act, projection, type Store, store } from "@act-root/act";
import { settle } from "@act-root/act/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresStore } from "../src/index.js";
import { Counter } from "./fixtures/states.js";
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

/** The app under test on `log`: each increment is audited on `audit-<stream>`, and the totals projected into `totals`. */
function build(log: Store, totals: Map<string, number>) {
  const Totals = projection("Totals")
    .with(Counter)
    .on("Incremented", (event) => void totals.set(event.stream, (totals.get(event.stream) ?? 0) + event.data.by))
    .build();
  const app = act()
    .with(Counter)
    .with(Totals)
    .on("Incremented")
    .do(async (event, _stream, app) => {
      if (!event.stream.startsWith("audit-"))
        await app.do(
          "increment",
          { stream: `audit-${event.stream}`, actor },
          { by: event.data.by },
          { reactingTo: event }
        );
    })
    .build({ store: log });
  return { app, Totals };
}

async function streams(log: Store) {
  const names = new Set<string>();
  await log.query((e) => void names.add(e.stream));
  return [...names].sort();
}

describe("two apps on two PostgreSQL tables in one process", () => {
  it("each drains with its own consumer on its own table, neither seeing the other's events or streams", async () => {
    const leftTotals = new Map<string, number>();
    const rightTotals = new Map<string, number>();
    const a = build(left, leftTotals);
    const b = build(right, rightTotals);
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
    expect(await streams(left)).toEqual(["audit-c", "c"]);
    expect(await streams(right)).toEqual(["audit-c", "audit-only-b", "c", "only-b"]);
    expect(leftTotals.get("c")).toBe(1);
    expect(rightTotals.get("c")).toBe(10);
    expect((await left.reactions()).map((r) => r.stream)).not.toContain("audit-only-b");
    // The store port holds a store of its own, untouched by either app.
    expect(await streams(store())).toEqual([]);
  });

  it("settles an app bound to its table with the testing kit while the port holds another store", async () => {
    const { app } = build(left, new Map());
    await app.do("increment", { stream: "kit", actor }, { by: 2 });
    await settle(app);
    expect((await app.load(Counter, "audit-kit")).state.count).toBe(2);
    expect(await streams(right)).not.toContain("kit");
    expect(await streams(store())).toEqual([]);
  });
});
