/**
 * Archiving a large log on a SqliteStore file (see
 * `packages/act/bench/archive.ts` for the figures and the `ARCHIVE_EVENTS`
 * knob), in a temporary folder with the default (durable) settings. Sizes:
 * the file after a checkpoint of its write-ahead log, and the pages of the
 * log and the archive (`dbstat`); compacting is `VACUUM`.
 */
import { store } from "@act-root/act";
import Database from "libsql";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { archiveBench } from "../../act/bench/archive.js";
import { SqliteStore } from "../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "act-sqlite-archive-"));
process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
const filename = join(dir, "archive.db");

/** Runs `work` on a connection of its own (the store keeps its own open meanwhile). */
function withFile<T>(work: (db: Database.Database) => T): T {
  const db = new Database(filename);
  db.exec("PRAGMA busy_timeout = 60000");
  try {
    return work(db);
  } finally {
    db.close();
  }
}

/** Bytes of the pages of the tables whose names start with `prefix`, indexes included. */
const pages = (db: Database.Database, prefix: string) =>
  Number(
    (
      db.prepare("SELECT coalesce(sum(pgsize), 0) AS bytes FROM dbstat WHERE name LIKE ?").get(`${prefix}%`) as {
        bytes: number;
      }
    ).bytes
  );

async function main() {
  await archiveBench({
    label: "SqliteStore",
    async fresh() {
      const adapter = new SqliteStore({ filename });
      await adapter.seed();
      return store(adapter);
    },
    async compact() {
      withFile((db) => db.exec("VACUUM"));
    },
    async sizes() {
      return withFile((db) => {
        db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
        return {
          file: statSync(filename).size,
          log: pages(db, "act_events"),
          archive: pages(db, "act_archive"),
        };
      });
    },
  });
  await store().dispose();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
