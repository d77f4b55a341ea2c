/**
 * The inspector on one tenant: the command line opens the tenant's file as
 * `sqliteTenants` names it, and app mode inspects the tenant's app — each
 * showing that tenant's data only.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Committed, disposeAndExit, type Schemas, type Tenants } from "@act-root/act";
import { sqliteTenants } from "@act-root/act-sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inspect } from "../src/index.js";
import { parseArgs } from "../src/server/args.js";
import { type RunningServer, startServer } from "../src/server/http.js";
import { type Opened, openStore } from "../src/server/open-store.js";
import { shopModel } from "./fixture.js";
import { caller, showsAcmeOnly, twoTenants } from "./tenant-views.js";

const dir = mkdtempSync(join(tmpdir(), "inspector-tenants-"));
let tenants: Tenants<any, any, any>;
let globex: Committed<Schemas, string>[];
const running: RunningServer[] = [];

beforeAll(async () => {
  tenants = shopModel().buildTenants({ store: sqliteTenants({ folder: dir }) });
  ({ globex } = await twoTenants(await tenants.add("acme"), await tenants.add("globex")));
});

afterAll(async () => {
  for (const server of running) await server.close();
  await disposeAndExit();
  rmSync(dir, { recursive: true, force: true });
});

describe("act-inspector --sqlite-tenants <folder> --tenant <id>", () => {
  it("opens the tenant's file, and shows its data only", async () => {
    const opened: Opened = await openStore(parseArgs(["--sqlite-tenants", dir, "--tenant", "acme"]));
    try {
      const server = await startServer({ store: opened.store, catalog: opened.catalog, tenant: opened.tenant });
      running.push(server);
      const get = await showsAcmeOnly(server, globex);
      expect((await get("/api/info")).body.store).toBe("tenant acme · sqlite acme.db");
    } finally {
      await opened.close();
    }
  });

  it("refuses a tenant without a file, and flags that do not go together", async () => {
    await expect(openStore(parseArgs(["--sqlite-tenants", dir, "--tenant", "initech"]))).rejects.toThrow(/initech\.db/);
    expect(() => parseArgs(["--sqlite-tenants", dir])).toThrow(/--tenant <id> go together/);
    expect(() => parseArgs(["--sqlite", "x.db", "--tenant", "acme"])).toThrow(/go together/);
    expect(() => parseArgs(["--sqlite-tenants", dir, "--tenant", "Not_An_Id"])).toThrow(/--tenant: .*tenant id/i);
    expect(() => parseArgs(["--pg", "postgres://x", "--pg-schema-tenant", "a", "--pg-shared-tenant", "b"])).toThrow(
      /either --pg-schema-tenant or --pg-shared-tenant/
    );
    expect(() => parseArgs(["--pg", "postgres://x", "--prefix", "t_"])).toThrow(
      /--prefix goes with --pg-schema-tenant/
    );
    expect(() => parseArgs(["--sqlite-tenants", dir, "--tenant", "acme", "--pg-shared-tenant", "acme"])).toThrow(
      /give --pg/
    );
  });
});

describe("inspect(tenants, { tenant })", () => {
  it("inspects the tenant's app, and shows its data only", async () => {
    const server = await inspect(tenants, { tenant: "acme", print: false });
    running.push(server);
    const get = await showsAcmeOnly(server, globex);
    expect((await get("/api/info")).body).toMatchObject({ mode: "app", store: "tenant acme · app store" });
    // App mode counts lag with the tenant's app: its blocked order, never the other tenant's.
    const reactions = (await get("/api/reactions")).body.streams;
    expect(reactions.find((s: { stream: string }) => s.stream === "order-poisoned")).toMatchObject({ blocked: true });
  });

  it("needs the tenant, and one this process serves", async () => {
    await expect(inspect(tenants, { print: false })).rejects.toThrow(/needs the tenant to inspect/);
    await expect(inspect(tenants, { tenant: "initech", print: false })).rejects.toThrow(/initech/);
  });

  it("inspecting globex shows its streams, and acme's stream names answer not-found", async () => {
    const server = await inspect(tenants, { tenant: "globex", print: false });
    running.push(server);
    const get = await caller(server);
    expect((await get("/api/streams")).body.streams.map((s: { stream: string }) => s.stream)).toEqual([
      "globex-order-9",
    ]);
    expect((await get("/api/stream?name=order-1")).status).toBe(404);
  });
});
