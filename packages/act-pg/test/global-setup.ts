/**
 * Vitest global setup of the act-pg project: uses `DATABASE_URL` (or the
 * `PG*` variables) when set, otherwise starts a disposable PostgreSQL for the
 * run and stops it at the end. Tests get the connection from `inject("pg")`.
 *
 * Under mutation testing (`STRYKER_MUTATOR_WORKER` set, one server for the
 * whole run in `DATABASE_URL`) each Stryker worker gets a database of its
 * own on that server: the test files use fixed table names, and two workers
 * running the same file at once would otherwise drop each other's tables.
 */
import pg from "pg";
import type { TestProject } from "vitest/node";
import { type PgServer, startServer } from "../tools/pg-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    pg: { connectionString?: string; own: boolean };
  }
}

let server: PgServer | undefined;

/** `url` with its database replaced by `act_mutation_<worker>`, created on first use. */
async function workerDatabase(url: string, worker: string): Promise<string> {
  if (!/^\d+$/.test(worker)) throw new Error(`STRYKER_MUTATOR_WORKER must be a number, got "${worker}"`);
  const name = `act_mutation_${worker}`;
  const admin = new pg.Client({ connectionString: url });
  admin.on("error", () => {}); // a lost connection fails the query below
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } catch (error) {
    if ((error as { code?: string }).code !== "42P04") throw error; // 42P04: it exists already
  } finally {
    await admin.end();
  }
  const own = new URL(url);
  own.pathname = `/${name}`;
  return own.toString();
}

export default async function setup(project: TestProject) {
  const url = process.env.DATABASE_URL;
  const worker = process.env.STRYKER_MUTATOR_WORKER;
  if (url && worker !== undefined) {
    project.provide("pg", { connectionString: await workerDatabase(url, worker), own: false });
  } else if (url || process.env.PGHOST) {
    project.provide("pg", { connectionString: url || undefined, own: false });
  } else {
    server = await startServer();
    project.provide("pg", { connectionString: server.url, own: true });
  }
  return async () => {
    await server?.stop();
    server = undefined;
  };
}
