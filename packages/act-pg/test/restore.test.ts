/**
 * A dump restored into a new server: its transaction ids start below the
 * restored event ids, so new events would sort before them. The store
 * notices and refuses to write until the transaction counter is moved past
 * them — here with a real pg_dump of the test server restored into a second,
 * fresh server, and the documented `pg_resetwal -e` fix applied to it.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { type EventMeta, StoreError } from "@act-root/act";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStore } from "../src/index.js";
import { findBinDir, type PgServer, startServer } from "../tools/pg-server.js";
import { connectionString, makeStore, sql } from "./support.js";

const meta: EventMeta = { correlation: "c", causation: {} };
const SCHEMA = "restore_src";

let second: PgServer;
beforeAll(async () => {
  second = await startServer();
});
afterAll(async () => {
  await second?.stop();
});

/** Runs a server binary as the `postgres` OS user when we are root (PostgreSQL refuses root). */
function asPostgres(bin: string, args: string[]) {
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  const [cmd, argv] = root ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
  execFileSync(cmd, argv, { stdio: "pipe" });
}

describe("a dump restored into a new server", () => {
  it("is refused by seed and by the first commit, with what to do, until the transaction counter is moved past it", async () => {
    // The source: a few events, after enough transactions that its ids are
    // above anything a fresh server gives (each subtransaction takes an id).
    const source = makeStore({ schema: SCHEMA });
    await source.drop();
    await source.seed();
    await sql(`DO $$ BEGIN
      CREATE TEMP TABLE burn (n int);
      FOR i IN 1..3000 LOOP BEGIN INSERT INTO burn VALUES (i); EXCEPTION WHEN others THEN NULL; END; END LOOP;
    END $$`);
    const [restored] = await source.commit({ stream: "s", messages: [{ name: "E", data: { n: 1 } }], meta });
    await source.dispose();

    // Without a URL, pg_dump reads the same PG* variables the tests connect with.
    const sourceUrl = connectionString();
    const dump = execFileSync(
      "pg_dump",
      [...(sourceUrl ? ["--dbname", sourceUrl] : []), "--schema", SCHEMA, "--no-owner"],
      { encoding: "utf8" }
    );
    execFileSync("psql", ["--dbname", second.url, "--quiet", "--set", "ON_ERROR_STOP=1"], { input: dump });
    await sql(`DROP SCHEMA ${SCHEMA} CASCADE`);

    const onSecond = () => new PostgresStore({ connectionString: second.url, schema: SCHEMA });
    const seeding = onSecond();
    const refused = await seeding.seed().then(
      () => undefined,
      (error: unknown) => error as StoreError
    );
    expect(refused).toBeInstanceOf(StoreError);
    expect(refused).toMatchObject({ reason: "rejected", retryable: false });
    expect(refused?.message).toContain(`holds event ids up to ${restored.id}`);
    expect(refused?.message).toContain('pg_resetwal -e 1 "$PGDATA"');
    await seeding.dispose();
    // A store that never seeds is refused at its first commit, and nothing is written.
    const writing = onSecond();
    await expect(writing.commit({ stream: "s", messages: [{ name: "E", data: {} }], meta })).rejects.toThrow(
      /pg_resetwal/
    );
    await writing.dispose();
    expect((await readIds(second.url)).length).toBe(1);

    // The documented fix: move the transaction counter past the restored ids.
    await second.halt();
    asPostgres(join(findBinDir(), "pg_resetwal"), ["-e", "1", join(second.dir, "data")]);
    await second.start();
    const fixed = onSecond();
    await fixed.seed();
    const [next] = await fixed.commit({ stream: "s", messages: [{ name: "E", data: { n: 2 } }], meta });
    expect(next.id).toBeGreaterThan(restored.id);
    expect(next.version).toBe(1);
    await fixed.dispose();
  });
});

async function readIds(url: string): Promise<number[]> {
  const out = execFileSync("psql", ["--dbname", url, "-At", "-c", `SELECT id FROM ${SCHEMA}.events`], {
    encoding: "utf8",
  });
  return out.trim().split("\n").filter(Boolean).map(Number);
}
