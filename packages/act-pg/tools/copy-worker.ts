/**
 * A process copying a SQLite file into PostgreSQL (`copyStore`), for the
 * test that kills it with SIGKILL in the middle of the copy: started with
 * `node --import tsx` by `forkWorker`, it says it is ready, then reports
 * each batch it has written over IPC.
 */
import { copyStore } from "@act-root/act";
import { SqliteStore } from "../../act-sqlite/src/index.js";
import { PostgresStore } from "../src/index.js";

const env = process.env;
const from = new SqliteStore({ filename: env.SOURCE ?? "" });
const to = new PostgresStore({ connectionString: env.DATABASE_URL || undefined, schema: env.SCHEMA });
process.send?.("ready");
await copyStore(from, to, {
  batch: Number(env.BATCH ?? 50),
  onProgress: (progress) => process.send?.(progress),
});
process.exit(0);
