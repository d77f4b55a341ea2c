/**
 * Writes the shop scenario (test/fixture.ts) into a SqliteStore file, in a
 * process of its own: the store port is process-wide, and the test servers'
 * process already gave it the Postgres store.
 *
 *     npx tsx e2e/seed-sqlite.ts <file>
 */
import { store } from "@act-root/act";
import { SqliteStore } from "@act-root/act-sqlite";
import { scenario, shop } from "../test/fixture.js";

const sqlite = new SqliteStore({ filename: process.argv[2] });
store(sqlite);
await sqlite.seed();
await scenario(shop());
await sqlite.dispose();
