import { disposeAndExit, store } from "@act-root/act";
import { afterAll } from "vitest";
import { discoverySuite } from "../../act/test/reactions/discovery.suite.js";
import { SqliteStore } from "../src/index.js";
import { tempFile } from "./support.js";

// The core's scenarios of discovery shared through the store, on a file.
discoverySuite("SqliteStore", async () => {
  await disposeAndExit();
  const sqlite = new SqliteStore({ filename: tempFile() });
  store(sqlite);
  await sqlite.seed();
  return sqlite;
});

afterAll(async () => {
  await disposeAndExit();
});
