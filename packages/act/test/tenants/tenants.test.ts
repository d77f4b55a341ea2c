/**
 * `act()…buildTenants({ store })`: the same typed app per tenant, each on a
 * store of its own, created at the first use, added and removed at run time.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  act,
  BuilderError,
  disposeAndExit,
  InMemoryStore,
  type Store,
  TenantError,
  type TenantStores,
  ValidationError,
} from "../../src/index.js";
import { settle } from "../../src/testing/index.js";
import { actor, Counter } from "../fixtures.js";

afterEach(async () => {
  await disposeAndExit();
});

/** A strategy that records what it was asked. */
function recording() {
  const stores = new Map<string, InMemoryStore>();
  const calls: string[] = [];
  const strategy: TenantStores = {
    store: (tenant) => {
      calls.push(`store ${tenant}`);
      const store = new InMemoryStore();
      stores.set(tenant, store);
      return store;
    },
    create: async (tenant) => void calls.push(`create ${tenant}`),
    erase: async (tenant) => {
      calls.push(`erase ${tenant}`);
      return [`memory of ${tenant}`];
    },
    dispose: async () => void calls.push("dispose"),
  };
  return { strategy, stores, calls };
}

const audited = () =>
  act()
    .with(Counter)
    .on("Incremented")
    .do(async (event, stream, app) => {
      await app.do("tag", { stream, actor }, { tags: [event.stream] }, { reactingTo: event });
    })
    .to("audit");

describe("tenants", () => {
  it("gives each tenant the same typed app on a store of its own, built once and kept", async () => {
    const { strategy, stores, calls } = recording();
    const tenants = audited().buildTenants({ store: strategy });
    const acme = await tenants.add("acme");
    const globex = await tenants.add("globex");
    expect(calls).toEqual(["create acme", "store acme", "create globex", "store globex"]);
    expect(tenants.app("acme")).toBe(acme);
    expect(acme.store).toBe(stores.get("acme"));
    expect(await tenants.add("acme")).toBe(acme);
    expect(tenants.list()).toEqual(["acme", "globex"]);
    await acme.do("increment", { stream: "c", actor }, { by: 2 });
    await globex.do("increment", { stream: "c", actor }, { by: 7 });
    await settle(acme);
    await settle(globex);
    expect((await acme.load(Counter, "c")).state.count).toBe(2);
    expect((await globex.load(Counter, "c")).state.count).toBe(7);
    expect((await globex.load(Counter, "audit")).state.tags).toEqual(["c"]);
    expect(await stores.get("acme")!.query(() => {})).toBe(2);
    // Code that sees only a store (an observer's hooks) learns its tenant.
    expect([tenants.tenantOf(acme.store), tenants.tenantOf(globex.store)]).toEqual(["acme", "globex"]);
    expect(tenants.tenantOf(new InMemoryStore())).toBeUndefined();
    expect(tenants.tenantOf(undefined)).toBeUndefined();
    await tenants.dispose();
    expect(calls.at(-1)).toBe("dispose");
  });

  it("creates one store for two concurrent adds of a tenant", async () => {
    const { strategy, calls } = recording();
    const tenants = audited().buildTenants({ store: strategy });
    const [one, two] = await Promise.all([tenants.add("acme"), tenants.add("acme")]);
    expect(one).toBe(two);
    expect(calls).toEqual(["create acme", "store acme"]);
  });

  it("adds a tenant with { seed: false } without creating or seeding its store", async () => {
    const { strategy, calls } = recording();
    const seed = vi.spyOn(InMemoryStore.prototype, "seed");
    const tenants = audited().buildTenants({ store: strategy });
    await tenants.add("acme", { seed: false });
    expect(calls).toEqual(["store acme"]);
    expect(tenants.has("acme")).toBe(true);
    expect(seed).not.toHaveBeenCalled();
    seed.mockRestore();
  });

  it("refuses malformed ids with the rule, and unknown tenants with how to add them", async () => {
    const tenants = audited().buildTenants({ store: () => new InMemoryStore() });
    await expect(tenants.add("Acme")).rejects.toThrow(
      /"Acme" is not a tenant id: expected 1 to 40 lower-case letters, digits or "-"/
    );
    expect(() => tenants.app("a_b")).toThrow(ValidationError);
    expect(() => tenants.app("acme")).toThrow(TenantError);
    expect(() => tenants.app("acme")).toThrow(/call await tenants.add\("acme"\) first/);
    await expect(tenants.remove("acme")).rejects.toMatchObject({ reason: "unknown" });
    await tenants.add("3f2c1a9e-7b4d-4e21-9c3a-0d5e6f7a8b9c");
  });

  it("refuses at build a store option that is neither a function nor a strategy, and a builder without states", () => {
    expect(() => audited().buildTenants({ store: {} as never })).toThrow(BuilderError);
    expect(() => act().buildTenants({ store: () => new InMemoryStore() })).toThrow(/has no states/);
  });

  it("removes a tenant: stops its work, drops and closes its store, erases the rest, and says so", async () => {
    const { strategy, stores, calls } = recording();
    const tenants = audited().buildTenants({ store: strategy });
    const acme = await tenants.add("acme");
    const globex = await tenants.add("globex");
    await acme.do("increment", { stream: "c", actor }, { by: 1 });
    await globex.do("increment", { stream: "c", actor }, { by: 1 });
    const store = stores.get("acme") as Store;
    const drop = vi.spyOn(store, "drop");
    const dispose = vi.spyOn(store, "dispose");
    tenants.start({ pollMillis: 50 });
    const removal = await tenants.remove("acme");
    expect(removal).toEqual({ tenant: "acme", erased: ["tables of the store", "memory of acme"] });
    expect(drop).toHaveBeenCalled();
    expect(dispose).toHaveBeenCalledTimes(1);
    expect(calls).toContain("erase acme");
    expect(tenants.list()).toEqual(["globex"]);
    expect(tenants.tenantOf(store)).toBeUndefined();
    expect(() => tenants.app("acme")).toThrow(/was removed/);
    await expect(tenants.add("acme")).rejects.toMatchObject({ reason: "removed" });
    await expect(tenants.remove("acme")).rejects.toMatchObject({ reason: "removed" });
    // The other tenant keeps working, and its consumer keeps running.
    const [snap] = await globex.do("increment", { stream: "d", actor }, { by: 1 });
    await globex.settled([snap], { timeoutMillis: 4_000 });
    expect((await globex.load(Counter, "audit")).state.tags).toEqual(["c", "d"]);
    await tenants.stop();
  });

  it("has disposeAndExit stop the consumer, close every tenant's store, then what the strategy shares", async () => {
    const { strategy, stores, calls } = recording();
    const tenants = audited().buildTenants({ store: strategy });
    await tenants.add("acme");
    await tenants.add("globex");
    const order: string[] = [];
    for (const [tenant, store] of stores)
      vi.spyOn(store, "dispose").mockImplementation(async () => void order.push(tenant));
    tenants.start();
    await disposeAndExit();
    expect(order.sort()).toEqual(["acme", "globex"]);
    expect(calls.at(-1)).toBe("dispose");
  });
});
