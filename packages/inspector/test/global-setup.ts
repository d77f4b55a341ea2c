/**
 * Gives the tests a PostgreSQL: `DATABASE_URL` when set, otherwise a
 * disposable server started for the run (act-pg's test tool) and stopped at
 * the end. Tests read the URL with `inject("pgUrl")`.
 */
import type { TestProject } from "vitest/node";
import { type PgServer, startServer } from "../../act-pg/tools/pg-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    pgUrl: string;
  }
}

let server: PgServer | undefined;

export default async function setup(project: TestProject) {
  // `npm run test:unit` runs no test that needs PostgreSQL (it leaves out
  // test/api.test.ts, test/cli-postgres.test.ts and test/tenants-postgres.test.ts, which
  // `npm run test:postgres` runs): start nothing.
  if (process.env.ACT_UNIT_ONLY) return;
  if (process.env.DATABASE_URL) project.provide("pgUrl", process.env.DATABASE_URL);
  else {
    server = await startServer();
    project.provide("pgUrl", server.url);
  }
  return async () => {
    await server?.stop();
    server = undefined;
  };
}
