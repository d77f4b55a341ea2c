/**
 * Tenants in shared tables, kept apart by PostgreSQL's row-level security.
 * The strategy passes the hostile isolation suite; then raw SQL on the app
 * role — the queries an app could get wrong — shows the policy, not the
 * store's filters, keeps each tenant to its own rows, and breaking the
 * policy (dropping it, disabling or loosening it) is caught.
 */
import { act, disposeAndExit, type Store } from "@act-root/act";
import { tenantConformance } from "@act-root/act/testing";
import pg from "pg";
import * as vitest from "vitest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sharedParts } from "../src/connections.js";
import { postgresSharedTenants } from "../src/index.js";
import { Counter } from "./fixtures/states.js";
import { connectionString, sql } from "./support.js";

const actor = { id: "u", name: "U" };
const APP = "act_rls_app";
const OWNER = "act_rls_owner";
const PASSWORD = "act-rls-test";

/** The test server's connection as `role`. */
function as(role: string): string {
  const url = new URL(connectionString() ?? `postgres://${process.env.PGHOST ?? "localhost"}/postgres`);
  url.username = role;
  url.password = PASSWORD;
  return url.toString();
}

/** Creates the two roles of the guide's set-up (once per server): an owner for migrations, an app role without BYPASSRLS. */
async function roles(): Promise<void> {
  for (const [role, extra] of [
    [OWNER, ""],
    [APP, " NOBYPASSRLS"],
  ] as const) {
    await sql(`CREATE ROLE ${role} LOGIN NOSUPERUSER${extra} PASSWORD '${PASSWORD}'`).catch((error) => {
      if (error.code !== "42710" && error.code !== "23505") throw error; // exists (or created meanwhile)
    });
  }
  const [{ db }] = await sql<{ db: string }>("SELECT current_database() AS db");
  await sql(`GRANT CREATE ON DATABASE "${db}" TO ${OWNER}`);
}

/** A strategy on schema `schema` as the app role, migrated by the owner. */
const strategyIn = (schema: string, max = 4) =>
  postgresSharedTenants({ connectionString: as(APP), owner: { connectionString: as(OWNER) }, schema, max });

/** A raw client as `role`. */
async function client(role: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: as(role) });
  c.on("error", () => {});
  await c.connect();
  return c;
}

/** Runs `work` as the app role in one transaction with `act.tenant` set to `tenant` (none: not set). */
async function asTenant<T>(tenant: string | undefined, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = await client(APP);
  try {
    await c.query("BEGIN");
    if (tenant !== undefined) await c.query("SELECT set_config('act.tenant', $1, true)", [tenant]);
    const result = await work(c);
    await c.query("COMMIT");
    return result;
  } catch (error) {
    await c.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    await c.end();
  }
}

/** The tables of the store in `schema`, as the strategy creates them. */
const TABLES = [
  "events",
  "events_watermarks",
  "events_keys",
  "events_discovery",
  "events_timers",
  "events_subject_keys",
  "events_subject_streams",
  "events_archive",
];

/** Rows per tenant in every table of `schema`, read as the superuser (which row-level security does not bind). */
async function rowsByTenant(schema: string): Promise<Record<string, Record<string, number>>> {
  const counts: Record<string, Record<string, number>> = {};
  for (const table of TABLES) {
    const rows = await sql<{ tenant: string; n: number }>(
      `SELECT tenant, count(*)::int AS n FROM "${schema}"."${table}" GROUP BY tenant`
    );
    counts[table] = Object.fromEntries(rows.map((r) => [r.tenant, r.n]));
  }
  return counts;
}

beforeAll(roles);
afterAll(async () => {
  await sql("DROP SCHEMA IF EXISTS rls_iso CASCADE");
});

tenantConformance("PostgreSQL, shared tables with row-level security", () => strategyIn("rls_iso"), vitest);

describe("shared tables with row-level security", () => {
  const schema = "rls_raw";
  let strategy: ReturnType<typeof strategyIn>;
  let tenants: ReturnType<typeof model>;
  const model = (s: ReturnType<typeof strategyIn>) =>
    act()
      .with(Counter)
      .on("Incremented")
      .do(async () => {})
      .buildTenants({ store: s });

  /** Fills every table of tenant `id` through its store, and the archive by hand. */
  async function fill(id: string): Promise<void> {
    const app = await tenants.add(id);
    await app.do("increment", { stream: "shared-name", actor }, { by: 1 });
    await app.do("increment", { stream: "shared-name", actor, idempotencyKey: `k-${id}` }, { by: 1 });
    await app.drain();
    const store = app.store as Store & { timers: NonNullable<Store["timers"]>; keys: NonNullable<Store["keys"]> };
    await store.timers.schedule([
      { id: "t1", action: "increment", stream: "shared-name", actor, payload: { by: 1 }, due: new Date(9e12) },
    ]);
    await store.keys.current({ subject: "subject-1", stream: "shared-name", fresh: "key-material" });
    await asTenant(id, (c) =>
      c.query(
        `INSERT INTO "${schema}".events_archive (id, stream, version, name, data, meta, created, archived)
         VALUES (1, 'old', 0, 'Incremented', '{}', '{}', now(), now())`
      )
    );
  }

  beforeAll(async () => {
    strategy = strategyIn(schema);
    tenants = model(strategy);
    await fill("acme");
    await fill("globex");
  });

  afterAll(async () => {
    await tenants.dispose();
    await disposeAndExit();
    await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  /**
   * What isolation means on the raw tables, checked as the app role: with
   * acme set, every table shows acme's rows and nothing else; with no tenant
   * set, nothing; writing globex's row under acme is refused.
   */
  async function isolationHolds(): Promise<void> {
    const counts = await rowsByTenant(schema);
    for (const table of TABLES) {
      const seen = await asTenant("acme", (c) =>
        c.query<{ tenant: string }>(`SELECT * FROM "${schema}"."${table}"`).then((r) => r.rows)
      );
      expect(seen.length, table).toBe(counts[table].acme);
      expect(new Set(seen.map((r) => r.tenant)), table).toEqual(new Set(["acme"]));
      const unset = await asTenant(undefined, (c) => c.query(`SELECT * FROM "${schema}"."${table}"`));
      expect(unset.rows, `${table} with no tenant set`).toEqual([]);
    }
    await expect(
      asTenant("acme", (c) =>
        c.query(
          `INSERT INTO "${schema}".events (tenant, id, stream, version, name, data, meta) VALUES ('globex', 7, 'x', 0, 'Incremented', '{}', '{}')`
        )
      )
    ).rejects.toThrow(/row-level security/);
  }

  it("shows the app role's raw SELECT * only the set tenant's rows, in every table", async () => {
    const counts = await rowsByTenant(schema);
    // Every table holds rows of both tenants: the policy has something to hide.
    for (const table of TABLES) expect(Object.keys(counts[table]).sort(), table).toEqual(["acme", "globex"]);
    const events = await asTenant("acme", (c) =>
      c.query<{ tenant: string; stream: string }>(`SELECT * FROM "${schema}".events`)
    );
    expect(events.rows.length).toBe(counts.events.acme);
    expect(events.rows.every((e) => e.tenant === "acme" && e.stream === "shared-name")).toBe(true);
  });

  it("shows nothing when no tenant is set, on a fresh connection or after another tenant's transaction", async () => {
    const c = await client(APP);
    const insert = () =>
      c.query(
        `INSERT INTO "${schema}".events (id, stream, version, name, data, meta) VALUES (8, 'x', 0, 'Incremented', '{}', '{}')`
      );
    try {
      expect((await c.query(`SELECT * FROM "${schema}".events`)).rows).toEqual([]);
      // The tenant column's default needs a tenant.
      await expect(insert()).rejects.toThrow(/unrecognized configuration parameter "act.tenant"/);
      await c.query("BEGIN");
      await c.query("SELECT set_config('act.tenant', 'acme', true)");
      expect((await c.query(`SELECT * FROM "${schema}".events`)).rows.length).toBeGreaterThan(0);
      await c.query("COMMIT");
      // The setting ended with the transaction: the next statement on this connection sees no tenant.
      expect((await c.query(`SELECT * FROM "${schema}".events`)).rows).toEqual([]);
      // Left empty by the transaction that set it: no tenant, not the tenant "".
      await expect(insert()).rejects.toThrow(/new row violates row-level security policy/);
    } finally {
      await c.end();
    }
  });

  it("leaves no tenant on a pooled connection once a tenant's statement is done", async () => {
    // One pooled connection: whatever acme's store ran on it, the next user gets that connection.
    const one = strategyIn(schema, 1);
    const store = one.store("acme");
    await store.seed();
    expect((await store.query(() => {}, { stream: "shared-name" })) > 0).toBe(true);
    const { pool } = sharedParts(one.connections);
    const [{ setting }] = (await pool.query("SELECT current_setting('act.tenant', true) AS setting")).rows;
    expect(setting ?? "").toBe("");
    expect((await pool.query(`SELECT * FROM "${schema}".events`)).rows).toEqual([]);
    await store.dispose();
    await one.dispose();
  });

  it("refuses, by WITH CHECK, a write of globex's row or a move of a row to globex while acme is set", async () => {
    await expect(
      asTenant("acme", (c) =>
        c.query(
          `INSERT INTO "${schema}".events (tenant, id, stream, version, name, data, meta) VALUES ('globex', 9, 'x', 0, 'Incremented', '{}', '{}')`
        )
      )
    ).rejects.toThrow(/new row violates row-level security policy/);
    await expect(
      asTenant("acme", (c) => c.query(`UPDATE "${schema}".events_watermarks SET tenant = 'globex'`))
    ).rejects.toThrow(/new row violates row-level security policy/);
    // Updates and deletes without a filter reach acme's rows only.
    const deleted = await asTenant("acme", async (c) => {
      const { rowCount } = await c.query(`DELETE FROM "${schema}".events_timers`);
      await c.query("ROLLBACK; BEGIN"); // keep them
      return rowCount;
    });
    expect(deleted).toBe((await rowsByTenant(schema)).events_timers.acme);
  });

  it("catches a dropped, disabled or loosened policy, and a tenant's store refuses to start on such tables", async () => {
    await isolationHolds();
    const owner = await client(OWNER);
    const breakages = [
      `DROP POLICY act_tenant_rows ON "${schema}".events`,
      `ALTER TABLE "${schema}".events DISABLE ROW LEVEL SECURITY`,
      `ALTER TABLE "${schema}".events NO FORCE ROW LEVEL SECURITY`,
      `DROP POLICY act_tenant_rows ON "${schema}".events; CREATE POLICY act_tenant_rows ON "${schema}".events USING (true) WITH CHECK (true)`,
      // Permissive policies add up: a second one lets every row through.
      `CREATE POLICY everyone ON "${schema}".events USING (true)`,
    ];
    try {
      for (const breakage of breakages) {
        await owner.query(breakage);
        if (!breakage.includes("NO FORCE")) await expect(isolationHolds(), breakage).rejects.toThrow();
        // The owner is held to the policy only by FORCE: without it, the owner reads every tenant.
        else {
          await owner.query("BEGIN; SELECT set_config('act.tenant', 'acme', true)");
          const { rows } = await owner.query(`SELECT DISTINCT tenant FROM "${schema}".events ORDER BY 1`);
          await owner.query("COMMIT");
          expect(rows.map((r) => r.tenant)).toEqual(["acme", "globex"]);
        }
        await expect(strategy.store("initech").seed(), breakage).rejects.toThrow(/seed of tenant "initech" refused/);
        // Undo it: the migration puts the guard back.
        await strategy.migrate();
        await isolationHolds();
      }
    } finally {
      await owner.end();
    }
  });

  it("refuses to serve a tenant as a role that bypasses row-level security, or before the migration", async () => {
    const superuser = postgresSharedTenants({ connectionString: connectionString(), schema });
    await expect(superuser.store("acme").seed()).rejects.toThrow(/superuser or has BYPASSRLS/);
    await superuser.dispose();
    // The app role may not create anything: a migration run as it says so.
    const denied = postgresSharedTenants({ connectionString: as(APP), schema: "rls_denied" });
    await expect(denied.migrate()).rejects.toThrow(
      /postgresSharedTenants migrate of "rls_denied"."events" and the tables beside it failed \(as the app role, no owner given\): permission denied/
    );
    await denied.dispose();
    const unmigrated = strategyIn("rls_never_migrated");
    await expect(unmigrated.store("acme").seed()).rejects.toThrow(/rls_never_migrated"."events", .* not found/);
    await unmigrated.dispose();
  });

  it("wakes only the committing tenant's consumers: a channel per tenant on the one listener", async () => {
    const writer = model(strategyIn(schema));
    const woken = { acme: 0, globex: 0 };
    const stops = (["acme", "globex"] as const).map((id) => tenants.app(id).store.subscribe?.(() => void woken[id]++));
    try {
      await writer.add("acme", { seed: false });
      await vitest.vi.waitFor(() => expect(strategy.connections.opened().channels).toBe(2));
      await new Promise((r) => setTimeout(r, 200)); // the LISTENs are in place
      await writer.app("acme").do("increment", { stream: "from-writer", actor }, { by: 1 });
      await vitest.vi.waitFor(() => expect(woken.acme).toBeGreaterThan(0), { timeout: 10_000 });
      expect(woken.globex).toBe(0);
    } finally {
      for (const stop of stops) stop?.();
      await writer.dispose();
    }
  });

  it("removes a tenant by deleting its rows from every table, archive and keys included, and keeps the others'", async () => {
    const before = await rowsByTenant(schema);
    const removal = await tenants.remove("globex");
    expect(removal.erased).toEqual([
      "tables of the store",
      `rows of tenant globex in "${schema}"."events" and every table beside it`,
    ]);
    const after = await rowsByTenant(schema);
    for (const table of TABLES) {
      expect(after[table].globex, table).toBeUndefined();
      expect(after[table].acme, table).toBe(before[table].acme);
    }
  });
});
