/**
 * How SqliteStore's costs grow with the log (see `packages/act/bench/growth.ts`
 * for the figures and the `GROWTH_SIZES` knob), on a file in a temporary
 * folder with the default (durable) settings. Bytes per event: the database
 * file after a checkpoint of its write-ahead log.
 */
import { store } from "@act-root/act";
import Database from "libsql";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { growth } from "../../act/bench/growth.js";
import { SqliteStore } from "../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "act-sqlite-growth-"));
process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
let files = 0;
let filename = "";

async function main() {
  await growth({
    label: "SqliteStore",
    async fresh() {
      filename = join(dir, `${files++}.db`);
      const adapter = new SqliteStore({ filename });
      await adapter.seed();
      return store(adapter);
    },
    async bytes() {
      const db = new Database(filename);
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      const { page_count, page_size } = {
        page_count: (db.prepare("PRAGMA page_count").get() as { page_count: number }).page_count,
        page_size: (db.prepare("PRAGMA page_size").get() as { page_size: number }).page_size,
      };
      db.close();
      return page_count * page_size;
    },
  });
  await store().dispose();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
