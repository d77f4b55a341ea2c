/**
 * `app.settled`: waits for the reaction streams one causal chain reacts
 * into, follows the chain through the actions its reactions take, and
 * leaves every other stream of the store out of it.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  act,
  type Committed,
  NotSettledError,
  sleep,
  state,
  store,
  ValidationError,
  ZodEmpty,
} from "../../src/index.js";
import { actor, freshStore } from "../fixtures.js";

beforeEach(async () => {
  await freshStore();
});

const Order = state("Order", z.object({ items: z.array(z.string()) }))
  .init(() => ({ items: [] }))
  .emits({
    Placed: z.object({ item: z.string() }),
    Packed: z.object({ item: z.string() }),
    Noted: ZodEmpty,
  })
  .patch({
    Placed: (event, s) => ({ items: [...s.items, event.data.item] }),
    Packed: (event, s) => ({ items: s.items.filter((i) => i !== event.data.item) }),
    Noted: () => ({}),
  })
  .on("place", z.object({ item: z.string() }))
  .emit(({ item }) => ["Placed", { item }])
  .on("placeAll", z.object({ items: z.array(z.string()) }))
  .emit(({ items }) => items.map((item) => ["Placed", { item }] as const))
  .on("pack", z.object({ item: z.string() }))
  .emit(({ item }) => ["Packed", { item }])
  .on("note", ZodEmpty)
  .emit(() => ["Noted", {}])
  .build();

type Placed = Committed<{ Placed: { item: string } }, "Placed">;
type Packed = Committed<{ Packed: { item: string } }, "Packed">;

/**
 * Two hops: a placed order is packed by an action on its packing stream (a
 * reaction), and a packed one is shipped (another reaction, slow, on the
 * shipping stream). A note fails on every attempt, with a long backoff.
 */
function shop(options: { shipping?: (event: Packed) => Promise<void>; shippingRetries?: number } = {}) {
  const shipped: string[] = [];
  const app = act()
    .with(Order)
    .on("Placed")
    .do(async (event: Placed, _stream, app) => {
      await app.do("pack", { stream: `packing-${event.stream}`, actor }, { item: event.data.item }, event as never);
    })
    .to((event) => ({ target: `packing-${event.stream}` }))
    .on("Packed")
    .do(
      async (event: Packed) => {
        await (options.shipping ?? (() => sleep(30)))(event);
        shipped.push(event.data.item);
      },
      { maxRetries: options.shippingRetries ?? 3, retryBaseMillis: 10 }
    )
    .to("shipping")
    .on("Noted")
    .do(
      async () => {
        throw new Error("the printer is out of paper");
      },
      { maxRetries: 3, retryBaseMillis: 60_000 }
    )
    .to("notes")
    .build();
  return { app, shipped };
}

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

describe("settled", () => {
  it("is not held up by other streams: a backlog, a retry's backoff, a blocked stream, a removed reaction's stream", async () => {
    const { app, shipped } = shop();
    // A stream waiting out a 60-second backoff after its first failure…
    await app.do("note", { stream: "order-0", actor }, {});
    await app.drain();
    expect((await store().reactions({ streams: ["notes"] }))[0]).toMatchObject({ retry: 1, blocked: false });
    // …a stream only a removed reaction targets (no app here leases it), with work…
    const [old] = await store().commit({
      stream: "legacy",
      messages: [{ name: "Gone", data: {} }],
      meta: { correlation: "old", causation: {} },
    });
    await store().lease([{ stream: "retired", by: "old", at: -1, retry: 0, head: old.id, reactions: ["Gone/x"] }], 0);
    // …and a blocked one.
    await store().lease([{ stream: "jammed", by: "old", at: -1, retry: 0, head: old.id }], 0);
    const [jammed] = await store().lease([{ stream: "jammed", by: "old", at: -1, retry: 0 }], 10_000);
    await store().block([{ ...jammed, error: "stuck" }]);

    app.start({ pollMillis: 5_000 });
    stop = () => app.stop();
    const snapshots = await app.do("place", { stream: "order-1", actor }, { item: "lamp" });
    await app.settled(snapshots, { timeoutMillis: 10_000 });
    expect(shipped).toEqual(["lamp"]);
    // The other streams are where they were.
    const others = await store().reactions({ streams: ["notes", "retired", "jammed"] });
    expect(others.map(({ stream, at, blocked }) => ({ stream, at, blocked }))).toEqual([
      { stream: "jammed", at: -1, blocked: true },
      { stream: "notes", at: expect.any(Number), blocked: false },
      { stream: "retired", at: -1, blocked: false },
    ]);
    expect(others[1].at).toBeLessThan(others[1].head);
  });

  it("follows the chain through a reaction's action to the reaction after it, with a correlation id too", async () => {
    const { app, shipped } = shop({ shipping: () => sleep(100) });
    app.start({ pollMillis: 5_000 });
    stop = () => app.stop();
    const [placed] = await app.do("place", { stream: "order-1", actor }, { item: "desk" });
    await app.settled([placed], { timeoutMillis: 10_000 });
    // The second hop ran before the wait ended.
    expect(shipped).toEqual(["desk"]);
    const chain = await app.queryArray({ correlation: placed.event!.meta.correlation });
    expect(chain.map((e) => e.name)).toEqual(["Placed", "Packed"]);

    const [again] = await app.do("place", { stream: "order-2", actor }, { item: "chair" });
    await app.settled(again.event!.meta.correlation, { timeoutMillis: 10_000 });
    expect(shipped).toEqual(["desk", "chair"]);
  });

  it("reports a blocked stream of the chain at once, with its error and what it has left", async () => {
    // The second hop's reaction blocks its stream at its first failure.
    const { app: blocking } = shop({
      shipping: async () => {
        throw new Error("no courier");
      },
      shippingRetries: 0,
    });
    blocking.start({ pollMillis: 5_000 });
    stop = () => blocking.stop();
    const snapshots = await blocking.do("place", { stream: "order-1", actor }, { item: "sofa" });
    const error = await blocking.settled(snapshots, { timeoutMillis: 20_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotSettledError);
    const { reason, pending, correlations, message } = error as NotSettledError;
    expect(reason).toBe("blocked");
    expect(correlations).toEqual([snapshots[0].event!.meta.correlation]);
    const [packed] = await blocking.queryArray({ names: ["Packed"] });
    expect(pending).toEqual([
      {
        stream: "shipping",
        at: packed.id - 1,
        until: packed.id,
        behind: 1,
        retry: expect.any(Number),
        blocked: true,
        error: expect.stringContaining("no courier"),
      },
    ]);
    expect(message).toMatch(/"shipping" at #\d+, 1 event of the chain to handle \(up to #\d+\), blocked: .*no courier/);
  });

  it("gives up after its timeout naming each stream still behind and by how much", async () => {
    const { app } = shop();
    const snapshots = await app.do("placeAll", { stream: "order-1", actor }, { items: ["rug", "mat"] });
    const [first, second] = snapshots.map((s) => s.event!.id);
    // No one drains: the stream is not even registered.
    const unknown = await app.settled(snapshots, { timeoutMillis: 50 }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(NotSettledError);
    expect((unknown as NotSettledError).reason).toBe("pending");
    expect((unknown as Error).message).toContain(
      `did not settle within 50 ms: "packing-order-1" not registered by any drain yet, 2 events of the chain to handle (up to #${second}); is a consumer running`
    );
    // Registered by a correlation pass, still not handled.
    await app.correlate();
    const behind = await app.settled(snapshots, { timeoutMillis: 0 }).catch((e: unknown) => e);
    expect((behind as NotSettledError).pending).toEqual([
      { stream: "packing-order-1", at: first - 1, until: second, behind: 2, retry: 0, blocked: false },
    ]);
    expect((behind as Error).message).toContain(`"packing-order-1" at #${first - 1}, 2 events of the chain to handle`);
    // Waiting out a retry's backoff is named as such.
    const { app: noting } = shop();
    const [note] = await noting.do("note", { stream: "order-2", actor }, {});
    await noting.drain();
    const retrying = await noting.settled([note], { timeoutMillis: 0 }).catch((e: unknown) => e);
    expect((retrying as Error).message).toMatch(
      /"notes" at #-?\d+, 1 event of the chain to handle .*retrying after 1 failed attempt/
    );
  });

  it("returns at once when nothing reacts to the chain: no reaction, a reaction's since, a resolver returning undefined", async () => {
    const app = act()
      .with(Order)
      .on("Placed")
      .do(async () => {}, { since: new Date(Date.now() + 3_600_000) })
      .to("later")
      .on("Packed")
      .do(async () => {})
      .to(() => undefined)
      .build();
    // No consumer runs; a timeout of 0 fails on the first look at anything pending.
    for (const action of ["place", "pack"] as const) {
      const snapshots = await app.do(action, { stream: "order-1", actor }, { item: "vase" });
      await expect(app.settled(snapshots, { timeoutMillis: 0 })).resolves.toBeUndefined();
    }
    const snapshots = await app.do("note", { stream: "order-1", actor }, {});
    await expect(app.settled(snapshots, { timeoutMillis: 0 })).resolves.toBeUndefined();
    // A stream with no events yet returns a snapshot without an event: no chain.
    await expect(app.settled([await app.load(Order, "empty")], { timeoutMillis: 0 })).resolves.toBeUndefined();
  });

  it("refuses a bad correlation id, chain or timeout with a ValidationError naming it", async () => {
    const { app } = shop();
    await expect(app.settled("")).rejects.toThrow(ValidationError);
    await expect(app.settled("")).rejects.toThrow(/correlation/);
    await expect(app.settled({} as never)).rejects.toThrow(/settled chain: must be the snapshots/);
    await expect(app.settled("c-1", { timeoutMillis: -1 })).rejects.toThrow(/settled options: timeoutMillis/);
    await expect(app.settled("c-1", { timeoutMillis: Number.NaN })).rejects.toThrow(ValidationError);
  });

  it("reads only the watermarks of the chain's streams", async () => {
    const { app } = shop();
    app.start({ pollMillis: 5_000 });
    stop = () => app.stop();
    const log = store();
    const asked: unknown[] = [];
    const reactions = log.reactions.bind(log);
    log.reactions = (filter) => {
      asked.push(filter);
      return reactions(filter);
    };
    try {
      const snapshots = await app.do("place", { stream: "order-1", actor }, { item: "clock" });
      await app.settled(snapshots, { timeoutMillis: 10_000 });
    } finally {
      log.reactions = reactions;
    }
    // Draining lists no streams: every listing was a look of the wait, naming only the chain's streams.
    expect(asked.length).toBeGreaterThan(0);
    const named = new Set((asked as Array<{ streams?: string[] }>).flatMap((filter) => filter?.streams ?? ["(all)"]));
    expect([...named].sort()).toEqual(["packing-order-1", "shipping"]);
  });
});
