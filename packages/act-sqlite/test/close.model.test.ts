import { closeModelSuite } from "../../act/test/close.model.js";
import { SqliteStore } from "../src/index.js";
import { tempFile } from "./support.js";

closeModelSuite("SQLite", async () => {
  const sqlite = new SqliteStore({ filename: tempFile() });
  await sqlite.seed();
  return sqlite;
});
