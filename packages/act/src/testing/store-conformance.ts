import type { Store } from "../types/ports.js";
import type { EventMeta } from "../core/schemas.js";
import { discoveryConformance } from "./discovery-conformance.js";
import { eventsConformance } from "./events-conformance.js";
import { idempotencyConformance } from "./idempotency-conformance.js";
import { joiningConformance } from "./joining-conformance.js";
import { watermarksConformance } from "./watermarks-conformance.js";
import { inlineConformance, projectConformance } from "./projection-conformance.js";
import { timersConformance } from "./timers-conformance.js";
import { personalConformance } from "./personal-conformance.js";
import { archiveConformance } from "./archive-conformance.js";
import { lifecycleConformance } from "./lifecycle-conformance.js";
import type { ReadModelProbe } from "./read-model-probe.js";
import type { TestApi } from "./test-api.js";

const meta = (correlation = "c-1"): EventMeta => ({ correlation, causation: {} });
const msg = (name: string, data: Record<string, unknown> = {}) => ({ name, data });

/**
 * Registers the store conformance suite: the tests every {@link Store}
 * adapter must pass, the same ones `InMemoryStore` and `PostgresStore` run.
 * They cover commits and the expected version (two concurrent commits with
 * the same expected version: exactly one wins), data kept as JSON, stream
 * names, queries and their filters, snapshots, idempotency keys, and the
 * reaction bookkeeping (`poll` and its filter by reactions, `lease` with its
 * tokens and renewals, `ack`, `block`, `reactions` and its filters, `unblock`, `reset`,
 * `retire`; a reaction that joins a stream late moves its watermark back),
 * the positions of discovery (`discovered`, `discover`), timers (`timers`:
 * schedule, cancel, claims and their tokens, due order, a timer fired once
 * across a crash), the keys of data subjects (`keys`: personal fields sealed and
 * opened, `forget` with its snapshots emptied, key rotation, tampered values), closing and
 * archiving (`archive`: closed streams refuse actions, moves and purges by policy,
 * reads after a move) and, for
 * a store that has it, `project` (a projection's writes
 * and position in one transaction). Call it at the top level of a test file.
 *
 * The store is created once, on the first test, and `drop()` then `seed()`
 * run before every test, so point it at a database (or table) of its own:
 * the suite deletes everything in it. The store is disposed after the last
 * test. A few tests wait on real time (leases and retry delays of a few
 * hundred milliseconds); the whole suite takes a few seconds.
 *
 * The test functions are passed in rather than imported, so importing
 * `@act-root/act/testing` never loads a test runner: pass vitest's module
 * (vitest 3 or later, an optional peer dependency of `@act-root/act`).
 *
 * @experimental
 * @param name - names the store in the test titles
 * @param factory - creates the store under test (called once)
 * @param test - the test runner's functions: `import * as vitest from "vitest"`
 * @param probe - for a store with `project`: how to reach a read model in its database, so the
 *   suite checks that a projection's writes commit and roll back with its position (see {@link ReadModelProbe})
 * @example
 * ```ts
 * // test/my-store.conformance.test.ts
 * import * as vitest from "vitest";
 * import { storeConformance } from "@act-root/act/testing";
 *
 * storeConformance("MyStore", () => new InMemoryStore(), vitest);
 * ```
 */
export function storeConformance(
  name: string,
  factory: () => Store | Promise<Store>,
  test: TestApi,
  probe?: ReadModelProbe
): void {
  const { afterAll, beforeEach, describe, expect, it } = test;
  describe(`Store conformance: ${name}`, () => {
    let store: Store;

    beforeEach(async () => {
      store ??= await factory();
      await store.drop();
      await store.seed();
    });

    afterAll(async () => {
      await store?.dispose();
    });

    const all = async (query?: Parameters<Store["query"]>[1]) => {
      const events: any[] = [];
      await store.query((e) => events.push(e), query);
      return events;
    };

    describe("seed and drop", () => {
      it("seed is idempotent and keeps the events", async () => {
        await store.commit({ stream: "a", messages: [msg("A")], meta: meta() });
        await store.seed();
        expect(await all()).toHaveLength(1);
      });

      it("drop removes every event and watermark", async () => {
        await store.commit({ stream: "a", messages: [msg("A")], meta: meta() });
        await store.lease([{ stream: "r", by: "d", at: -1, retry: 0 }], 0);
        await store.drop();
        await store.seed();
        expect(await all()).toHaveLength(0);
        expect(await store.poll({ lagging: 10, leading: 10 })).toEqual([]);
      });

      it("never reuses an id, not even after drop", async () => {
        const [before] = await store.commit({ stream: "a", messages: [msg("A")], meta: meta() });
        await store.drop();
        await store.seed();
        const [after] = await store.commit({ stream: "a", messages: [msg("A")], meta: meta() });
        expect(after.version).toBe(0);
        expect(after.id).toBeGreaterThan(before.id);
      });
    });

    eventsConformance(() => store, test);
    idempotencyConformance(() => store, test);
    watermarksConformance(() => store, test);
    discoveryConformance(() => store, test);
    joiningConformance(() => store, test);
    projectConformance(() => store, test, probe);
    inlineConformance(() => store, test, probe);
    timersConformance(() => store, test);
    personalConformance(() => store, test);
    archiveConformance(() => store, test);
    lifecycleConformance(() => store, test);
  });
}
