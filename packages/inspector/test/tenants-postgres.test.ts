/**
 * The inspector on one tenant of PostgreSQL: a schema per tenant
 * (`--pg-schema-tenant`), and shared tables (`--pg-shared-tenant`), where
 * the tenant's store runs every statement under the tenant's `act.tenant`
 * setting and row-level security — not the inspector's queries — keeps the
 * other tenant's rows out, even an event asked for by its id.
 */
import { type Committed, disposeAndExit, type Schemas } from "@act-root/act";
import { postgresSchemaTenants, postgresSharedTenants } from "@act-root/act-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parseArgs } from "../src/server/args.js";
import { type RunningServer, startServer } from "../src/server/http.js";
import { openStore } from "../src/server/open-store.js";
import { shopModel } from "./fixture.js";
import { showsAcmeOnly, twoTenants } from "./tenant-views.js";

const url = inject("pgUrl");
const APP = "act_inspector_app";
const OWNER = "act_inspector_owner";
const PASSWORD = "act-inspector-test";
const SHARED = "inspector_shared";
const PREFIX = "inspector_t_";
const running: RunningServer[] = [];

/** The test server's connection as `role`. */
function as(role: string): string {
  const u = new URL(url);
  u.username = role;
  u.password = PASSWORD;
  return u.toString();
}

async function sql(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** An owner for the migration and an app role held to row-level security, as the multi-tenancy guide sets them up. */
async function roles(): Promise<void> {
  for (const [role, extra] of [
    [OWNER, ""],
    [APP, " NOBYPASSRLS"],
  ] as const)
    await sql(`CREATE ROLE ${role} LOGIN NOSUPERUSER${extra} PASSWORD '${PASSWORD}'`).catch((error) => {
      if (error.code !== "42710" && error.code !== "23505") throw error; // exists (or created meanwhile)
    });
  await sql(`GRANT CREATE ON DATABASE "${new URL(url).pathname.slice(1) || "postgres"}" TO ${OWNER}`);
}

const dropSchemas = () =>
  sql(`DROP SCHEMA IF EXISTS ${SHARED} CASCADE; DROP SCHEMA IF EXISTS ${PREFIX}acme CASCADE;
       DROP SCHEMA IF EXISTS ${PREFIX}globex CASCADE`);

let shared: Committed<Schemas, string>[];
let schemas: Committed<Schemas, string>[];

beforeAll(async () => {
  await dropSchemas();
  await roles();
  const sharedTenants = shopModel().buildTenants({
    store: postgresSharedTenants({ connectionString: as(APP), owner: { connectionString: as(OWNER) }, schema: SHARED }),
  });
  ({ globex: shared } = await twoTenants(await sharedTenants.add("acme"), await sharedTenants.add("globex")));
  const schemaTenants = shopModel().buildTenants({
    store: postgresSchemaTenants({ connectionString: url, prefix: PREFIX }),
  });
  ({ globex: schemas } = await twoTenants(await schemaTenants.add("acme"), await schemaTenants.add("globex")));
});

afterAll(async () => {
  for (const server of running) await server.close();
  await disposeAndExit();
  await dropSchemas();
});

/** Opens what the command line names and serves it; closed after the test. */
async function serve(argv: string[]) {
  const opened = await openStore(parseArgs(argv, {}));
  const server = await startServer({ store: opened.store, catalog: opened.catalog, tenant: opened.tenant });
  running.push({
    ...server,
    close: async () => {
      await server.close();
      await opened.close();
    },
  });
  return server;
}

describe("act-inspector --pg <url> --pg-shared-tenant <id>", () => {
  it("shows the tenant's rows only: row-level security hides the other's, even an event asked for by id", async () => {
    const server = await serve(["--pg", as(APP), "--pg-shared-tenant", "acme", "--schema", SHARED]);
    const get = await showsAcmeOnly(server, shared);
    expect((await get("/api/info")).body.store).toBe(`tenant acme · postgres ${SHARED}.events (shared)`);
    expect((await get(`/api/event?id=${shared[0].id}`)).status).toBe(404);
  });

  it("refuses a role that bypasses row-level security: it would see every tenant", async () => {
    await expect(
      openStore(parseArgs(["--pg", url, "--pg-shared-tenant", "acme", "--schema", SHARED], {}))
    ).rejects.toThrow(/superuser or has BYPASSRLS/);
  });
});

describe("act-inspector --pg <url> --pg-schema-tenant <id>", () => {
  it("opens the tenant's schema, and shows its data only", async () => {
    const server = await serve(["--pg", url, "--pg-schema-tenant", "acme", "--prefix", PREFIX]);
    const get = await showsAcmeOnly(server, schemas);
    expect((await get("/api/info")).body.store).toBe(`tenant acme · postgres ${PREFIX}acme.events`);
  });
});
