/**
 * Two apps in one process on two PostgreSQL databases of one server, each
 * with the same table name and bound with `build({ store })`: a tenant per
 * database, say. Each commits, reacts and drains with its own consumer —
 * woken by its own database's notifications, which a listener of the other
 * database never hears — and neither sees the other's events or reaction
 * streams.
 */
import { act, type Store } from "@act-root/act";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStore } from "../src/index.js";
import { Counter } from "./fixtures/states.js";
import { connectionString, sql } from "./support.js";

const actor = { id: "u", name: "U" };
const SECOND = "act_second_database";
let first: PostgresStore;
let second: PostgresStore;

/** The server's URL with another database in its path (or that database alone, for a `PG*` environment). */
function on(database: string): { connectionString?: string; database?: string } {
  const url = connectionString();
  if (!url) return { database };
  const other = new URL(url);
  other.pathname = `/${database}`;
  return { connectionString: other.toString() };
}

beforeAll(async () => {
  await sql(`DROP DATABASE IF EXISTS ${SECOND} WITH (FORCE)`);
  // Needs a role that may create databases (the test server's `postgres` does).
  await sql(`CREATE DATABASE ${SECOND}`);
  first = new PostgresStore({ connectionString: connectionString(), table: "tenant_events" });
  second = new PostgresStore({ ...on(SECOND), table: "tenant_events" });
  for (const s of [first, second]) {
    await s.drop();
    await s.seed();
  }
});
afterAll(async () => {
  await first?.drop();
  await first?.dispose();
  await second?.dispose();
  await sql(`DROP DATABASE IF EXISTS ${SECOND} WITH (FORCE)`);
});

/** Each increment is audited on `audit-<stream>`; `ran` hears of every audit this app ran. */
function build(log: Store, ran: string[]) {
  return act()
    .with(Counter)
    .on("Incremented")
    .do(async function audit(event, _stream, app) {
      if (event.stream.startsWith("audit-")) return;
      ran.push(event.stream);
      await app.do("increment", { stream: `audit-${event.stream}`, actor }, { by: event.data.by }, event);
    })
    .build({ store: log });
}

async function streams(log: Store) {
  const names = new Set<string>();
  await log.query((e) => void names.add(e.stream));
  return [...names].sort();
}

describe("two apps on two PostgreSQL databases in one process", () => {
  it("each reacts through its own consumer and database, with the same table name, neither seeing the other", async () => {
    const ranFirst: string[] = [];
    const ranSecond: string[] = [];
    const a = build(first, ranFirst);
    const b = build(second, ranSecond);
    a.start({ pollMillis: 60_000 });
    b.start({ pollMillis: 60_000 });
    try {
      const fromA = await a.do("increment", { stream: "c", actor }, { by: 1 });
      const fromB = await b.do("increment", { stream: "c", actor }, { by: 10 });
      await b.do("increment", { stream: "only-second", actor }, { by: 5 });
      await a.settled(fromA, { timeoutMillis: 10_000 });
      await b.settled(fromB, { timeoutMillis: 10_000 });
      // A commit made in the second database by another process (a plain
      // store, no app) wakes only the second app's consumer.
      const other = new PostgresStore({ ...on(SECOND), table: "tenant_events" });
      try {
        const outside = await other.commit({
          stream: "from-outside",
          messages: [{ name: "Incremented", data: { by: 3 } }],
          meta: {
            correlation: "outside",
            causation: {},
          },
        });
        await b.settled([{ event: outside[0] } as never], { timeoutMillis: 10_000 });
      } finally {
        await other.dispose();
      }
    } finally {
      await a.stop();
      await b.stop();
    }
    expect(ranFirst).toEqual(["c"]);
    expect([...ranSecond].sort()).toEqual(["c", "from-outside", "only-second"]);
    expect((await a.load(Counter, "audit-c")).state.count).toBe(1);
    expect((await b.load(Counter, "audit-c")).state.count).toBe(10);
    expect(await streams(first)).toEqual(["audit-c", "c"]);
    expect(await streams(second)).toEqual([
      "audit-c",
      "audit-from-outside",
      "audit-only-second",
      "c",
      "from-outside",
      "only-second",
    ]);
    expect((await first.reactions()).map((r) => r.stream)).not.toContain("only-second");
  });
});
