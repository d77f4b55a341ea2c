import { ConcurrencyError } from "../core/errors.js";
import type { EventMeta } from "../core/schemas.js";
import type { Store } from "../types/ports.js";
import type { TestApi } from "./test-api.js";

const meta = (correlation = "c-1"): EventMeta => ({ correlation, causation: {} });
const msg = (name: string, data: Record<string, unknown> = {}) => ({ name, data });

/**
 * The part of the store conformance suite about idempotency keys: a key
 * commits once per stream, `recall` returns the versions and the request it
 * was used for, and of two concurrent commits with one key exactly one wins.
 * Registered by {@link storeConformance}.
 *
 * @param store - the store under test (seeded and empty before each test)
 * @param test - the test runner's functions
 */
export function idempotencyConformance(store: () => Store, test: TestApi): void {
  const { describe, expect, it } = test;
  const all = async (query?: Parameters<Store["query"]>[1]) => {
    const events: any[] = [];
    await store().query((e) => events.push(e), query);
    return events;
  };
  describe("idempotency keys", () => {
    it("commits once per key and stream, remembers the versions, and refuses the key again", async () => {
      await store().commit({ stream: "k", messages: [msg("A")], meta: meta() });
      await store().commit({
        stream: "k",
        messages: [msg("B"), msg("C")],
        meta: meta(),
        expectedVersion: 0,
        idempotencyKey: "req-1",
      });
      expect(await store().recall("k", "req-1")).toEqual({ from: 1, to: 2 });
      await expect(
        store().commit({ stream: "k", messages: [msg("D")], meta: meta(), idempotencyKey: "req-1" })
      ).rejects.toBeInstanceOf(ConcurrencyError);
      await expect(
        store().commit({ stream: "k", messages: [msg("D")], meta: meta(), expectedVersion: 2, idempotencyKey: "req-1" })
      ).rejects.toBeInstanceOf(ConcurrencyError);
      expect((await all({ stream: "k" })).map((e) => e.name)).toEqual(["A", "B", "C"]);
      expect(await store().recall("k", "req-2")).toBeUndefined();
      expect(await store().recall("other", "req-1")).toBeUndefined();
      await store().commit({ stream: "other", messages: [msg("X")], meta: meta(), idempotencyKey: "req-1" }); // keys are per stream
    });

    it("commits under a new key right after recalling a used one (a lookup leaves nothing behind)", async () => {
      await store().commit({
        stream: "k",
        messages: [msg("A")],
        meta: meta(),
        expectedVersion: -1,
        idempotencyKey: "used",
      });
      expect(await store().recall("k", "used")).toEqual({ from: 0, to: 0 });
      await store().commit({
        stream: "k",
        messages: [msg("B")],
        meta: meta(),
        expectedVersion: 0,
        idempotencyKey: "fresh",
      });
      expect(await store().recall("k", "fresh")).toEqual({ from: 1, to: 1 });
    });

    it("keeps what the request that used a key asked for, and nothing for a key committed without it", async () => {
      await store().commit({
        stream: "k",
        messages: [msg("A")],
        meta: meta(),
        expectedVersion: -1,
        idempotencyKey: "with",
        request: "sha256:ab",
      });
      await store().commit({
        stream: "k",
        messages: [msg("B")],
        meta: meta(),
        expectedVersion: 0,
        idempotencyKey: "without",
      });
      expect(await store().recall("k", "with")).toEqual({ from: 0, to: 0, request: "sha256:ab" });
      expect(await store().recall("k", "without")).toEqual({ from: 1, to: 1 });
      // A used key is refused whatever request comes with it: the caller decides by what recall says.
      await expect(
        store().commit({
          stream: "k",
          messages: [msg("C")],
          meta: meta(),
          idempotencyKey: "with",
          request: "sha256:cd",
        })
      ).rejects.toBeInstanceOf(ConcurrencyError);
      expect(await store().recall("k", "with")).toEqual({ from: 0, to: 0, request: "sha256:ab" });
      await expect(
        store().commit({ stream: "k", messages: [msg("C")], meta: meta(), idempotencyKey: "new", request: "" })
      ).rejects.toThrow(/idempotency request/);
    });

    it("lets exactly one of two concurrent commits with the same key win", async () => {
      const results = await Promise.allSettled([
        store().commit({ stream: "race", messages: [msg("A")], meta: meta(), idempotencyKey: "same" }),
        store().commit({ stream: "race", messages: [msg("B")], meta: meta(), idempotencyKey: "same" }),
      ]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      expect(results.filter((r) => r.status === "rejected" && r.reason instanceof ConcurrencyError)).toHaveLength(1);
      expect(await all({ stream: "race" })).toHaveLength(1);
    });
  });
}
