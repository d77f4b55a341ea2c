import { disposeAndExit, store } from "@act-root/act";
import { afterAll } from "vitest";
import { operationsSuite } from "../../act/test/operations.suite.js";
import { SqliteStore } from "../src/index.js";
import { tempFile } from "./support.js";

// The core's operations suite (two releases, operator commands during
// drains, failing renewals…) on a durable file.
operationsSuite("SqliteStore", async () => {
  await disposeAndExit();
  const sqlite = new SqliteStore({ filename: tempFile() });
  store(sqlite);
  await sqlite.seed();
  return sqlite;
});

afterAll(async () => {
  await disposeAndExit();
});
