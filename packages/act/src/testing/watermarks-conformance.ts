import type { EventMeta } from "../core/schemas.js";
import type { Store } from "../types/ports.js";
import type { Lease } from "../types/lease.js";
import type { TestApi } from "./test-api.js";

const meta = (correlation = "c-1"): EventMeta => ({ correlation, causation: {} });
const msg = (name: string, data: Record<string, unknown> = {}) => ({ name, data });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The part of the store conformance suite about reaction bookkeeping:
 * `poll` and its filter by reactions, `lease` with its tokens and renewals,
 * `ack`, `block`, `reactions` and its filters, `unblock`, `reset` and
 * `retire`. Registered by {@link storeConformance}.
 *
 * @param store - the store under test (seeded and empty before each test)
 * @param test - the test runner's functions
 */
export function watermarksConformance(store: () => Store, test: TestApi): void {
  const { describe, expect, it } = test;
  describe("reaction watermarks", () => {
    const lease = (stream: string, by: string, at: number, source?: string, head?: number): Lease => ({
      stream,
      source,
      by,
      at,
      retry: 0,
      ...(head !== undefined && { head }),
    });

    it("registers streams with a 0 ms lease, idempotently, and polls those with work after their watermark", async () => {
      const [e] = await store().commit({ stream: "s", messages: [msg("A")], meta: meta() });
      const registered = await store().lease(
        [lease("r1", "d", -1, "s", e.id), lease("r2", "d", e.id, undefined, e.id)],
        0
      );
      expect(registered.map((l) => l.stream).sort()).toEqual(["r1", "r2"]);
      await store().lease([lease("r1", "d", 99, "s", e.id)], 0); // does not move an existing watermark
      const polled = await store().poll({ lagging: 10, leading: 10 });
      expect(polled).toEqual([{ stream: "r1", source: "s", at: -1, lagging: true }]);
      await store().lease([lease("r2", "d", -1, undefined, e.id - 1)], 0); // nor its head backwards
      expect((await store().poll({ lagging: 10, leading: 10 })).map((p) => p.stream)).toEqual(["r1"]);
    });

    it("splits poll results between the most lagging and the most leading", async () => {
      const events = await store().commit({
        stream: "s",
        messages: [msg("A"), msg("A"), msg("A"), msg("A"), msg("A")],
        meta: meta(),
      });
      await store().lease(
        events.map((e, i) => lease(`r${i}`, "d", e.id - 1, undefined, e.id)),
        0
      );
      const polled = await store().poll({ lagging: 2, leading: 1 });
      expect(polled.map((p) => [p.stream, p.lagging])).toEqual([
        ["r0", true],
        ["r1", true],
        ["r4", false],
      ]);
      const many = await store().poll({ lagging: 10, leading: 10 });
      expect(many).toHaveLength(5);
    });

    it("grants a lease with the stream's stored head, so a drain reads no further than its work", async () => {
      const [a, b, c] = await store().commit({ stream: "s", messages: [msg("A"), msg("A"), msg("A")], meta: meta() });
      await store().lease([lease("r", "d", -1, undefined, b.id)], 0);
      await store().lease([lease("r", "d", -1, undefined, a.id)], 0); // a lower head does not lower it
      const [granted] = await store().lease([lease("r", "d", -1)], 10_000);
      expect(granted.head).toBe(b.id);
      await store().lease([lease("r", "d", -1, undefined, c.id)], 0); // correlation found more work
      const [renewed] = await store().lease([granted], 10_000);
      expect(renewed.head).toBe(c.id);
      // A stream the lease itself registers has no work found yet: its head is its watermark.
      const [fresh] = await store().lease([lease("new", "d", a.id)], 10_000);
      expect(fresh.head).toBe(a.id);
      // …and it is leased like any other: no one else takes it meanwhile.
      expect(await store().lease([lease("new", "d2", a.id)], 10_000)).toEqual([]);
      expect((await store().reactions({ streams: ["new"] }))[0].leasedUntil!.getTime()).toBeGreaterThan(Date.now());
    });

    it("grants a lease with the reactions the stream carries, so a drain knows which events can react into it", async () => {
      await store().commit({ stream: "s", messages: [msg("A")], meta: meta() });
      await store().lease([{ ...lease("r", "d", -1), reactions: ["A/one"] }], 0);
      await store().lease([{ ...lease("r", "d", -1), reactions: ["B/two", "A/one"] }], 0);
      const [granted] = await store().lease([lease("r", "d", -1)], 10_000);
      expect([...(granted.reactions ?? [])].sort()).toEqual(["A/one", "B/two"]);
      // A stream the lease itself registers carries none yet.
      const [fresh] = await store().lease([lease("bare", "d", -1)], 10_000);
      expect(fresh.reactions).toEqual([]);
    });

    it("leases exclusively until the lease expires, renews for the holder, and skips leased streams when polling", async () => {
      const [e] = await store().commit({ stream: "s", messages: [msg("A")], meta: meta() });
      await store().lease([lease("r", "d1", -1, "s", e.id)], 0);
      const [first] = await store().lease([lease("r", "d1", -1, "s")], 400);
      expect(first.token).toEqual(expect.any(Number));
      expect(await store().lease([lease("r", "d2", -1, "s")], 400)).toEqual([]);
      expect(await store().poll({ lagging: 10, leading: 10 })).toEqual([]);
      await sleep(240);
      expect(await store().lease([first], 400)).toEqual([expect.objectContaining({ token: first.token })]); // renewed
      await sleep(240);
      expect(await store().poll({ lagging: 10, leading: 10 })).toEqual([]); // the renewal still holds
      await sleep(300);
      expect(await store().poll({ lagging: 10, leading: 10 })).toHaveLength(1);
      const [taken] = await store().lease([lease("r", "d2", -1, "s")], 200);
      expect(taken.by).toBe("d2");
      expect(taken.token).not.toBe(first.token);
      expect(await store().lease([first], 400)).toEqual([]); // d1 lost it: no renewal…
      expect(await store().ack([{ ...first, at: e.id }])).toEqual([]); // …and no ack
      expect(await store().ack([{ ...taken, at: e.id }])).toHaveLength(1);
    });

    it("renews a lease that ran out as long as no one took the stream since", async () => {
      const [e] = await store().commit({ stream: "s", messages: [msg("A")], meta: meta() });
      await store().lease([lease("r", "d1", -1, "s", e.id)], 0);
      const [granted] = await store().lease([lease("r", "d1", -1, "s")], 100);
      await sleep(150);
      expect(await store().lease([granted], 10_000)).toEqual([expect.objectContaining({ token: granted.token })]);
      expect(await store().lease([lease("r", "d2", -1, "s")], 10_000)).toEqual([]);
      expect(await store().ack([{ ...granted, at: e.id }])).toHaveLength(1);
    });

    it("refuses renewals, acks and blocks that started before a reset or an unblock", async () => {
      const [a, b] = await store().commit({ stream: "s", messages: [msg("A"), msg("B")], meta: meta() });
      await store().lease([lease("r", "d", -1, "s", b.id)], 0);
      const [before] = await store().lease([lease("r", "d", -1, "s")], 10_000);
      expect(await store().reset(["r"])).toEqual(["r"]);
      expect(await store().lease([before], 10_000)).toEqual([]); // the drain in flight cannot renew it…
      expect((await store().reactions())[0]).toMatchObject({ at: -1, blocked: false });
      // …and while its handler may still run, no other drainer starts one beside it…
      expect(await store().poll({ lagging: 10, leading: 10 })).toEqual([]);
      expect(await store().lease([lease("r", "d2", -1, "s")], 10_000)).toEqual([]);
      // …nor can it record its old position; its refused call, made once its
      // handlers are done, gives the stream back at once.
      expect(await store().ack([{ ...before, at: b.id }])).toEqual([]);
      expect(await store().block([{ ...before, at: a.id, error: "late" }])).toEqual([]);
      expect((await store().poll({ lagging: 10, leading: 10 })).map((p) => [p.stream, p.at])).toEqual([["r", -1]]);
      // A refused block alone gives the stream back too.
      const [held] = await store().lease([lease("r", "d3", -1, "s")], 10_000);
      expect(await store().reset(["r"])).toEqual(["r"]);
      expect(await store().poll({ lagging: 10, leading: 10 })).toEqual([]);
      expect(await store().block([{ ...held, at: a.id, error: "late" }])).toEqual([]);
      expect((await store().poll({ lagging: 10, leading: 10 })).map((p) => [p.stream, p.at])).toEqual([["r", -1]]);

      const [next] = await store().lease([lease("r", "d2", -1, "s")], 10_000);
      expect(next.token).not.toBe(before.token);
      await store().block([{ ...next, at: a.id, retry: 4, error: "boom" }]);
      expect(await store().unblock(["r"])).toEqual(["r"]);
      expect(await store().ack([{ ...next, at: b.id }])).toEqual([]); // unblocked since: refused
      const [row] = await store().reactions();
      expect(row).toMatchObject({ at: a.id, blocked: false });
      expect(row.token).toBeGreaterThan(next.token!);
    });

    it("has no work for a stream reset to the end of the log", async () => {
      const [, b] = await store().commit({ stream: "s", messages: [msg("A"), msg("B")], meta: meta() });
      await store().lease([lease("r", "d", -1, "s", b.id)], 0);
      expect(await store().reset(["r"], b.id)).toEqual(["r"]);
      expect(await store().poll({ lagging: 10, leading: 10 })).toEqual([]);
      const [c] = await store().commit({ stream: "s", messages: [msg("C")], meta: meta() });
      await store().lease([lease("r", "d", b.id, "s", c.id)], 0);
      expect((await store().poll({ lagging: 10, leading: 10 })).map((p) => [p.stream, p.at])).toEqual([["r", b.id]]);
    });

    it("records the reactions that target a stream and offers it only to pollers that have them all", async () => {
      const [e] = await store().commit({ stream: "s", messages: [msg("A")], meta: meta() });
      await store().lease([{ ...lease("r", "d", -1, "s", e.id), reactions: ["A/old#1"] }], 0);
      await store().lease([{ ...lease("r", "d", -1, "s", e.id), reactions: ["A/new#2", "A/old#1"] }], 0);
      await store().lease([lease("q", "d", -1, "s", e.id)], 0); // no reactions recorded: anyone's
      const [q, r] = await store().reactions();
      expect(r).toMatchObject({ stream: "r", head: e.id, reactions: ["A/new#2", "A/old#1"] });
      expect(q).toMatchObject({ stream: "q", reactions: [] });
      const streams = async (reactions?: string[]) =>
        (await store().poll({ lagging: 10, leading: 10, reactions })).map((p) => p.stream).sort();
      expect(await streams(["A/old#1"])).toEqual(["q"]); // lacks A/new#2
      expect(await streams(["A/new#2", "A/old#1", "B/other#1"])).toEqual(["q", "r"]);
      expect(await streams([])).toEqual(["q"]);
      expect(await streams()).toEqual(["q", "r"]); // no filter
    });

    it("retires reactions no release has any more, so streams that carried them are offered again", async () => {
      const [e] = await store().commit({ stream: "s", messages: [msg("A")], meta: meta() });
      await store().lease([{ ...lease("r", "d", -1, "s", e.id), reactions: ["A/gone#1", "A/kept#2"] }], 0);
      await store().lease([{ ...lease("q", "d", -1, "s", e.id), reactions: ["A/kept#2"] }], 0);
      expect(await store().poll({ lagging: 10, leading: 10, reactions: ["A/kept#2"] })).toHaveLength(1);
      expect(await store().retire(["A/gone#1", "A/unknown#9"])).toEqual(["r"]);
      expect((await store().reactions()).map((x) => [x.stream, x.reactions])).toEqual([
        ["q", ["A/kept#2"]],
        ["r", ["A/kept#2"]],
      ]);
      expect(
        (await store().poll({ lagging: 10, leading: 10, reactions: ["A/kept#2"] })).map((p) => p.stream).sort()
      ).toEqual(["q", "r"]);
      expect(await store().retire(["A/gone#1"])).toEqual([]);
    });

    it("refuses an ack or a block from a holder that lacks a reaction the stream gained since its lease", async () => {
      const [e] = await store().commit({ stream: "s", messages: [msg("A")], meta: meta() });
      await store().lease([{ ...lease("r", "d", -1, "s", e.id), reactions: ["A/old#1"] }], 0);
      const [granted] = await store().lease([lease("r", "d", -1, "s")], 10_000);
      await store().lease([{ ...lease("r", "d2", -1, "s", e.id), reactions: ["A/new#2"] }], 0); // a newer release
      expect(await store().block([{ ...granted, error: "x", reactions: ["A/old#1"] }])).toEqual([]);
      expect((await store().reactions())[0]).toMatchObject({ at: -1, blocked: false });
      // Refused, the holder gave the stream back: one with every reaction takes it at once.
      const [next] = await store().lease([lease("r", "d2", -1, "s")], 10_000);
      expect(await store().ack([{ ...next, at: e.id, reactions: ["A/old#1"] }])).toEqual([]);
      expect((await store().reactions())[0]).toMatchObject({ at: -1, blocked: false });
      const [last] = await store().lease([lease("r", "d2", -1, "s")], 10_000);
      expect(await store().ack([{ ...last, at: e.id, reactions: ["A/new#2", "A/old#1"] }])).toHaveLength(1);
    });

    it("leases for longer than 24.8 days", async () => {
      const [e] = await store().commit({ stream: "s", messages: [msg("A")], meta: meta() });
      await store().lease([lease("r", "d", -1, "s", e.id)], 0);
      expect(await store().lease([lease("r", "d", -1, "s")], 30 * 24 * 3600 * 1000)).toHaveLength(1);
      const [r] = await store().reactions();
      expect(r.leasedBy).toBe("d");
      expect(r.leasedUntil!.getTime()).toBeGreaterThan(Date.now() + 29 * 24 * 3600 * 1000);
    });

    it("acks: moves the watermark, stores retry and done, releases the lease, and honours a retry delay", async () => {
      const [a, b] = await store().commit({ stream: "s", messages: [msg("A"), msg("B")], meta: meta() });
      await store().lease([lease("r", "d", -1, "s", b.id)], 0);
      const [granted] = await store().lease([lease("r", "d", -1, "s")], 10_000);
      const acked = await store().ack([{ ...granted, at: a.id, retry: 2, done: [`${b.id}:first#1`], delay: 150 }]);
      expect(acked).toHaveLength(1);
      expect(await store().poll({ lagging: 10, leading: 10 })).toEqual([]); // waiting out the delay
      expect(await store().lease([lease("r", "d2", a.id, "s")], 10_000)).toEqual([]);
      await sleep(200);
      expect(await store().poll({ lagging: 10, leading: 10 })).toEqual([
        { stream: "r", source: "s", at: a.id, lagging: true },
      ]);
      const [again] = await store().lease([lease("r", "d", a.id, "s")], 10_000);
      expect(again).toMatchObject({ retry: 2, done: [`${b.id}:first#1`] });
      await store().ack([{ ...again, at: b.id, retry: 0, done: [] }]);
      expect(await store().poll({ lagging: 10, leading: 10 })).toEqual([]);
      const [c] = await store().commit({ stream: "s", messages: [msg("C")], meta: meta() });
      await store().lease([lease("r", "d", b.id, "s", c.id)], 0);
      expect(await store().poll({ lagging: 10, leading: 10 })).toHaveLength(1);
      const [row] = await store().reactions();
      expect(row).toMatchObject({ stream: "r", at: b.id, retry: 0, blocked: false });
    });

    it("widens a stream named by two sources to every stream", async () => {
      await store().lease([lease("shared", "d", -1, "a", 0)], 0);
      await store().lease([lease("shared", "d", -1, "b", 0)], 0);
      expect((await store().poll({ lagging: 10, leading: 10 })).map((p) => [p.stream, p.source ?? null])).toEqual([
        ["shared", null],
      ]);
    });

    it("refuses a lease whose polled watermark has moved since", async () => {
      const [a, b] = await store().commit({ stream: "s", messages: [msg("A"), msg("B")], meta: meta() });
      await store().lease([lease("r", "d1", -1, "s", b.id)], 0);
      const [first] = await store().lease([lease("r", "d1", -1, "s")], 10_000);
      expect(await store().ack([{ ...first, at: a.id }])).toHaveLength(1);
      expect(await store().lease([lease("r", "d2", -1, "s")], 10_000)).toEqual([]); // stale poll
      const [second] = await store().lease([lease("r", "d2", a.id, "s")], 10_000);
      expect(await store().ack([{ ...second, at: b.id }])).toHaveLength(1);
    });

    it("blocks: keeps the progress before the failure; a blocked stream is neither polled nor leased; only the holder can block", async () => {
      const [a, b] = await store().commit({ stream: "s", messages: [msg("A"), msg("B")], meta: meta() });
      await store().lease([lease("r", "d", -1, "s", b.id)], 0);
      const [granted] = await store().lease([lease("r", "d", -1, "s")], 10_000);
      expect(await store().block([{ ...granted, by: "other", at: a.id, error: "x" }])).toEqual([]);
      expect(await store().block([{ ...granted, token: granted.token! + 1, at: a.id, error: "x" }])).toEqual([]);
      const blocked = await store().block([{ ...granted, at: a.id, retry: 4, done: [`${b.id}:x#1`], error: "boom" }]);
      expect(blocked).toEqual([expect.objectContaining({ stream: "r", error: "boom" })]);
      expect(await store().poll({ lagging: 10, leading: 10 })).toEqual([]);
      expect(await store().lease([lease("r", "d", a.id, "s")], 10_000)).toEqual([]);
      expect(await store().reactions({ blocked: true })).toEqual([
        expect.objectContaining({ stream: "r", at: a.id, retry: 4, blocked: true, error: "boom" }),
      ]);
    });

    it("unblocks a stream at its watermark with retries reset, and resets one to replay from the start", async () => {
      const [a, b] = await store().commit({ stream: "s", messages: [msg("A"), msg("B")], meta: meta() });
      await store().lease([lease("r", "d", -1, "s", b.id), lease("q", "d", -1, "s", b.id)], 0);
      const [granted] = await store().lease([lease("r", "d", -1, "s")], 10_000);
      await store().block([{ ...granted, at: a.id, retry: 4, error: "boom" }]);
      expect(await store().unblock(["r", "q", "missing"])).toEqual(["r"]);
      expect(await store().reactions({ blocked: true })).toEqual([]);
      const [r] = (await store().reactions()).filter((x) => x.stream === "r");
      expect(r).toMatchObject({ at: a.id, retry: 0, blocked: false });
      expect(r.error).toBeUndefined();
      expect((await store().poll({ lagging: 10, leading: 10 })).map((p) => [p.stream, p.at])).toEqual([
        ["q", -1],
        ["r", a.id],
      ]);

      const [again] = await store().lease([lease("r", "d", a.id, "s")], 10_000);
      await store().ack([{ ...again, at: b.id }]);
      expect(await store().reset(["r", "missing"])).toEqual(["r"]);
      expect((await store().reactions()).find((x) => x.stream === "r")).toMatchObject({ at: -1, retry: 0 });
      expect((await store().poll({ lagging: 10, leading: 10 })).map((p) => p.stream).sort()).toEqual(["q", "r"]);
      expect((await store().reactions({ limit: 1 })).map((x) => x.stream)).toEqual(["q"]);
    });

    it("lists only the named streams, by name, once each, with the other filters on top", async () => {
      const [a, b] = await store().commit({ stream: "s", messages: [msg("A"), msg("B")], meta: meta() });
      await store().lease(
        ["a-1", "b-2", "c-3", "d-4"].map((stream) => lease(stream, "d", -1, "s", b.id)),
        0
      );
      const [granted] = await store().lease([lease("c-3", "d", -1, "s")], 10_000);
      await store().block([{ ...granted, at: a.id, error: "boom" }]);
      const named = (filter: Parameters<Store["reactions"]>[0]) =>
        store()
          .reactions(filter)
          .then((rows) => rows.map((r) => r.stream));
      expect(await named({ streams: ["d-4", "c-3", "missing", "a-1", "d-4"] })).toEqual(["a-1", "c-3", "d-4"]);
      expect(await store().reactions({ streams: ["c-3"] })).toEqual([
        expect.objectContaining({ stream: "c-3", source: "s", at: a.id, head: b.id, blocked: true, error: "boom" }),
      ]);
      expect(await named({ streams: ["a-1", "c-3", "d-4"], blocked: true })).toEqual(["c-3"]);
      expect(await named({ streams: ["a-1", "c-3", "d-4"], blocked: false })).toEqual(["a-1", "d-4"]);
      expect(await named({ streams: ["d-4", "c-3", "a-1"], limit: 2 })).toEqual(["a-1", "c-3"]);
      expect(await named({ streams: [] })).toEqual([]);
      expect(await named({ streams: ["missing"] })).toEqual([]);
    });
  });

  // Edge inputs every store must treat alike: what one store refuses, all
  // refuse with the same ValidationError; what one keeps, all keep.
}
