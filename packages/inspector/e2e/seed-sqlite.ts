/**
 * Writes the shop scenario (test/fixture.ts) into a SqliteStore file, in a
 * process of its own: the store port is process-wide, and the test servers'
 * process already gave it the Postgres store.
 *
 *     npx tsx e2e/seed-sqlite.ts <file>
 */
import { store } from "@act-root/act";
import { SqliteStore } from "@act-root/act-sqlite";
import Database from "libsql";
import { scenario, shop } from "../test/fixture.js";

const sqlite = new SqliteStore({ filename: process.argv[2] });
store(sqlite);
await sqlite.seed();
await scenario(shop());
await sqlite.dispose();

// Fixed times and correlation ids, so every page shows the same thing on
// every run and the screenshots the tests take for the docs never change.
// Ids are already fixed: SQLite numbers them 1, 2, 3…
const db = new Database(process.argv[2]);
// The new correlation ids are worked out before any row changes: an UPDATE
// that read the rows it was rewriting would split a chain.
db.exec(`
  UPDATE act_events SET created = 1767261600000 + id * 60000;
  CREATE TEMP TABLE chains AS
    SELECT json_extract(meta, '$.correlation') AS old, 'chain-' || min(id) AS new FROM act_events GROUP BY 1;
  UPDATE act_events SET meta = json_set(meta, '$.correlation',
    (SELECT new FROM chains WHERE old = json_extract(act_events.meta, '$.correlation')));`);
db.close();
