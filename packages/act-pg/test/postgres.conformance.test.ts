import type pg from "pg";
import * as vitest from "vitest";
import { afterAll } from "vitest";
import { type ReadModelProbe, storeConformance } from "@act-root/act/testing";
import { makeStore, sql } from "./support.js";

/** A read model in the store's database, written and read through the transaction's client `project` hands over. */
const probe: ReadModelProbe<pg.PoolClient> = {
  reset: (client) =>
    client.query("CREATE TABLE IF NOT EXISTS conformance_probe (key text PRIMARY KEY); DELETE FROM conformance_probe"),
  write: (client, key) => client.query("INSERT INTO conformance_probe (key) VALUES ($1)", [key]),
  read: async (client, key) =>
    (await client.query("SELECT 1 FROM conformance_probe WHERE key = $1", [key])).rowCount === 1,
};

// The core's store conformance suite, as users import it, against PostgreSQL.
storeConformance("PostgresStore", () => makeStore({ table: "conformance" }), vitest, probe);

afterAll(async () => {
  // The suite disposes its store; remove its tables too (matters on a shared DATABASE_URL).
  const cleanup = makeStore({ table: "conformance" });
  await cleanup.drop();
  await cleanup.dispose();
  await sql("DROP TABLE IF EXISTS conformance_probe");
});
