/**
 * The proof on PostgreSQL: after `forget`, a `pg_dump` of the whole
 * database holds no byte of the forgotten subject's personal data nor of
 * its key. (A dump is logical: the tables' files keep the old row versions
 * until VACUUM reclaims them and new rows overwrite them — see the guide.)
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import * as vitest from "vitest";
import { afterAll } from "vitest";
import { personalDataProof } from "@act-root/act/testing";
import { findBinDir } from "../tools/pg-server.js";
import { connectionString, makeStore } from "./support.js";

const run = promisify(execFile);

/** The whole database as `pg_dump` writes it (plain SQL), through the tests' connection or the PG* variables. */
async function dump(): Promise<Buffer> {
  const url = connectionString();
  const { stdout } = await run(join(findBinDir(), "pg_dump"), url ? [`--dbname=${url}`] : [], {
    encoding: "buffer",
    maxBuffer: 256 * 1024 * 1024,
  });
  return stdout;
}

personalDataProof("PostgresStore (pg_dump)", { store: () => makeStore({ table: "personal_proof" }), dump }, vitest);

afterAll(async () => {
  const cleanup = makeStore({ table: "personal_proof" });
  await cleanup.drop();
  await cleanup.dispose();
});
