/**
 * Visibility-safe reading: a commit whose transaction is still open when
 * later commits become visible must not be skipped by readers that track a
 * position — `query({ after })`, `poll`, and drains.
 */
import { act, type Committed, store } from "@act-root/act";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresStore } from "../src/index.js";
import { Counter } from "./fixtures/states.js";
import * as q from "../src/sql.js";
import { client, makeStore, sql } from "./support.js";

const handled: Array<{ id: number; stream: string }> = [];
const sourced: number[] = [];
const app = act()
  .with(Counter)
  // No source: this reaction reads the whole log by global position.
  .on("Incremented")
  .do(async function audit(event) {
    handled.push({ id: event.id, stream: event.stream });
  })
  .to("audit")
  // Default: on the event's own stream, reading that stream only.
  .on("Incremented")
  .do(async function own(event) {
    sourced.push(event.id);
  })
  .build();
const actor = { id: "u", name: "U" };

let pgStore: PostgresStore;
let held: pg.Client;

beforeAll(async () => {
  pgStore = makeStore({ table: "visibility" });
  store(pgStore);
  await pgStore.drop();
  await pgStore.seed();
});

afterAll(async () => {
  await held?.query("ROLLBACK").catch(() => {});
  await held?.end();
  await pgStore.drop();
  await pgStore.dispose();
});

/** Drains until a drain acknowledges nothing. */
async function drainAll() {
  for (let i = 0; i < 20; i++) {
    const { acked } = await app.drain({ leaseMillis: 5_000 });
    if (!acked.length) return;
  }
}

const watermark = async (stream: string) =>
  (
    await sql<{ at: number }>(`SELECT at::float8 AS at FROM public.visibility_watermarks WHERE stream = $1`, [stream])
  )[0]?.at;

describe("a commit held open while later commits become visible", () => {
  it("is not skipped by queries after a position, by poll, or by a drain", async () => {
    const [first] = await app.do("increment", { stream: "s1", actor }, { by: 1 });

    // Another connection starts a commit (the store's own statement) and keeps its transaction open.
    held = await client();
    await held.query("BEGIN");
    await held.query("SELECT pg_current_xact_id()");
    const commitSql = q.commit(q.names("public", "visibility"), false);
    const { rows } = await held.query(commitSql, [
      "late",
      JSON.stringify([{ name: "Incremented", data: { by: 100 } }]),
      JSON.stringify({ correlation: "late", causation: {} }),
      -1,
      null,
    ]);
    const lateId = Number(rows[0].id);

    // Later commits become visible, with higher ids.
    const [second] = await app.do("increment", { stream: "s2", actor }, { by: 2 });
    const [third] = await app.do("increment", { stream: "s3", actor }, { by: 3 });
    expect(second.event!.id).toBeGreaterThan(lateId);
    expect(third.event!.id).toBeGreaterThan(lateId);

    // Loads of a stream see its committed events at once (actions are not held back)…
    expect((await app.load(Counter, "s2")).state.count).toBe(2);
    // …but position-based reads stop before the open transaction: a reader that
    // moved to s3's id now would never see "late", which commits below it.
    const after: number[] = [];
    await pgStore.query((e) => after.push(e.id), { after: -1 });
    expect(after).toEqual([first.event!.id]);

    for (let i = 0; i < 3; i++) await app.drain({ leaseMillis: 5_000 });
    expect(handled.map((h) => h.id)).toEqual([first.event!.id]);
    expect(await watermark("audit")).toBeLessThan(lateId);

    await held.query("COMMIT");
    await drainAll();
    expect(handled.map((h) => h.stream)).toEqual(["s1", "late", "s2", "s3"]);
    expect(handled.map((h) => h.id)).toEqual([first.event!.id, lateId, second.event!.id, third.event!.id]);
    expect(await watermark("audit")).toBe(third.event!.id);
    expect([...sourced].sort((a, b) => a - b)).toEqual([first.event!.id, lateId, second.event!.id, third.event!.id]);
  });

  it("orders events of concurrent commits consistently across readers", async () => {
    // Many small concurrent commits: a reader continuing from its last position
    // while they land sees each event exactly once, in id order. Several rounds,
    // since a race between a writer ending and the reader's bound is rare.
    for (let round = 0; round < 8; round++) {
      const seen: Committed<any, any>[] = [];
      let position = -1;
      const read = async () => {
        await pgStore.query(
          (e) => {
            seen.push(e);
            position = e.id;
          },
          { after: position }
        );
      };
      const writers = Array.from({ length: 8 }, async (_, w) => {
        for (let i = 0; i < 25; i++)
          await pgStore.commit({
            stream: `w${round}-${w}`,
            messages: [{ name: "Incremented", data: { by: i } }],
            meta: {
              correlation: "x",
              causation: {},
            },
          });
      });
      let done = false;
      const reader = (async () => {
        while (!done) await read();
      })();
      await Promise.all(writers);
      done = true;
      await reader;
      await read();
      const ids = seen.filter((e) => e.stream.startsWith(`w${round}-`)).map((e) => e.id);
      expect(ids, `round ${round}`).toHaveLength(200);
      expect(new Set(ids).size).toBe(200);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    }
  });
});
