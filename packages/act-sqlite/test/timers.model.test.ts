import { disposeAndExit, store } from "@act-root/act";
import { afterAll } from "vitest";
import { timersModelSuite } from "../../act/test/timers.model.js";
import { SqliteStore } from "../src/index.js";
import { tempFile } from "./support.js";

timersModelSuite("SQLite", async () => {
  await disposeAndExit();
  const sqlite = new SqliteStore({ filename: tempFile() });
  store(sqlite);
  await sqlite.seed();
  return sqlite;
});

afterAll(async () => {
  await disposeAndExit();
});
