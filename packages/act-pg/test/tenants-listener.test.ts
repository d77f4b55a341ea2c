/**
 * A schema per tenant shares one listening connection: when the server ends
 * it (`pg_terminate_backend`), the listener connects again and listens on
 * every tenant's channel, so each tenant's commits made by another process
 * wake its consumer again — and only its own.
 */
import { act, disposeAndExit, type Store } from "@act-root/act";
import { afterEach, describe, expect, it, vi } from "vitest";
import { postgresSchemaTenants } from "../src/index.js";
import { Counter } from "./fixtures/states.js";
import { connectionString, sql } from "./support.js";

process.env.LOG_LEVEL ??= "fatal";

const actor = { id: "u", name: "U" };
const applicationName = "act-relisten-worker";

/** The server processes of the worker's connections that listen (their last statement was a LISTEN). */
async function listeners(): Promise<number[]> {
  const rows = await sql<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN %'",
    [applicationName]
  );
  return rows.map(({ pid }) => pid);
}

describe("the shared listener of a schema per tenant", () => {
  afterEach(async () => {
    await disposeAndExit();
  });

  it("listens again after the server ends its connection: each tenant's commits wake its consumer, and no other", async () => {
    const config = { connectionString: connectionString(), prefix: "relisten_" };
    const handled: string[] = [];
    /** Wake-ups each tenant's store gave the worker's consumer. */
    const wakes = new Map<string, number>();
    const shared = postgresSchemaTenants({ ...config, applicationName });
    const counted = {
      ...shared,
      store: (tenant: string): Store => {
        const store = shared.store(tenant);
        const subscribe = store.subscribe!.bind(store);
        store.subscribe = (listener) =>
          subscribe((names) => {
            wakes.set(tenant, (wakes.get(tenant) ?? 0) + 1);
            listener(names);
          });
        return store;
      },
    };
    const model = () =>
      act()
        .with(Counter)
        .on("Incremented")
        .do(async (event) => void handled.push(event.stream));
    const worker = model().buildTenants({ store: counted });
    const writer = model().buildTenants({ store: postgresSchemaTenants(config) });
    const ids = ["acme", "globex", "initech"];
    for (const id of ids) {
      await worker.add(id);
      await writer.add(id, { seed: false });
    }
    // Polls far apart: only wake-ups drain.
    worker.start({ pollMillis: 600_000 });
    try {
      await vi.waitFor(() => expect(shared.connections.opened().channels).toBe(ids.length), { timeout: 10_000 });
      await vi.waitFor(async () => expect(await listeners()).toHaveLength(1), { timeout: 10_000 });
      const [before] = await listeners();
      await sql("SELECT pg_terminate_backend($1)", [before]);
      // A new connection listens on every channel again.
      await vi.waitFor(
        async () => {
          const now = await listeners();
          expect(now).toHaveLength(1);
          expect(now[0]).not.toBe(before);
        },
        { timeout: 10_000, interval: 50 }
      );
      // Once listening again it wakes every tenant (it may have missed notifications).
      await vi.waitFor(
        () => {
          for (const id of ids) expect(wakes.get(id)).toBeGreaterThan(0);
        },
        { timeout: 10_000 }
      );
      for (const id of ids) {
        const counts = new Map(wakes);
        await writer.app(id).do("increment", { stream: `${id}-after`, actor }, { by: 1 });
        await vi.waitFor(() => expect(handled).toContain(`${id}-after`), { timeout: 10_000, interval: 20 });
        // This tenant's store woke its consumer, no other tenant's did.
        expect(wakes.get(id)).toBeGreaterThan(counts.get(id) ?? 0);
        for (const other of ids.filter((x) => x !== id)) expect(wakes.get(other)).toBe(counts.get(other));
      }
      expect(handled.sort()).toEqual(ids.map((id) => `${id}-after`).sort());
    } finally {
      await writer.dispose();
      for (const id of ids) await worker.remove(id);
      await worker.dispose();
    }
  });
});
