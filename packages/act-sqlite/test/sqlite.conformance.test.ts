import * as vitest from "vitest";
import { type ReadModelProbe, storeConformance } from "@act-root/act/testing";
import { type Connection, SqliteStore } from "../src/index.js";
import { tempFile } from "./support.js";

/** A read model in the store's own file, written and read through the connection `project` hands over. */
const probe: ReadModelProbe<Connection> = {
  reset: (db) => db.exec("CREATE TABLE IF NOT EXISTS probe (key TEXT PRIMARY KEY); DELETE FROM probe"),
  write: (db, key) => db.prepare("INSERT INTO probe (key) VALUES (?)").run(key),
  read: (db, key) => db.prepare("SELECT 1 FROM probe WHERE key = ?").row(key) !== undefined,
};

// The core's store conformance suite, as users import it, on a file (WAL,
// durable sync) and on a private in-memory database.
storeConformance("SqliteStore (file)", () => new SqliteStore({ filename: tempFile() }), vitest, probe);
storeConformance("SqliteStore (:memory:)", () => new SqliteStore({ filename: ":memory:" }), vitest, probe);
