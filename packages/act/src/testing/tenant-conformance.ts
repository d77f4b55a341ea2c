import { z } from "zod";
import { act } from "../act-builder.js";
import { state } from "../builders/state-builder.js";
import { projection } from "../builders/projection.js";
import { TenantError } from "../tenants/tenant-error.js";
import { ValidationError } from "../core/errors.js";
import type { Act } from "../act.js";
import type { Store } from "../types/ports.js";
import type { TenantStores } from "../tenants/tenant-stores.js";
import type { Tenants } from "../tenants/tenants.js";
import type { TestApi } from "./test-api.js";
import { settle } from "./settle.js";

const actor = { id: "hostile-test", name: "Mallory" };

/** Every event carries the tenant it was committed for, so a read that strays shows at once. */
const Account = state("Account", z.object({ owner: z.string(), total: z.number() }))
  .init(() => ({ owner: "", total: 0 }))
  .emits({
    Deposited: z.object({ owner: z.string(), amount: z.number(), to: z.string().optional() }),
    Noted: z.object({ owner: z.string(), note: z.string() }),
  })
  .patch({
    Deposited: ({ data }, s) => ({ owner: data.owner, total: s.total + data.amount }),
    Noted: ({ data }) => ({ owner: data.owner }),
  })
  .on("deposit", z.object({ owner: z.string(), amount: z.number(), to: z.string().optional() }))
  .emit((data) => ["Deposited", data])
  .on("note", z.object({ owner: z.string(), note: z.string() }))
  .emit((data) => ["Noted", data])
  .build();

/**
 * SQL and path fragments as stream names and tenant ids: a store that pasted
 * one into a statement or a path would break, or reach another tenant.
 */
const HOSTILE_STREAMS = [
  "acct'; DROP TABLE events; --",
  'acct"; DELETE FROM "events"; --',
  "acct' OR '1'='1",
  "../b/acct",
  "acct\\'--",
];
const HOSTILE_IDS = [
  "b'; drop table events; --",
  "../b",
  "b/../../etc",
  "B",
  "a b",
  "",
  "a_b",
  "a.b",
  "-a",
  "a-",
  "x".repeat(41),
  "b;",
  'b"',
  "b\u0000",
];

/** Builds the tenants of the suite: a reaction routed to a stream every tenant has, and a projection. */
function model(strategy: TenantStores, projected: Array<{ tenant: string; owner: string }>) {
  const Totals = projection("Totals")
    .with(Account)
    .on("Deposited", (event) => void projected.push({ tenant: event.data.to ?? "", owner: event.data.owner }))
    .build();
  return act()
    .with(Account)
    .with(Totals)
    .on("Deposited")
    .do(
      async (event, stream, app) => {
        await app.do("note", { stream, actor }, { owner: event.data.owner, note: event.stream }, { reactingTo: event });
      },
      { name: "audit" }
    )
    .to((event) => ({ target: event.data.to ?? "audit" }))
    .buildTenants({ store: strategy });
}

type App = Act<any, any, any>;

/** Every event of an app's store, snapshots included. */
async function log(app: App) {
  const events: Array<{ id: number; stream: string; name: string; owner: string; version: number }> = [];
  await app.store.query(
    (e) =>
      void events.push({
        id: e.id,
        stream: e.stream,
        name: String(e.name),
        owner: String((e.data as { owner?: string }).owner),
        version: e.version,
      }),
    { with_snaps: true }
  );
  return events;
}

/** What a tenant's store holds besides its events: reaction streams and discovery positions. */
async function bookkeeping(store: Store) {
  const reactions = (await store.reactions()).map(({ stream, at, blocked, retry }) => ({ stream, at, blocked, retry }));
  const discovered = [...(await store.discovered(["Deposited/audit", "Deposited/projection:Totals"]))];
  return { reactions, discovered };
}

/**
 * Registers the tenant isolation suite: hostile tests every strategy of
 * tenants by store must pass — guessed stream names, another tenant's
 * correlation ids, queries, loads, reactions and projections routed to a
 * stream name another tenant has, operator commands and timers named alike,
 * SQL and path fragments as stream names and tenant ids — each checking that
 * tenant A never reads, moves or wakes anything of tenant B: B's log, its
 * reaction watermarks, discovery positions and wake-ups stay as they were.
 * It ends by removing tenants and checking that only the removed tenant's
 * data is gone. Call it at the top level of a test file.
 *
 * Each test adds tenants of its own (ids unique per run) and removes them;
 * the strategy is created once and disposed after the last test.
 *
 * @experimental
 * @param name - names the strategy in the test titles
 * @param factory - creates the strategy under test (called once)
 * @param test - the test runner's functions: `import * as vitest from "vitest"`
 * @example
 * ```ts
 * import * as vitest from "vitest";
 * import { tenantConformance } from "@act-root/act/testing";
 *
 * tenantConformance("in memory", () => ({ store: () => new InMemoryStore() }), vitest);
 * ```
 */
export function tenantConformance(
  name: string,
  factory: () => TenantStores | Promise<TenantStores>,
  test: TestApi
): void {
  const { afterAll, beforeEach, describe, expect, it } = test;
  describe(`Tenant isolation: ${name}`, () => {
    let tenants: Tenants<any, any, any>;
    let strategy: TenantStores;
    let created: string[];
    const projected: Array<{ tenant: string; owner: string }> = [];
    const run = Math.random().toString(36).slice(2, 8);
    let n = 0;

    beforeEach(async () => {
      if (!tenants) {
        strategy = await factory();
        created = [];
        // Counts the stores asked for, so a refused id is seen to create nothing.
        tenants = model(
          {
            ...strategy,
            store: (tenant) => {
              created.push(tenant);
              return strategy.store.call(strategy, tenant);
            },
            create: strategy.create?.bind(strategy),
            erase: strategy.erase?.bind(strategy),
            dispose: strategy.dispose?.bind(strategy),
          },
          projected
        );
      }
      projected.length = 0;
    });

    afterAll(async () => {
      await tenants?.dispose();
    });

    /** Two fresh tenants: B with streams, reactions, a projection and a blocked-free audit trail; A empty. */
    async function pair() {
      n++;
      const [a, b] = [`a-${run}-${n}`, `b-${run}-${n}`];
      const A = await tenants.add(a);
      const B = await tenants.add(b);
      const fromB = await B.do("deposit", { stream: "acct-1", actor }, { owner: b, amount: 10 });
      await B.do("deposit", { stream: "only-in-b", actor }, { owner: b, amount: 5, to: "b-private" });
      await settle(B);
      projected.length = 0;
      const before = { log: await log(B), bookkeeping: await bookkeeping(B.store) };
      return { a, b, A, B, correlation: fromB[0].event!.meta.correlation, before };
    }

    /** B exactly as it was: no event, watermark or discovery position of it moved. */
    async function unchanged(B: App, before: Awaited<ReturnType<typeof pair>>["before"]) {
      expect(await log(B)).toEqual(before.log);
      expect(await bookkeeping(B.store)).toEqual(before.bookkeeping);
    }

    it("keeps streams of the same name apart: A's actions, loads and queries see only A's events", async () => {
      const { a, b, A, B, before } = await pair();
      expect((await A.load(Account, "acct-1")).state).toEqual({ owner: "", total: 0 });
      await A.do("deposit", { stream: "acct-1", actor }, { owner: a, amount: 1 });
      expect((await A.load(Account, "acct-1")).state).toEqual({ owner: a, total: 1 });
      expect((await B.load(Account, "acct-1")).state).toEqual({ owner: b, total: 10 });
      expect((await log(A)).every((e) => e.owner === a)).toBe(true);
      await unchanged(B, before);
      await tenants.remove(a);
      await tenants.remove(b);
    });

    it("finds nothing of B by guessed stream names, B's correlation ids or B's event ids", async () => {
      const { a, b, A, B, correlation, before } = await pair();
      await A.do("deposit", { stream: "acct-1", actor }, { owner: a, amount: 1 });
      for (const stream of ["only-in-b", "b-private", "audit"])
        expect(await A.queryArray({ stream }), stream).toEqual([]);
      expect((await A.load(Account, "only-in-b")).state.total).toBe(0);
      expect(await A.queryArray({ correlation })).toEqual([]);
      const ids = before.log.map((e) => e.id);
      const byId = await A.queryArray({ ids, limit: 1_000 });
      expect(byId.every((e) => (e.data as { owner: string }).owner === a)).toBe(true);
      // Waiting for B's chain from A finds nothing to wait for, and touches nothing of B.
      await A.settled(correlation, { timeoutMillis: 1_000 });
      await unchanged(B, before);
      await tenants.remove(a);
      await tenants.remove(b);
    });

    it("routes A's reactions and projection into A's streams named like B's, never B's", async () => {
      const { a, b, A, B, before } = await pair();
      const wakes: unknown[] = [];
      const unsubscribe = B.store.subscribe?.((names) => void wakes.push(names));
      await A.do("deposit", { stream: "acct-1", actor }, { owner: a, amount: 2, to: "b-private" });
      await A.do("deposit", { stream: "acct-2", actor }, { owner: a, amount: 3 });
      await settle(A);
      expect((await A.load(Account, "b-private")).state.owner).toBe(a);
      expect((await A.load(Account, "audit")).state.owner).toBe(a);
      expect((await log(A)).every((e) => e.owner === a)).toBe(true);
      expect(projected.filter((p) => p.owner === a)).toHaveLength(2);
      expect(projected.filter((p) => p.owner === b)).toEqual([]);
      const streams = (await A.stats()).streams.map((s) => s.stream).sort();
      expect(streams).toEqual(["audit", "b-private", "projection:Totals"]);
      // Wake-ups are announced asynchronously (a server round trip): give them time to arrive.
      await new Promise((r) => setTimeout(r, 300));
      unsubscribe?.();
      expect(wakes).toEqual([]);
      await unchanged(B, before);
      await tenants.remove(a);
      await tenants.remove(b);
    });

    it("lets A's operator commands and timers named like B's move only A's", async () => {
      const { a, b, A, B, before } = await pair();
      await A.do("deposit", { stream: "acct-1", actor }, { owner: a, amount: 1 });
      await settle(A);
      expect(await A.reset("audit", "b-private", "projection:Totals")).toContain("audit");
      await A.unblock("audit", "b-private");
      expect(await A.blocked()).toEqual([]);
      await unchanged(B, before);
      const timer = {
        id: "t-1",
        action: "note",
        target: { stream: "acct-1", actor },
        afterMillis: 3_600_000,
      } as const;
      if (A.store.timers && B.store.timers) {
        expect(await B.schedule({ ...timer, payload: { owner: b, note: "b" } })).toBe(true);
        expect(await A.schedule({ ...timer, payload: { owner: a, note: "a" } })).toBe(true);
        expect(await A.cancel("t-1")).toEqual(["t-1"]);
        expect(await B.store.timers.count(new Date())).toEqual(expect.objectContaining({ pending: 1 }));
      }
      await tenants.remove(a);
      await tenants.remove(b);
    });

    it("keeps SQL and path fragments as stream names in A's log, exactly as given", async () => {
      const { a, b, A, B, before } = await pair();
      for (const stream of HOSTILE_STREAMS) {
        await A.do("deposit", { stream, actor }, { owner: a, amount: 1 });
        expect((await A.queryArray({ stream })).map((e) => e.stream)).toEqual([stream]);
      }
      await settle(A);
      expect((await log(A)).filter((e) => e.name === "Deposited")).toHaveLength(HOSTILE_STREAMS.length);
      await unchanged(B, before);
      await tenants.remove(a);
      await tenants.remove(b);
    });

    it("refuses SQL-ish and path-like tenant ids before creating anything", async () => {
      const count = created.length;
      for (const id of HOSTILE_IDS) {
        await expect(tenants.add(id), JSON.stringify(id)).rejects.toThrow(ValidationError);
        expect(() => tenants.app(id)).toThrow(ValidationError);
      }
      await expect(tenants.add(null as never)).rejects.toThrow(/tenant id/);
      expect(created.length).toBe(count);
      expect(() => tenants.app(`never-added-${run}`)).toThrow(TenantError);
    });

    it("removes a tenant with all of its data and leaves the others as they were", async () => {
      const { a, b, A, B, before } = await pair();
      await A.do("deposit", { stream: "acct-1", actor }, { owner: a, amount: 1 });
      const removal = await tenants.remove(b);
      expect(removal.tenant).toBe(b);
      expect(removal.erased.length).toBeGreaterThan(0);
      expect(() => tenants.app(b)).toThrow(/was removed/);
      await expect(tenants.add(b)).rejects.toThrow(TenantError);
      // B's old app finds nothing: its store refuses calls, or is empty.
      expect(await B.queryArray({}).catch(() => [])).toEqual([]);
      expect((await A.load(Account, "acct-1")).state.total).toBe(1);
      expect(before.log.length).toBeGreaterThan(0);
      // Served again by another process (here: another Tenants on the strategy), the id starts empty.
      const again = model(strategy, []);
      expect(await (await again.add(b)).queryArray({})).toEqual([]);
      await again.remove(b);
      await tenants.remove(a);
    });
  });
}
