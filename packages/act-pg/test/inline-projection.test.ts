/**
 * Inline projections on Postgres: the handlers run on the commit's pooled
 * connection inside its transaction, so the events and the read model's rows
 * commit together or not at all — also when actions race on one stream.
 */
import { act, ConcurrencyError, projection, store } from "@act-root/act";
import fc from "fast-check";
import type pg from "pg";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import type { PostgresStore } from "../src/index.js";
import { Counter } from "./fixtures/states.js";
import { makeStore, sql } from "./support.js";
import { announce, replayPath, seedLabel, seedRuns } from "../../act/test/seeds.js";

const TABLE = "inline_events";
let pgStore: PostgresStore;
const actor = { id: "u", name: "U" };

beforeAll(async () => {
  pgStore = makeStore({ table: TABLE });
  store(pgStore);
  await sql("DROP TABLE IF EXISTS inline_totals");
  await sql("CREATE TABLE inline_totals (stream text PRIMARY KEY, total bigint NOT NULL, events int NOT NULL)");
});
beforeEach(async () => {
  await pgStore.drop();
  await pgStore.seed();
  await sql("TRUNCATE inline_totals");
});
afterAll(async () => {
  await pgStore.drop();
  await pgStore.dispose();
  await sql("DROP TABLE IF EXISTS inline_totals");
});

/** Totals per stream, upserted inside each commit; `by: 13` makes the handler throw after its write. */
const InlineTotals = projection<pg.PoolClient>("InlineTotals", { inline: true })
  .with(Counter)
  .on("Incremented", async (event, client) => {
    await client.query(
      `INSERT INTO inline_totals AS t (stream, total, events) VALUES ($1, $2, 1)
       ON CONFLICT (stream) DO UPDATE SET total = t.total + EXCLUDED.total, events = t.events + 1`,
      [event.stream, event.data.by]
    );
    if (event.data.by === 13) throw new Error("13 is not accepted");
  })
  .build();

const totals = async () =>
  Object.fromEntries(
    (await sql<{ stream: string; total: string; events: number }>("SELECT * FROM inline_totals")).map((r) => [
      r.stream,
      { total: Number(r.total), events: r.events },
    ])
  );
const fold = async () =>
  Object.fromEntries(
    (
      await sql<{ stream: string; total: string; events: string }>(
        `SELECT stream, sum((data->>'by')::bigint)::text AS total, count(*)::text AS events FROM ${TABLE} WHERE name = 'Incremented' GROUP BY stream`
      )
    ).map((r) => [r.stream, { total: Number(r.total), events: Number(r.events) }])
  );

it("commits the rows with the events: another connection reads them right after app.do", async () => {
  const app = act().with(Counter).with(InlineTotals).build();
  await app.do("increment", { stream: "c-1", actor }, { by: 2 });
  await app.do("increment", { stream: "c-1", actor }, { by: 3 });
  expect(await totals()).toEqual({ "c-1": { total: 5, events: 2 } });
});

it("a failing handler fails the action, and neither the events nor the rows it wrote are committed", async () => {
  const app = act().with(Counter).with(InlineTotals).build();
  await app.do("increment", { stream: "c-2", actor }, { by: 1 });
  await expect(app.do("increment", { stream: "c-2", actor }, { by: 13 })).rejects.toThrow(
    /^Projection "InlineTotals" failed on event "Incremented" #\d+: 13 is not accepted$/
  );
  expect(await fold()).toEqual({ "c-2": { total: 1, events: 1 } });
  expect(await totals()).toEqual({ "c-2": { total: 1, events: 1 } });
  // The connection went back to the pool clean: the next action commits.
  await app.do("increment", { stream: "c-2", actor }, { by: 4 });
  expect(await totals()).toEqual({ "c-2": { total: 5, events: 2 } });
});

it("commits inline on a pool of one connection, and refuses a stale expected version there: nothing committed, no rows", async () => {
  // The store's first commit checks the server's ids on the pool: not while it holds the only connection.
  const single = makeStore({ table: TABLE, max: 1 });
  const meta = { correlation: "c", causation: {} };
  const write = (expectedVersion: number) =>
    single.commitInline(
      { stream: "stale", messages: [{ name: "Incremented", data: { by: 1 } }], meta, expectedVersion },
      async (events, client) => {
        await client.query("INSERT INTO inline_totals (stream, total, events) VALUES ($1, $2, 1)", [
          `stale-${events[0].version}`,
          events[0].version,
        ]);
      }
    );
  try {
    await expect(write(0)).rejects.toBeInstanceOf(ConcurrencyError);
    await write(-1);
    await expect(write(-1)).rejects.toBeInstanceOf(ConcurrencyError);
    await write(0);
    await expect(write(0)).rejects.toBeInstanceOf(ConcurrencyError);
    expect(await totals()).toEqual({ "stale-0": { total: 0, events: 1 }, "stale-1": { total: 1, events: 1 } });
    expect(
      (await sql(`SELECT version FROM ${TABLE} WHERE stream = 'stale' ORDER BY version`)).map((r) => r.version)
    ).toEqual([0, 1]);
  } finally {
    await single.dispose();
  }
});

it("retries a commit without an expected version that collided, writing the rows once per committed event", async () => {
  const meta = { correlation: "c", causation: {} };
  const commits = Array.from({ length: 8 }, (_, i) =>
    pgStore.commitInline(
      { stream: "race", messages: [{ name: "Incremented", data: { by: i + 1 } }], meta },
      (events, client) => InlineTotals.handlers.Incremented!(events[0] as never, client)
    )
  );
  const committed = (await Promise.all(commits)).flat();
  expect(committed.map((e) => e.version).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  expect(await totals()).toEqual({ race: { total: 36, events: 8 } });
  expect(await fold()).toEqual(await totals());
});

for (const seedRun of seedRuns("PG_INLINE", { seed: 24, numRuns: 15 }, 10))
  it(`keeps the rows equal to a fold of the log when apps race on streams and some handlers fail (property, ${seedLabel(seedRun)})`, async () => {
    announce("inline projection property (PostgreSQL)", "PG_INLINE", seedRun);
    const increment = fc.record({ app: fc.nat(2), stream: fc.constantFrom("a", "b"), by: fc.constantFrom(1, 2, 13) });
    await fc.assert(
      fc.asyncProperty(fc.array(increment, { minLength: 1, maxLength: 10 }), async (increments) => {
        await pgStore.drop();
        await pgStore.seed();
        await sql("TRUNCATE inline_totals");
        // Three apps on one store: three writers whose caches go stale.
        const apps = [0, 1, 2].map(() => act().with(Counter).with(InlineTotals).build());
        const outcomes = await Promise.allSettled(
          increments.map(({ app, stream, by }) => apps[app].do("increment", { stream, actor }, { by }))
        );
        for (const [i, o] of outcomes.entries())
          if (o.status === "rejected" && !(o.reason instanceof ConcurrencyError)) {
            expect(increments[i].by).toBe(13);
            expect(o.reason.message).toMatch(/^Projection "InlineTotals" failed on event "Incremented" #\d+/);
          }
        expect(await totals()).toEqual(await fold());
        const committed = outcomes.filter((o) => o.status === "fulfilled").length;
        expect(Object.values(await fold()).reduce((n, s) => n + s.events, 0)).toBe(committed);
      }),
      { seed: seedRun.seed, numRuns: seedRun.numRuns, ...replayPath("PG_INLINE") }
    );
  });
