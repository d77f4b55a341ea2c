import * as vitest from "vitest";
import { storeConformance } from "@act-root/act/testing";
import { SqliteStore } from "../src/index.js";
import { tempFile } from "./support.js";

// The core's store conformance suite, as users import it, on a file (WAL,
// durable sync) and on a private in-memory database.
storeConformance("SqliteStore (file)", () => new SqliteStore({ filename: tempFile() }), vitest);
storeConformance("SqliteStore (:memory:)", () => new SqliteStore({ filename: ":memory:" }), vitest);
