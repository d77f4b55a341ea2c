import { disposeAndExit, store } from "@act-root/act";
import { afterAll } from "vitest";
import { deployModelSuite } from "../../act/test/deploy.model.js";
import { SqliteStore } from "../src/index.js";
import { tempFile } from "./support.js";

deployModelSuite("SQLite", async () => {
  await disposeAndExit();
  const sqlite = new SqliteStore({ filename: tempFile() });
  store(sqlite);
  await sqlite.seed();
  return sqlite;
});

afterAll(async () => {
  await disposeAndExit();
});
