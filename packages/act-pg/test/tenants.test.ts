/**
 * Tenants by store on PostgreSQL: a schema per tenant, sharing one pool and
 * one listening connection, and a database per tenant. Both pass the
 * hostile isolation suite; the schema strategy also keeps its connections
 * bounded however many tenants it serves.
 */
import { act, disposeAndExit } from "@act-root/act";
import { tenantConformance } from "@act-root/act/testing";
import * as vitest from "vitest";
import { afterEach, describe, expect, it } from "vitest";
import { postgresDatabaseTenants, postgresSchemaTenants } from "../src/index.js";
import { Counter } from "./fixtures/states.js";
import { connectionString, sql } from "./support.js";

const actor = { id: "u", name: "U" };

tenantConformance(
  "PostgreSQL, a schema per tenant",
  () => postgresSchemaTenants({ connectionString: connectionString(), prefix: "iso_", max: 4 }),
  vitest
);
tenantConformance(
  "PostgreSQL, a database per tenant",
  () => postgresDatabaseTenants({ connectionString: connectionString(), prefix: "iso_db_" }),
  vitest
);

/** Connections the server has open with an application name. */
async function backends(applicationName: string): Promise<number> {
  const [{ n }] = await sql<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1",
    [applicationName]
  );
  return n;
}

describe("a schema per tenant", () => {
  afterEach(async () => {
    await disposeAndExit();
  });

  it("serves 60 tenants, each woken by its own commits, on at most max pooled connections and one listener", async () => {
    const applicationName = "act-tenants-shared";
    const strategy = postgresSchemaTenants({
      connectionString: connectionString(),
      prefix: "many_",
      max: 3,
      applicationName,
    });
    const handled: string[] = [];
    const tenants = act()
      .with(Counter)
      .on("Incremented")
      .do(async (event) => void handled.push(event.stream))
      .buildTenants({ store: strategy });
    const ids = Array.from({ length: 60 }, (_, i) => `t${i}`);
    for (const id of ids) await tenants.add(id);
    // Polls far apart: only the shared listener's wake-ups drain.
    tenants.start({ pollMillis: 600_000, concurrency: 4 });
    try {
      await vitest.vi.waitFor(() => expect(strategy.connections.opened().channels).toBe(60), { timeout: 10_000 });
      for (const id of ids) await tenants.app(id).do("increment", { stream: `${id}-s`, actor }, { by: 1 });
      await vitest.vi.waitFor(() => expect(handled).toHaveLength(60), { timeout: 20_000 });
      expect(handled.sort()).toEqual(ids.map((id) => `${id}-s`).sort());
      const opened = strategy.connections.opened();
      expect(opened.pooled).toBeLessThanOrEqual(3);
      expect(opened.listening).toBe(1);
      expect(await backends(applicationName)).toBeLessThanOrEqual(3 + 1);
    } finally {
      for (const id of ids) await tenants.remove(id);
      await tenants.dispose();
    }
    const left = await sql("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'many\\_%'");
    expect(left).toEqual([]);
  });

  it("wakes another process's consumer of the same tenant through the shared listener", async () => {
    const config = { connectionString: connectionString(), prefix: "wake_" };
    const handled: string[] = [];
    const model = (strategy: ReturnType<typeof postgresSchemaTenants>) =>
      act()
        .with(Counter)
        .on("Incremented")
        .do(async (event) => void handled.push(event.stream))
        .buildTenants({ store: strategy });
    const worker = model(postgresSchemaTenants(config));
    const writer = model(postgresSchemaTenants(config));
    await worker.add("acme");
    await worker.add("globex");
    await writer.add("acme", { seed: false });
    worker.start({ pollMillis: 600_000 });
    try {
      await new Promise((r) => setTimeout(r, 300)); // the worker's LISTENs are in place
      await writer.app("acme").do("increment", { stream: "from-writer", actor }, { by: 1 });
      await vitest.vi.waitFor(() => expect(handled).toEqual(["from-writer"]), { timeout: 10_000 });
    } finally {
      await writer.dispose();
      await worker.remove("acme");
      await worker.remove("globex");
      await worker.dispose();
    }
  });

  it("refuses a prefix that is not a plain SQL identifier", () => {
    expect(() => postgresSchemaTenants({ prefix: 'x"; drop' })).toThrow(/prefix/);
    expect(() => postgresDatabaseTenants({ prefix: "a-b" })).toThrow(/prefix/);
  });
});

describe("a database per tenant", () => {
  it("creates the tenant's database on add and drops it on remove", async () => {
    const strategy = postgresDatabaseTenants({ connectionString: connectionString(), prefix: "dbt_" });
    const tenants = act().with(Counter).buildTenants({ store: strategy });
    const acme = await tenants.add("acme-eu");
    await acme.do("increment", { stream: "c", actor }, { by: 1 });
    expect(await sql("SELECT datname FROM pg_database WHERE datname = 'dbt_acme_eu'")).toHaveLength(1);
    expect(await tenants.remove("acme-eu")).toEqual({
      tenant: "acme-eu",
      erased: ["tables of the store", "database dbt_acme_eu"],
    });
    expect(await sql("SELECT datname FROM pg_database WHERE datname = 'dbt_acme_eu'")).toEqual([]);
    await tenants.dispose();
  });
});
