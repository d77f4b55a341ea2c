/**
 * The test kit's settle() on PostgreSQL, as the testing guide promises: the
 * same helper settles reaction chains and reports blocked streams when the
 * store is a PostgresStore (watermarks, backoffs and leases kept by the
 * database, event ids that keep growing after a drop).
 */
import { act, store } from "@act-root/act";
import { SettleError, settle } from "@act-root/act/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { PostgresStore } from "../src/index.js";
import { Counter } from "./fixtures/states.js";
import { makeStore } from "./support.js";

const actor = { id: "u", name: "U" };
let pgStore: PostgresStore;

beforeAll(() => {
  pgStore = makeStore({ table: "settle" });
  store(pgStore);
});
beforeEach(async () => {
  await pgStore.drop();
  await pgStore.seed();
});
afterAll(async () => {
  await pgStore.drop();
  await pgStore.dispose();
});

describe("settle on PostgreSQL", () => {
  it("runs a reaction chain of several hops to its end", async () => {
    const app = act()
      .with(Counter)
      .on("Incremented")
      .do(async (event, _stream, app) => {
        const hop = Number(event.stream.split("-")[1]);
        if (hop < 3)
          await app.do("increment", { stream: `hop-${hop + 1}`, actor }, { by: event.data.by }, { reactingTo: event });
      })
      .build();
    await app.do("increment", { stream: "hop-0", actor }, { by: 5 });
    await settle(app);
    for (let hop = 0; hop <= 3; hop++) expect((await app.load(Counter, `hop-${hop}`)).state.count).toBe(5);
  });

  it("waits out retries, then names the blocked stream and its error", async () => {
    let calls = 0;
    const app = act()
      .with(Counter)
      .on("Incremented")
      .do(
        async function audit() {
          calls++;
          throw new Error("audit is down");
        },
        { maxRetries: 2, retryBaseMillis: 50 }
      )
      .to("audit")
      .build();
    await app.do("increment", { stream: "c", actor }, { by: 1 });
    const error = (await settle(app).catch((e: unknown) => e)) as SettleError;
    expect(error).toBeInstanceOf(SettleError);
    expect(error).toMatchObject({ reason: "blocked", streams: ["audit"] });
    expect(error.message).toMatch(/audit is down/);
    expect(calls).toBe(3);
  });

  it("finds the reactions of events committed after a drop, even with the app's own drain: ids keep growing", async () => {
    const seen: number[] = [];
    const app = act()
      .with(Counter)
      .on("Incremented")
      .do(async (event) => void seen.push(event.data.by))
      .to("log")
      .build();
    const [{ event: first }] = await app.do("increment", { stream: "c", actor }, { by: 1 });
    await settle(app);
    await pgStore.drop();
    await pgStore.seed();
    await app.do("increment", { stream: "c", actor }, { by: 2 });
    const [event] = await app.queryArray({ stream: "c" });
    expect(event.id).toBeGreaterThan(first!.id); // unlike in memory, where ids start again from 0
    await app.drain();
    expect(seen).toEqual([1, 2]);
    expect(await settle(app)).toEqual({ drains: 0, blocked: [] });
  });
});
