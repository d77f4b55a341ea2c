/**
 * Failures classified by SQLSTATE: the passing ones (a lock or statement
 * timeout, too many connections, a deadlock, a serialization failure, a
 * terminated backend) are retryable, provoked here on the real server; a
 * refusal that repeating cannot fix is not.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { type EventMeta, StoreError } from "@act-root/act";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { classify, type DriverError, SQLSTATES } from "../src/errors.js";
import { PostgresStore } from "../src/index.js";
import { findBinDir, startServer } from "../tools/pg-server.js";
import { client, connectionString, makeStore, sleep, sql } from "./support.js";

const meta: EventMeta = { correlation: "c", causation: {} };
const msg = { name: "E", data: {} };
const SCHEMA = "sqlstate";

/** The test server's URL with session settings for every connection. */
const withSettings = (settings: string) => {
  const url = new URL(connectionString() ?? "postgres://postgres@localhost:5432/postgres");
  url.searchParams.set("options", settings);
  return url.toString();
};

/** The error `run` rejects with. */
const failure = (run: () => Promise<unknown>) =>
  run().then(
    () => {
      throw new Error("expected a failure");
    },
    (error: unknown) => error as StoreError & DriverError
  );

/** Holds an exclusive lock on the events table until `release`. */
async function holdLock(): Promise<pg.Client> {
  const holder = await client();
  await holder.query(`BEGIN; LOCK TABLE ${SCHEMA}.events IN ACCESS EXCLUSIVE MODE`);
  return holder;
}
const release = async (holder: pg.Client) => {
  await holder.query("ROLLBACK");
  await holder.end();
};

let seeded: PostgresStore;
beforeAll(async () => {
  seeded = makeStore({ schema: SCHEMA });
  await seeded.drop();
  await seeded.seed();
});
afterAll(async () => {
  await seeded.drop();
  await seeded.dispose();
});

describe("the SQLSTATE table", () => {
  it.each([
    ["40001", "transient"],
    ["40P01", "transient"],
    ["53300", "transient"],
    ["53100", "transient"],
    ["53200", "transient"],
    ["55P03", "transient"],
    ["57014", "transient"],
    ["57P01", "connection-lost"],
    ["57P02", "connection-lost"],
    ["57P03", "unreachable"],
    ["08001", "unreachable"],
    ["08004", "unreachable"],
    ["08006", "connection-lost"],
    ["08P01", "connection-lost"],
    ["23505", "rejected"],
    ["42P01", "rejected"],
    ["22P02", "rejected"],
  ])("classifies %s as %s", (code, reason) => {
    const error = Object.assign(new Error("x"), { code });
    expect(classify(error)).toBe(reason);
    expect(new StoreError("op", classify(error), "m").retryable).toBe(reason !== "rejected");
  });

  it("lists exact codes before the classes they belong to", () => {
    for (const [i, entry] of SQLSTATES.entries())
      if (entry.code.length === 2)
        expect(SQLSTATES.slice(i + 1).some((later) => later.code.startsWith(entry.code))).toBe(false);
  });
});

describe("passing failures provoked on the server are retryable", () => {
  it("a lock timeout (55P03), and the same commit succeeds once the lock is gone", async () => {
    const store = makeStore({ schema: SCHEMA, connectionString: withSettings("-c lock_timeout=100") });
    const holder = await holdLock();
    try {
      const error = await failure(() => store.commit({ stream: "locked", messages: [msg], meta }));
      expect(error).toBeInstanceOf(StoreError);
      expect(error).toMatchObject({ code: "55P03", reason: "transient", retryable: true });
    } finally {
      await release(holder);
    }
    await expect(store.commit({ stream: "locked", messages: [msg], meta })).resolves.toHaveLength(1);
    await store.dispose();
  });

  it("a statement timeout (57014), and the same commit succeeds afterwards", async () => {
    const store = makeStore({ schema: SCHEMA, connectionString: withSettings("-c statement_timeout=100") });
    const holder = await holdLock();
    try {
      const error = await failure(() => store.commit({ stream: "slow", messages: [msg], meta }));
      expect(error).toMatchObject({ code: "57014", reason: "transient", retryable: true });
    } finally {
      await release(holder);
    }
    await expect(store.commit({ stream: "slow", messages: [msg], meta })).resolves.toHaveLength(1);
    await store.dispose();
  });

  it("too many connections (53300), and the call succeeds once a connection is free", async () => {
    const dropRole = `DO $$ BEGIN
      IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'act_limited') THEN
        DROP OWNED BY act_limited; DROP ROLE act_limited;
      END IF; END $$`;
    await sql(dropRole);
    const url = new URL(connectionString() ?? "postgres://postgres@localhost:5432/postgres");
    url.username = "act_limited";
    // The role logs in with the URL's password, since the server asks for one.
    const password = decodeURIComponent(url.password).replaceAll("'", "''");
    await sql(`CREATE ROLE act_limited LOGIN CONNECTION LIMIT 1${password ? ` PASSWORD '${password}'` : ""}`);
    await sql(`DO $$ BEGIN EXECUTE format('GRANT CREATE ON DATABASE %I TO act_limited', current_database()); END $$`);
    const store = makeStore({ connectionString: url.toString(), schema: "act_limited" });
    const { default: pgDriver } = await import("pg");
    const other = new pgDriver.Client({ connectionString: url.toString() });
    other.on("error", () => {});
    await other.connect(); // the role's only connection
    try {
      const error = await failure(() => store.seed());
      expect(error).toMatchObject({ code: "53300", reason: "transient", retryable: true });
    } finally {
      await other.end();
    }
    await sleep(50); // the server counts the closed connection out
    await store.seed();
    await expect(store.commit({ stream: "limited", messages: [msg], meta })).resolves.toHaveLength(1);
    await store.dispose();
    await sleep(50);
    await sql(dropRole);
  });

  it("a terminated backend (57P01) is a lost connection, and the next call works", async () => {
    const store = makeStore({ schema: SCHEMA, applicationName: "act-sqlstate-terminate" });
    const holder = await holdLock();
    const waiting = failure(() => store.commit({ stream: "terminated", messages: [msg], meta }));
    try {
      await sleep(200); // the commit waits for the lock
      await sql(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'act-sqlstate-terminate'`
      );
      expect(await waiting).toMatchObject({ reason: "connection-lost", retryable: true });
    } finally {
      await release(holder);
    }
    await expect(store.commit({ stream: "terminated", messages: [msg], meta })).resolves.toHaveLength(1);
    await store.dispose();
  });

  it("a deadlock (40P01) and a serialization failure (40001), as the server reports them", async () => {
    await sql(`CREATE TABLE IF NOT EXISTS ${SCHEMA}.pair (id int PRIMARY KEY, n int)`);
    await sql(`INSERT INTO ${SCHEMA}.pair VALUES (1, 0), (2, 0) ON CONFLICT DO NOTHING`);
    const [a, b] = [await client(), await client()];
    try {
      // Deadlock: each holds one row and waits for the other's.
      for (const c of [a, b]) await c.query(`SET deadlock_timeout = '50ms'`);
      await a.query(`BEGIN; UPDATE ${SCHEMA}.pair SET n = n + 1 WHERE id = 1`);
      await b.query(`BEGIN; UPDATE ${SCHEMA}.pair SET n = n + 1 WHERE id = 2`);
      const crossed = await Promise.allSettled([
        a.query(`UPDATE ${SCHEMA}.pair SET n = n + 1 WHERE id = 2`),
        b.query(`UPDATE ${SCHEMA}.pair SET n = n + 1 WHERE id = 1`),
      ]);
      await a.query("ROLLBACK");
      await b.query("ROLLBACK");
      const deadlock = crossed.find((r) => r.status === "rejected") as PromiseRejectedResult;
      expect(deadlock.reason.code).toBe("40P01");
      expect(classify(deadlock.reason)).toBe("transient");

      // Serialization failure: two serializable transactions read what the other writes.
      for (const c of [a, b]) await c.query(`BEGIN ISOLATION LEVEL SERIALIZABLE`);
      await a.query(`SELECT sum(n) FROM ${SCHEMA}.pair`);
      await b.query(`SELECT sum(n) FROM ${SCHEMA}.pair`);
      await a.query(`UPDATE ${SCHEMA}.pair SET n = n + 1 WHERE id = 1`);
      await b.query(`UPDATE ${SCHEMA}.pair SET n = n + 1 WHERE id = 2`);
      const ends = await Promise.allSettled([a.query("COMMIT"), b.query("COMMIT")]);
      const serialization = ends.find((r) => r.status === "rejected") as PromiseRejectedResult;
      expect(serialization.reason.code).toBe("40001");
      expect(classify(serialization.reason)).toBe("transient");
    } finally {
      await a.query("ROLLBACK").catch(() => {});
      await b.query("ROLLBACK").catch(() => {});
      await a.end();
      await b.end();
    }
  });

  it("a server shutting down (57P03) is unreachable, and retryable", async () => {
    const server = await startServer();
    const { default: pgDriver } = await import("pg");
    const holder = new pgDriver.Client({ connectionString: server.url });
    holder.on("error", () => {});
    await holder.connect(); // a smart shutdown waits for it, refusing new connections meanwhile
    const store = new PostgresStore({ connectionString: server.url });
    try {
      const pgCtl = join(findBinDir(), "pg_ctl");
      const root = typeof process.getuid === "function" && process.getuid() === 0;
      const args = ["-D", join(server.dir, "data"), "-m", "smart", "-W", "stop"];
      execFileSync(root ? "runuser" : pgCtl, root ? ["-u", "postgres", "--", pgCtl, ...args] : args);
      await sleep(300);
      const error = await failure(() => store.query(() => {}));
      expect(error).toMatchObject({ code: "57P03", reason: "unreachable", retryable: true });
    } finally {
      await holder.end().catch(() => {});
      await store.dispose();
      await server.stop();
    }
  });

  it("a refusal that repeating cannot fix stays rejected and not retryable", async () => {
    const missing = makeStore({ schema: "sqlstate_missing" });
    const error = await failure(() => missing.commit({ stream: "x", messages: [msg], meta }));
    expect(error).toMatchObject({ code: "42P01", reason: "rejected", retryable: false });
    await missing.dispose();
  });
});
