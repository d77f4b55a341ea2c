/**
 * Discovery of reaction work shared through the store, against every store:
 * a restarted process finds an event committed after its start at once,
 * without reading the log; a reaction added in a new release backfills the
 * old events while the existing reactions' new work is handled in the same
 * first drain; and two processes racing discovery (restarting, mixing two
 * releases) register and run every reaction exactly once — a model-based
 * test with a fixed seed (`DISCOVERY_SEED`, `DISCOVERY_RUNS`, `DISCOVERY_PATH`
 * replay one; under CI a fresh seed runs too, see `seeds.ts`).
 */
import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { act, type Query, type Store, state, store } from "../../src/index.js";
import { announce, replayPath, seedLabel, seedRuns } from "../seeds.js";

const actor = { id: "u", name: "U" };

const Shop = state("Shop", z.object({ orders: z.number() }))
  .init(() => ({ orders: 0 }))
  .emits({ Placed: z.object({ sku: z.string() }), Noted: z.object({ text: z.string() }) })
  .patch({ Placed: (_, s) => ({ orders: s.orders + 1 }), Noted: () => ({}) })
  .on("place", z.object({ sku: z.string() }))
  .emit(({ sku }) => ["Placed", { sku }])
  .build();

/** What the reactions did: `"<reaction> <event id>"`, once per run. */
type Ran = string[];

/** Release 1 invoices every order on a stream of its own; release 2 also audits every order, on one stream. */
function release(version: 1 | 2, ran: Ran) {
  const first = act()
    .with(Shop)
    .on("Placed")
    .do(async function invoice(e) {
      ran.push(`invoice ${e.id}`);
    })
    .to((e) => ({ target: `invoice-${e.stream}` }));
  if (version === 1) return first.build();
  return first
    .on("Placed")
    .do(async function audit(e) {
      ran.push(`audit ${e.id}`);
    })
    .to("audit")
    .build();
}

/** The names of an app's reactions in the store. */
const namesOf = (app: { registry: { events: Record<string, { reactions: Map<string, unknown> }> } }) =>
  Object.entries(app.registry.events).flatMap(([event, { reactions }]) =>
    [...reactions.keys()].map((key) => `${event}/${key}`)
  );

/** Counts the events the store hands out while `work` runs (every read: correlation's and the drain's). */
async function counting<T>(work: () => Promise<T>): Promise<{ result: T; read: number }> {
  const log = store();
  const query = log.query;
  let read = 0;
  log.query = ((callback: (event: never) => void, q?: Query) =>
    query.call(
      log,
      (event) => {
        read++;
        callback(event as never);
      },
      q
    )) as Store["query"];
  try {
    return { result: await work(), read };
  } finally {
    log.query = query;
  }
}

/** A long log: `size` events no reaction handles, committed straight to the store a thousand at a time. */
async function history(size: number) {
  for (let done = 0; done < size; done += 1_000) {
    const messages = Array.from({ length: Math.min(1_000, size - done) }, (_, i) => ({
      name: "Noted",
      data: { text: `${done + i}` },
    }));
    await store().commit({ stream: `notes-${done}`, messages, meta: { correlation: "history", causation: {} } });
  }
}

/** Drains until a drain moves nothing and the app has correlated the whole log (bounded). */
async function quiet(app: { drain: (o?: object) => Promise<{ acked: unknown[]; leased: unknown[] }> }) {
  for (let i = 0; i < 100; i++) {
    const { acked, leased } = await app.drain({ leaseMillis: 5_000 });
    if (!acked.length && !leased.length && i > 20) return;
  }
}

/**
 * @param name - names the store in the test titles
 * @param fresh - sets up an empty store on the store port for each test
 * @param options - the log's length in the scenarios (more than a drain's 10,000 events of correlation)
 *   and how many programs the model runs
 */
export function discoverySuite(
  name: string,
  fresh: () => Promise<Store>,
  { size = 12_000, runs = 12 }: { size?: number; runs?: number } = {}
): void {
  describe(`discovery shared through the store (${name})`, () => {
    beforeEach(async () => {
      await fresh();
    });

    it("a restarted process reacts to an event committed after its start in its first drain, without reading the log", async () => {
      const ran: Ran = [];
      const before = release(1, ran);
      await before.do("place", { stream: "order-1", actor }, { sku: "a" });
      await history(size);
      await quiet(before);
      expect(ran).toHaveLength(1);

      // The process restarts: a new app, nothing in memory.
      const restarted = release(1, ran);
      const [placed] = await restarted.do("place", { stream: "order-2", actor }, { sku: "b" });
      const { result, read } = await counting(() => restarted.drain());
      expect(ran).toEqual([expect.any(String), `invoice ${placed.event!.id}`]);
      expect(result.acked.map((l) => l.stream)).toEqual(["invoice-order-2"]);
      // It read the new event, not the log behind it (reading from the start: 10,000 events).
      expect(read).toBeLessThanOrEqual(2);
      expect(await store().discovered(namesOf(restarted))).toEqual(
        new Map(namesOf(restarted).map((n) => [n, placed.event!.id]))
      );
    });

    it("a reaction added in a new release backfills the old events while the others' new work is handled in the same first drain", async () => {
      const ran: Ran = [];
      const old = release(1, ran);
      const placed: number[] = [];
      for (const stream of ["order-1", "order-2"])
        placed.push((await old.do("place", { stream, actor }, { sku: stream }))[0].event!.id);
      await history(size);
      await quiet(old);
      expect([...ran].sort()).toEqual(placed.map((id) => `invoice ${id}`).sort());

      const next = release(2, ran);
      // Until its backfill reaches the end of the log, the new reaction reads behind.
      expect((await next.stats()).discovery).toEqual([
        { reaction: "Placed/invoice", at: expect.any(Number), behind: false },
        { reaction: "Placed/audit", at: -1, behind: true },
      ]);
      const [late] = await next.do("place", { stream: "order-3", actor }, { sku: "c" });
      placed.push(late.event!.id);
      ran.length = 0;
      const { read } = await counting(() => next.drain());
      // The new order is invoiced at once, and the audit read only the orders of the log to catch up.
      expect(ran).toContain(`invoice ${late.event!.id}`);
      expect(ran.filter((r) => r.startsWith("invoice"))).toEqual([`invoice ${late.event!.id}`]);
      expect(read).toBeLessThan(50);
      await quiet(next);
      expect(ran.filter((r) => r.startsWith("audit"))).toEqual(placed.map((id) => `audit ${id}`));
      expect(ran.filter((r) => r.startsWith("invoice"))).toEqual([`invoice ${late.event!.id}`]);
      const last = late.event!.id;
      expect(await store().discovered(namesOf(next))).toEqual(new Map(namesOf(next).map((n) => [n, last])));
      expect((await next.stats()).discovery.map(({ behind }) => behind)).toEqual([false, false]);
    });

    it("a script's loop that drains while something is acknowledged runs a new reaction's backfill to its end", async () => {
      const ran: Ran = [];
      const old = release(1, ran);
      const placed: number[] = [];
      const place = async (stream: string) =>
        placed.push((await old.do("place", { stream, actor }, { sku: stream }))[0].event!.id);
      await place("order-1");
      await place("order-2");
      await history(size);
      await place("order-3");
      await quiet(old);

      // The next release, with nothing new to do but the audit's backfill:
      // its discovery registers the audit stream while the first drain
      // handles (nothing), and that drain then handles the audit stream.
      const next = release(2, ran);
      ran.length = 0;
      let drained: Awaited<ReturnType<typeof next.drain>>;
      let drains = 0;
      do {
        drained = await next.drain();
        drains++;
      } while (drained.acked.length && drains < 50);
      expect(ran).toEqual(placed.map((id) => `audit ${id}`));
      expect((await next.stats()).discovery.map(({ behind }) => behind)).toEqual([false, false]);
    });

    it("a cold serverless invocation after a gap longer than a drain's discovery handles the new work: drain while it acknowledges or discovery is behind", async () => {
      const ran: Ran = [];
      const warm = release(1, ran);
      await warm.do("place", { stream: "order-1", actor }, { sku: "a" });
      await quiet(warm);
      // Nothing discovers while more than a drain's 10,000 events arrive, then an order.
      await history(size);
      const [placed] = await warm.do("place", { stream: "order-2", actor }, { sku: "b" });

      // The recipe of the scaling guide, on a cold instance.
      const cold = release(1, ran);
      let handled = 0;
      let drained: Awaited<ReturnType<typeof cold.drain>>;
      let drains = 0;
      do {
        drained = await cold.drain({ streamLimit: 20, eventLimit: 50, leaseMillis: 15_000 });
        handled += drained.acked.length;
        drains++;
      } while ((drained.acked.length || (await cold.correlate()).behind) && drains < 100);
      expect(handled).toBe(1);
      expect(ran).toEqual([expect.any(String), `invoice ${placed.event!.id}`]);
      expect((await cold.correlate()).behind).toBe(false);
    });

    it("an explicit, filtered pass moves no position; an unfiltered one from the start moves them all", async () => {
      const ran: Ran = [];
      const app = release(2, ran);
      const [first] = await app.do("place", { stream: "order-1", actor }, { sku: "a" });
      const [second] = await app.do("place", { stream: "order-2", actor }, { sku: "b" });
      await app.correlate({ stream: "order-1" });
      expect(await store().discovered(namesOf(app))).toEqual(new Map());
      await app.correlate({ after: -1, limit: 1 });
      expect(await store().discovered(namesOf(app))).toEqual(new Map(namesOf(app).map((n) => [n, first.event!.id])));
      await app.correlate({ after: first.event!.id + 1 }); // starts past the positions: they stay
      expect(await store().discovered(namesOf(app))).toEqual(new Map(namesOf(app).map((n) => [n, first.event!.id])));
      await app.correlate();
      expect(await store().discovered(namesOf(app))).toEqual(new Map(namesOf(app).map((n) => [n, second.event!.id])));
      await quiet(app);
      expect([...ran].sort()).toEqual(
        [first, second].flatMap(({ event }) => [`audit ${event!.id}`, `invoice ${event!.id}`]).sort()
      );
    });

    describe("two processes racing discovery, restarting, on two releases", () => {
      type Step =
        | { kind: "place"; stream: number }
        | { kind: "note"; count: number }
        | { kind: "drain"; slot: 0 | 1 }
        | { kind: "race" }
        | { kind: "restart"; slot: 0 | 1; version: 1 | 2 }
        | { kind: "catch-up"; slot: 0 | 1; limit: number };
      const stepArb: fc.Arbitrary<Step> = fc.oneof(
        fc.record({ kind: fc.constant("place" as const), stream: fc.integer({ min: 0, max: 3 }) }),
        fc.record({ kind: fc.constant("note" as const), count: fc.integer({ min: 1, max: 40 }) }),
        fc.record({ kind: fc.constant("drain" as const), slot: fc.constantFrom(0 as const, 1 as const) }),
        fc.record({ kind: fc.constant("race" as const) }),
        fc.record({
          kind: fc.constant("restart" as const),
          slot: fc.constantFrom(0 as const, 1 as const),
          version: fc.constantFrom(1 as const, 2 as const),
        }),
        fc.record({
          kind: fc.constant("catch-up" as const),
          slot: fc.constantFrom(0 as const, 1 as const),
          limit: fc.integer({ min: 1, max: 20 }),
        })
      );

      async function run(steps: Step[]) {
        await fresh();
        const ran: Ran = [];
        const apps = [release(1, ran), release(1, ran)] as ReturnType<typeof release>[];
        const orders: number[] = [];
        for (const step of steps) {
          if (step.kind === "place") {
            const [s] = await apps[0].do("place", { stream: `order-${step.stream}`, actor }, { sku: "x" });
            orders.push(s.event!.id);
          } else if (step.kind === "note") {
            await store().commit({
              stream: "notes",
              messages: Array.from({ length: step.count }, (_, i) => ({ name: "Noted", data: { text: `${i}` } })),
              meta: { correlation: "notes", causation: {} },
            });
          } else if (step.kind === "drain") await apps[step.slot].drain({ leaseMillis: 5_000 });
          else if (step.kind === "race")
            await Promise.all(apps.map((app) => Promise.all([app.drain({ leaseMillis: 5_000 }), app.correlate()])));
          else if (step.kind === "restart") apps[step.slot] = release(step.version, ran);
          // settle()'s way: explicit pages from the start of the log.
          else await apps[step.slot].correlate({ after: -1, limit: step.limit });
        }
        // Both end on the new release and drain, racing, until everything ran.
        apps[0] = release(2, ran);
        apps[1] = release(2, ran);
        const expected = orders.flatMap((id) => [`audit ${id}`, `invoice ${id}`]).sort();
        for (let round = 0; round < 200 && ran.length < expected.length; round++)
          await Promise.all(apps.map((app) => app.drain({ leaseMillis: 5_000 })));
        for (let round = 0; round < 3; round++) await Promise.all(apps.map((app) => app.drain({ leaseMillis: 5_000 })));
        expect([...ran].sort()).toEqual(expected);
        const streams = (await store().reactions()).map((r) => r.stream);
        const targets = new Set([
          ...(orders.length ? ["audit"] : []),
          ...(await apps[0].queryArray({ names: ["Placed"] })).map((e) => `invoice-${e.stream}`),
        ]);
        expect(streams).toEqual([...targets].sort());
        expect(await store().reactions({ blocked: true })).toEqual([]);
        // Both reactions' discovery reached the end of the log, and the store says so.
        const [last] = await apps[0].queryArray({ backward: true, limit: 1 });
        if (last)
          expect(await store().discovered(namesOf(apps[0]))).toEqual(
            new Map(namesOf(apps[0]).map((n) => [n, last.id]))
          );
      }

      for (const seedRun of seedRuns("DISCOVERY", { seed: 20_261_128, numRuns: runs }, 6))
        it(`every reaction runs once for every order, and every stream is registered (${seedLabel(seedRun)})`, async () => {
          announce(`discovery model (${name})`, "DISCOVERY", seedRun);
          const { seed, numRuns } = seedRun;
          await fc.assert(fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 25 }), run), {
            seed,
            numRuns,
            ...replayPath("DISCOVERY"),
          });
        }, 180_000);
    });
  });
}
