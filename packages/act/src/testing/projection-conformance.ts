import type { Store } from "../types/ports.js";
import type { Lease } from "../types/reaction.js";
import type { ReadModelProbe } from "./read-model-probe.js";
import type { TestApi } from "./test-api.js";

/**
 * The conformance tests of `Store.project`, registered by `storeConformance`
 * inside its own group (its `beforeEach` gives each test a seeded, empty
 * store). Skipped for a store without `project`. With a probe, they also
 * check the read model's side: the writes commit with the position, or not
 * at all.
 */
export function projectConformance(store: () => Store, test: TestApi, probe?: ReadModelProbe): void {
  const { describe, expect, it, beforeEach } = test;
  describe("project (a projection's writes and position in one transaction)", () => {
    /** A transaction that always rolls back: its acknowledgement is refused, as no one holds this stream. */
    const nobody: Lease = { stream: "no-such-projection", by: "nobody", at: 0, retry: 0, token: -1 };
    const committed = async (key: string) => {
      let found = false;
      await store().project!(nobody, (tx) => {
        const result = probe!.read(tx, key);
        if (typeof result === "boolean") found = result;
        else
          return result.then((f) => {
            found = f;
          });
      });
      return found;
    };
    const write = (key: string) => (tx: unknown) => probe?.write(tx, key);

    /** A projection stream with work up to the store's first event, leased by "d". */
    async function leased(): Promise<{ lease: Lease; head: number }> {
      const [e] = await store().commit("s", [{ name: "A", data: {} }], { correlation: "c", causation: {} });
      await store().lease([{ stream: "p", by: "d", at: -1, retry: 0, head: e.id }], 0);
      const [lease] = await store().lease([{ stream: "p", by: "d", at: -1, retry: 0 }], 10_000);
      return { lease, head: e.id };
    }
    const position = async () => (await store().reactions()).find((r) => r.stream === "p")!;

    beforeEach(async () => {
      if (!store().project || !probe) return;
      const { lease } = await leased();
      expect(await store().project!(lease, (tx) => probe.reset(tx))).toBe(true);
      await store().drop();
      await store().seed();
    });

    it("moves the position and commits the writes together, releasing the lease", async ({ skip }) => {
      if (!store().project) return skip();
      const { lease, head } = await leased();
      let handle: unknown = "not called";
      const moved = await store().project!({ ...lease, at: head }, (tx) => {
        handle = tx;
        return write("a")(tx);
      });
      expect(moved).toBe(true);
      expect(handle).not.toBe("not called");
      expect(await position()).toMatchObject({ at: head, retry: 0, blocked: false });
      expect((await position()).leasedBy).toBeUndefined();
      if (probe) expect(await committed("a")).toBe(true);
    });

    it("rolls both back when the work throws, and rethrows its error as it is", async ({ skip }) => {
      if (!store().project) return skip();
      const { lease, head } = await leased();
      const failure = new Error("handler failed");
      await expect(
        store().project!({ ...lease, at: head }, (tx) => {
          write("b")(tx);
          throw failure;
        })
      ).rejects.toBe(failure);
      expect(await position()).toMatchObject({ at: -1, leasedBy: "d" }); // untouched, still leased
      if (probe) expect(await committed("b")).toBe(false);
      // The lease is still good: the retry can record its progress.
      expect(await store().project!({ ...lease, at: head }, write("b"))).toBe(true);
      if (probe) expect(await committed("b")).toBe(true);
    });

    it("rolls the writes back when the lease is no longer the caller's (reset, or another drainer)", async ({
      skip,
    }) => {
      if (!store().project) return skip();
      const { lease, head } = await leased();
      await store().reset(["p"]);
      expect(await store().project!({ ...lease, at: head }, write("c"))).toBe(false);
      expect((await position()).at).toBe(-1);
      if (probe) expect(await committed("c")).toBe(false);
      // The overtaken holder gives the stream back (its refused ack does), and another drainer takes it.
      expect(await store().ack([lease])).toEqual([]);
      const [other] = await store().lease([{ stream: "p", by: "d2", at: -1, retry: 0 }], 10_000);
      expect(other?.by).toBe("d2");
      expect(await store().project!({ ...lease, at: head }, write("c"))).toBe(false);
      expect(await store().project!({ ...other, at: head }, write("c"))).toBe(true);
      if (probe) expect(await committed("c")).toBe(true);
    });
  });
}
