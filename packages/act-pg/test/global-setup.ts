/**
 * Vitest global setup of the act-pg project: uses `DATABASE_URL` (or the
 * `PG*` variables) when set, otherwise starts a disposable PostgreSQL for the
 * run and stops it at the end. Tests get the connection from `inject("pg")`.
 */
import type { TestProject } from "vitest/node";
import { type PgServer, startServer } from "../tools/pg-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    pg: { connectionString?: string; own: boolean };
  }
}

let server: PgServer | undefined;

export default async function setup(project: TestProject) {
  const external = process.env.DATABASE_URL || process.env.PGHOST;
  if (external) {
    project.provide("pg", { connectionString: process.env.DATABASE_URL || undefined, own: false });
  } else {
    server = await startServer();
    project.provide("pg", { connectionString: server.url, own: true });
  }
  return async () => {
    await server?.stop();
    server = undefined;
  };
}
