import type { Store } from "../types/ports.js";
import type { Lease } from "../types/lease.js";
import type { TestApi } from "./test-api.js";

/** A registration (0 ms lease) of `stream` for `reactions`, each joining at `at` unless given. */
const register = (
  stream: string,
  head: number,
  at: number,
  joining: Array<{ names: string[]; at: number }>
): Lease => ({
  stream,
  by: "correlation",
  at,
  retry: 0,
  head,
  reactions: joining.map(({ names }) => names[0]),
  joining,
});

/**
 * The part of the store conformance suite about reactions that join a
 * stream late: a reaction registered on a stream whose watermark is already
 * past its first event — an older release, or the stream's other reactions,
 * moved it on first — takes the watermark back there, under a new token,
 * and the reactions already on the stream are recorded as `ahead` so they
 * do not run twice. Registered by {@link storeConformance}.
 *
 * @param store - the store under test (seeded and empty before each test)
 * @param test - the test runner's functions
 */
export function joiningConformance(store: () => Store, test: TestApi): void {
  const { describe, expect, it } = test;
  describe("reactions that join a stream late", () => {
    /** Stream "r" carrying reaction A, handled by A up to the third of five events. */
    async function handledByA() {
      const events = await store().commit({
        stream: "s",
        messages: Array.from({ length: 5 }, () => ({ name: "E", data: {} })),
        meta: { correlation: "c", causation: {} },
      });
      const ids = events.map((e) => e.id);
      await store().lease([register("r", ids[4], ids[0] - 1, [{ names: ["E/A"], at: ids[0] - 1 }])], 0);
      const [granted] = await store().lease([{ stream: "r", by: "d", at: ids[0] - 1, retry: 0 }], 10_000);
      expect(await store().ack([{ ...granted, at: ids[2], reactions: ["E/A"] }])).toHaveLength(1);
      return ids;
    }

    it("moves the watermark back to a new reaction's first event, with the others ahead", async () => {
      const ids = await handledByA();
      const [before] = await store().reactions({ streams: ["r"] });
      await store().lease([register("r", ids[4], ids[1] - 1, [{ names: ["E/X"], at: ids[1] - 1 }])], 0);
      const [after] = await store().reactions({ streams: ["r"] });
      expect(after).toMatchObject({ at: ids[1] - 1, head: ids[4], reactions: ["E/A", "E/X"] });
      expect(after.token).toBeGreaterThan(before.token);
      const [granted] = await store().lease([{ stream: "r", by: "d", at: ids[1] - 1, retry: 0 }], 10_000);
      expect(granted).toMatchObject({ at: ids[1] - 1, ahead: { "E/A": ids[2] } });
      // Handled up to the fourth event: A is no longer ahead of the watermark there.
      expect(await store().ack([{ ...granted, at: ids[3], reactions: ["E/A", "E/X"] }])).toHaveLength(1);
      const [again] = await store().lease([{ stream: "r", by: "d", at: ids[3], retry: 0 }], 10_000);
      expect(again.ahead ?? {}).toEqual({});
    });

    it("refuses the acknowledgement of a lease granted before the watermark moved back", async () => {
      const ids = await handledByA();
      const [held] = await store().lease([{ stream: "r", by: "d", at: ids[2], retry: 0 }], 10_000);
      await store().lease([register("r", ids[4], ids[0] - 1, [{ names: ["E/X"], at: ids[0] - 1 }])], 0);
      // The holder handled A up to the end: recording it would skip X's events.
      expect(await store().ack([{ ...held, at: ids[4], reactions: ["E/A", "E/X"] }])).toEqual([]);
      expect(await store().lease([held], 10_000)).toEqual([]); // nor may it renew
      const [stream] = await store().reactions({ streams: ["r"] });
      expect(stream.at).toBe(ids[0] - 1);
    });

    it("grants a lease at the stored watermark when it moved back after the poll", async () => {
      const ids = await handledByA();
      const [polled] = await store().poll({ lagging: 1, leading: 0 });
      expect(polled.at).toBe(ids[2]);
      await store().lease([register("r", ids[4], ids[1] - 1, [{ names: ["E/X"], at: ids[1] - 1 }])], 0);
      const [granted] = await store().lease([{ stream: "r", by: "d", at: polled.at, retry: 0 }], 10_000);
      expect(granted.at).toBe(ids[1] - 1);
    });

    it("leaves the watermark for a reaction the stream carries under a name it had before", async () => {
      const ids = await handledByA();
      await store().lease([register("r", ids[4], ids[0] - 1, [{ names: ["E/renamed", "E/A"], at: ids[0] - 1 }])], 0);
      const [stream] = await store().reactions({ streams: ["r"] });
      expect(stream).toMatchObject({ at: ids[2], reactions: ["E/A", "E/renamed"] });
    });

    it("leaves the watermark for a reaction whose events start after it, or on a stream without reaction names", async () => {
      const ids = await handledByA();
      const [before] = await store().reactions({ streams: ["r"] });
      // Its first event right after the watermark, and one further on: nothing to go back for, nor forward.
      await store().lease([register("r", ids[4], ids[3] - 1, [{ names: ["E/X"], at: ids[3] - 1 }])], 0);
      await store().lease([register("r", ids[4], ids[4] - 1, [{ names: ["E/Y"], at: ids[4] - 1 }])], 0);
      const [after] = await store().reactions({ streams: ["r"] });
      expect(after).toMatchObject({ at: ids[2], token: before.token, reactions: ["E/A", "E/X", "E/Y"] });
      // Registered without names (as stores did before they recorded them): nothing to compare with.
      await store().lease([{ stream: "old", by: "d", at: ids[2], retry: 0, head: ids[4] }], 0);
      await store().lease([register("old", ids[4], ids[0] - 1, [{ names: ["E/X"], at: ids[0] - 1 }])], 0);
      expect((await store().reactions({ streams: ["old"] }))[0].at).toBe(ids[2]);
    });

    it("keeps the furthest point a reaction reached when the stream moves back twice", async () => {
      const ids = await handledByA();
      await store().lease([register("r", ids[4], ids[1] - 1, [{ names: ["E/X"], at: ids[1] - 1 }])], 0);
      await store().lease([register("r", ids[4], ids[0] - 1, [{ names: ["E/Y"], at: ids[0] - 1 }])], 0);
      const [granted] = await store().lease([{ stream: "r", by: "d", at: ids[0] - 1, retry: 0 }], 10_000);
      expect(granted).toMatchObject({ at: ids[0] - 1, ahead: { "E/A": ids[2], "E/X": ids[1] - 1 } });
    });

    it("keeps the progress of a holder that lacks a reaction the stream gained while it held the lease", async () => {
      const ids = await handledByA();
      // Release N holds the stream; release N+1 registers X on it, at a point the watermark has not passed.
      const [held] = await store().lease([{ stream: "r", by: "old", at: ids[2], retry: 0 }], 10_000);
      await store().lease([register("r", ids[4], ids[3] - 1, [{ names: ["E/X"], at: ids[3] - 1 }])], 0);
      // It ran A up to the fourth event and one reaction of the fifth (its `done`): that is not
      // acknowledged (X has not run), but A's progress is kept — and only for reactions the stream carries.
      const done = [`${ids[4]}:A`];
      expect(await store().ack([{ ...held, at: ids[3], done, reactions: ["E/A", "E/other"] }])).toEqual([]);
      const [stream] = await store().reactions({ streams: ["r"] });
      expect(stream).toMatchObject({ at: ids[2], blocked: false });
      expect(stream.leasedBy).toBeUndefined(); // given back at once
      const [granted] = await store().lease([{ stream: "r", by: "new", at: ids[2], retry: 0 }], 10_000);
      expect(granted).toMatchObject({ at: ids[2], ahead: { "E/A": ids[3] }, done });
      // A block from such a holder does not block the stream either.
      await store().lease([register("r", ids[4], ids[3] - 1, [{ names: ["E/Y"], at: ids[3] - 1 }])], 0);
      const [again] = await store().lease([{ stream: "r", by: "new", at: ids[2], retry: 0 }], 10_000);
      expect(await store().block([{ ...again, at: ids[2], error: "failed", reactions: ["E/A", "E/X"] }])).toEqual([]);
      expect((await store().reactions({ streams: ["r"] }))[0]).toMatchObject({ at: ids[2], blocked: false });
    });

    it("records nothing ahead for a holder that lacks a reaction the stream gained and made no progress", async () => {
      const ids = await handledByA();
      const [held] = await store().lease([{ stream: "r", by: "old", at: ids[2], retry: 0 }], 10_000);
      await store().lease([register("r", ids[4], ids[3] - 1, [{ names: ["E/X"], at: ids[3] - 1 }])], 0);
      expect(await store().ack([{ ...held, at: ids[2], reactions: ["E/A"] }])).toEqual([]);
      const [granted] = await store().lease([{ stream: "r", by: "new", at: ids[2], retry: 0 }], 10_000);
      expect(granted.ahead ?? {}).toEqual({});
    });

    it("forgets what was ahead when the stream is reset", async () => {
      const ids = await handledByA();
      await store().lease([register("r", ids[4], ids[1] - 1, [{ names: ["E/X"], at: ids[1] - 1 }])], 0);
      await store().reset(["r"]);
      const [granted] = await store().lease([{ stream: "r", by: "d", at: -1, retry: 0 }], 10_000);
      expect(granted.ahead ?? {}).toEqual({});
    });
  });
}
