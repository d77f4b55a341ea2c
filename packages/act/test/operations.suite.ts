/**
 * Reactions under the operations teams run in production, against every
 * store: two releases of an app sharing a store, an operator resetting or
 * unblocking a stream while a drain holds it, an event no schema decodes, a
 * best-effort reaction beside a critical one, a lease renewal that fails,
 * and the figures a dashboard reads.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { act, type Lease, projection, type Store, sleep, state, store } from "../src/index.js";

const actor = { id: "u", name: "U" };

const Shop = state("Shop", z.object({ orders: z.number() }))
  .init(() => ({ orders: 0 }))
  .emits({ Placed: z.object({ sku: z.string() }), Noted: z.object({ text: z.string() }) })
  .patch({ Placed: (_, s) => ({ orders: s.orders + 1 }), Noted: () => ({}) })
  .on("place", z.object({ sku: z.string() }))
  .emit(({ sku }) => ["Placed", { sku }])
  .on("note", z.object({ text: z.string() }))
  .emit(({ text }) => ["Noted", { text }])
  .build();

/** Drains until nothing moves (bounded, so a bug shows as a failed assertion, not a hang). */
async function settle(app: { drain: (o?: object) => Promise<{ acked: unknown[]; blocked: unknown[] }> }) {
  for (let i = 0; i < 50; i++) {
    const { acked, blocked } = await app.drain({ leaseMillis: 2_000 });
    if (!acked.length && !blocked.length) return;
  }
}

/**
 * @param name - names the store in the test titles
 * @param fresh - sets up an empty store on the store port for each test
 */
export function operationsSuite(name: string, fresh: () => Promise<Store>): void {
  describe(`reactions in production (${name})`, () => {
    beforeEach(async () => {
      await fresh();
    });

    describe("rolling deploys", () => {
      it("an app that lacks a reaction never takes the streams of that reaction", async () => {
        const welcomed: string[] = [];
        const audited: string[] = [];
        const target = (e: { stream: string }) => ({ target: `customer-${e.stream}` });
        // The release running now, and the next one, which adds "welcome".
        const old = act()
          .with(Shop)
          .on("Placed")
          .do(async function audit(e) {
            audited.push(e.data.sku);
          })
          .to(target)
          .build();
        const next = act()
          .with(Shop)
          .on("Placed")
          .do(async function audit(e) {
            audited.push(e.data.sku);
          })
          .to(target)
          .on("Placed")
          .do(async function welcome(e) {
            welcomed.push(e.data.sku);
          })
          .to(target)
          .build();
        for (const sku of ["a", "b", "c"]) await old.do("place", { stream: "s1", actor }, { sku });
        await next.correlate();
        // The old release polls, finds the stream, and must leave it alone.
        const drained = await old.drain();
        expect(drained.leased).toEqual([]);
        expect(drained.acked).toEqual([]);
        await settle(next);
        expect(welcomed).toEqual(["a", "b", "c"]);
        expect(audited).toEqual(["a", "b", "c"]);
        const [row] = await store().reactions();
        expect(row.reactions).toEqual(["Placed/audit", "Placed/welcome"]);
        expect((await old.stats()).streams[0].missing).toEqual(["Placed/welcome"]);
        expect((await next.stats()).streams[0].missing).toEqual([]);
      });

      it("a stream that gains a reaction while an older release handles it: the older release's progress counts for its reaction only, and the new one runs", async () => {
        const runs: string[] = [];
        let release = () => {};
        const gate = new Promise<void>((r) => {
          release = r;
        });
        const target = () => ({ target: "customers" });
        const old = act()
          .with(Shop)
          .on("Placed")
          .do(async function audit(e) {
            runs.push(`old audit ${e.data.sku}`);
            await gate;
          })
          .to(target)
          .build();
        const next = act()
          .with(Shop)
          .on("Placed")
          .do(async function audit(e) {
            runs.push(`audit ${e.data.sku}`);
          })
          .to(target)
          .on("Placed")
          .do(async function welcome(e) {
            runs.push(`welcome ${e.data.sku}`);
          })
          .to(target)
          .build();
        await old.do("place", { stream: "s1", actor }, { sku: "a" });
        // A lease no loaded machine can eat before the handler starts: with a
        // short one, a drain whose lease lapsed before its first handler ends
        // without running it, and the wait below would have nothing to see.
        const draining = old.drain({ leaseMillis: 10_000 });
        for (let i = 0; i < 2_000 && !runs.length; i++) await sleep(5);
        expect(runs).toEqual(["old audit a"]);
        await next.correlate(); // the new release registers "welcome" on the stream meanwhile
        release();
        expect((await draining).acked).toEqual([]); // not the stream's progress: welcome has not run
        // Given back at once, with audit's progress kept.
        expect((await next.stats()).streams.find((r) => r.stream === "customers")?.leasedBy).toBeUndefined();
        await settle(next);
        expect(runs).toEqual(["old audit a", "welcome a"]);
      });

      it("a reaction added in a rolling deploy runs for the events the older release handled first, and the older reaction does not run again", async () => {
        const runs: string[] = [];
        const target = () => ({ target: "customers" });
        const auditing = (who: string) =>
          async function audit(e: { data: { sku: string } }) {
            runs.push(`${who} audit ${e.data.sku}`);
          };
        const old = act().with(Shop).on("Placed").do(auditing("old")).to(target).build();
        const next = act()
          .with(Shop)
          .on("Placed")
          .do(auditing("new"))
          .to(target)
          .on("Placed")
          .do(async function welcome(e) {
            runs.push(`welcome ${e.data.sku}`);
          })
          .to(target)
          .build();
        await old.do("place", { stream: "s1", actor }, { sku: "a" });
        await settle(old);
        // Release N+1 starts; release N still correlates and drains first.
        await next.do("place", { stream: "s1", actor }, { sku: "b" });
        await settle(old);
        expect(runs).toEqual(["old audit a", "old audit b"]);
        await settle(next);
        expect(runs).toEqual(["old audit a", "old audit b", "welcome a", "welcome b"]);
        const customers = (await next.stats()).streams.find((r) => r.stream === "customers");
        expect(customers).toMatchObject({ reactions: ["Placed/audit", "Placed/welcome"], lag: 0, missing: [] });
      });

      it("a renamed reaction: the new release leaves the old streams alone until the old name is retired", async () => {
        const runs: string[] = [];
        const target = () => ({ target: "orders" });
        const before = act()
          .with(Shop)
          .on("Placed")
          .do(async function book(e) {
            runs.push(`book ${e.data.sku}`);
          })
          .to(target)
          .build();
        const after = act()
          .with(Shop)
          .on("Placed")
          .do(async function reserve(e) {
            runs.push(`reserve ${e.data.sku}`);
          })
          .to(target)
          .build();
        await before.do("place", { stream: "s", actor }, { sku: "a" });
        await before.correlate();
        await after.do("place", { stream: "s", actor }, { sku: "b" });
        await settle(after);
        expect(runs).toEqual([]);
        expect((await after.stats()).streams[0].missing).toEqual(["Placed/book"]);
        expect(await store().retire(["Placed/book"])).toEqual(["orders"]);
        await settle(after);
        expect(runs).toEqual(["reserve a", "reserve b"]);
      });

      it("a projection registered before a reaction does not rename it: the next release goes on with its streams", async () => {
        const runs: string[] = [];
        const target = () => ({ target: "invoices" });
        // The same reaction in both releases, as each release's source declares it.
        const invoicing = () =>
          async function invoice(e: { data: { sku: string } }) {
            runs.push(`invoice ${e.data.sku}`);
          };
        const before = act().with(Shop).on("Placed").do(invoicing()).to(target).build();
        const Totals = projection("Totals")
          .with(Shop)
          .on("Placed", () => {})
          .build();
        const after = act().with(Shop).with(Totals).on("Placed").do(invoicing()).to(target).build();
        await before.do("place", { stream: "s", actor }, { sku: "a" });
        await settle(before);
        await after.do("place", { stream: "s", actor }, { sku: "b" });
        await settle(after);
        expect(runs).toEqual(["invoice a", "invoice b"]);
        const invoices = (await after.stats()).streams.find((r) => r.stream === "invoices");
        expect(invoices).toMatchObject({ reactions: ["Placed/invoice"], missing: [], lag: 0 });
      });

      it("a renamed reaction with `renamedFrom` keeps the streams and progress of its old name", async () => {
        const runs: string[] = [];
        const target = () => ({ target: "orders" });
        const before = act()
          .with(Shop)
          .on("Placed")
          .do(async function book(e) {
            runs.push(`book ${e.data.sku}`);
          })
          .to(target)
          .build();
        const after = act()
          .with(Shop)
          .on("Placed")
          .do(
            async function reserve(e) {
              runs.push(`reserve ${e.data.sku}`);
            },
            { renamedFrom: "book" }
          )
          .to(target)
          .build();
        await before.do("place", { stream: "s", actor }, { sku: "a" });
        await settle(before);
        await after.do("place", { stream: "s", actor }, { sku: "b" });
        await settle(after);
        expect(runs).toEqual(["book a", "reserve b"]);
        expect((await after.stats()).streams[0]).toMatchObject({ missing: [], lag: 0 });
        // The release before the rename no longer takes the stream: it lacks the new name.
        await after.do("place", { stream: "s", actor }, { sku: "c" });
        await before.correlate();
        expect((await before.drain()).leased).toEqual([]);
      });

      it("a store written by a release that numbered reactions by position is taken over: nothing runs twice, nothing is skipped", async () => {
        const runs: string[] = [];
        const attempts: number[] = [];
        // What such a release left: "invoice" and "welcome" on the stream as
        // `#1` and `#2`, the first event handled, the second half done
        // (invoice ran, welcome failed once).
        // One after another, so ids follow the skus.
        const placed: Array<{ id: number }> = [];
        for (const sku of ["a", "b", "c"]) {
          const [committed] = await store().commit({
            stream: `s-${sku}`,
            messages: [{ name: "Placed", data: { sku } }],
            meta: {
              correlation: sku,
              causation: {},
            },
          });
          placed.push(committed);
        }
        const [e0, e1, e2] = placed;
        const legacy = ["Placed/invoice#1", "Placed/welcome#2"];
        const registered = { stream: "orders", by: "old", at: e0.id - 1, retry: 0, head: e2.id, reactions: legacy };
        await store().lease([registered], 0);
        const [held] = await store().lease([{ ...registered, at: e0.id - 1 }], 5_000);
        const done = [`${e1.id}:invoice#1`];
        expect(await store().ack([{ ...held, at: e0.id, done, retry: 1, reactions: legacy }])).toHaveLength(1);
        // The new release registers a projection first and the reactions in the other order.
        const Totals = projection("Totals")
          .with(Shop)
          .on("Placed", () => {})
          .build();
        const target = () => ({ target: "orders" });
        const next = act()
          .with(Shop)
          .with(Totals)
          .on("Placed")
          .do(async function welcome(e, _stream, _app, { attempt }) {
            runs.push(`welcome ${e.data.sku}`);
            attempts.push(attempt);
          })
          .to(target)
          .on("Placed")
          .do(async function invoice(e) {
            runs.push(`invoice ${e.data.sku}`);
          })
          .to(target)
          .build();
        expect((await next.stats()).streams.find((r) => r.stream === "orders")?.missing).toEqual([]);
        await settle(next);
        expect(runs).toEqual(["welcome b", "welcome c", "invoice c"]);
        expect(attempts).toEqual([2, 1]);
        const orders = (await next.stats()).streams.find((r) => r.stream === "orders");
        expect(orders).toMatchObject({ at: e2.id, lag: 0, missing: [] });
      });

      it("a reaction with `since` runs only for events committed from then on", async () => {
        await Promise.all(
          ["a", "b"].map((sku) => act().with(Shop).build().do("place", { stream: sku, actor }, { sku }))
        );
        await sleep(5);
        const since = new Date();
        const mailed: string[] = [];
        const app = act()
          .with(Shop)
          .on("Placed")
          .do(
            async function mail(e) {
              mailed.push(e.data.sku);
            },
            { since }
          )
          .to("mailer")
          .build();
        await app.do("place", { stream: "c", actor }, { sku: "c" });
        await settle(app);
        expect(mailed).toEqual(["c"]);
      });
    });

    describe("operator commands during a drain", () => {
      it.each([
        // 400 ms after the reset, more than half of any lease granted or renewed
        // before it has gone, so the next handler must renew first — whenever
        // the renewal timer gets to run on a busy machine.
        ["another process's reset, seen at the next renewal", 600, 400],
        ["this app's reset, at once", 60_000, 0],
      ])(
        "a reset while a drain holds the stream wins (%s): the drain records nothing over it and the stream replays",
        async (_, leaseMillis, wait) => {
          const seen: string[] = [];
          let release = () => {};
          const gate = new Promise<void>((r) => {
            release = r;
          });
          const app = act()
            .with(Shop)
            .on("Placed")
            .do(async function project(e) {
              seen.push(e.data.sku);
              if (e.data.sku === "b" && seen.length === 2) await gate;
            })
            .to("report")
            .build();
          for (const sku of ["a", "b", "c"]) await app.do("place", { stream: "s", actor }, { sku });
          const draining = app.drain({ leaseMillis });
          while (seen.length < 2) await sleep(5);
          // Another process's operator reaches the store only; this app's own reset also tells its drainer.
          const reset = wait ? store().reset(["report"]) : app.reset("report");
          expect(await reset).toEqual(["report"]);
          await sleep(wait); // with the short lease a renewal comes due meanwhile: it must be refused
          release();
          await draining;
          expect((await store().reactions())[0]).toMatchObject({ stream: "report", at: -1 });
          await settle(app);
          expect(seen).toEqual(["a", "b", "a", "b", "c"]);
        }
      );

      it("a reset while a handler still runs: no other process starts a handler on the stream until it is done", async () => {
        const running: string[] = [];
        const overlaps: string[] = [];
        let release = () => {};
        const gate = new Promise<void>((r) => {
          release = r;
        });
        const release_ = (name: string) =>
          act()
            .with(Shop)
            .on("Placed")
            .do(async function project(e) {
              if (running.length) overlaps.push(`${name} ran ${e.data.sku} beside ${running.join()}`);
              running.push(`${name}:${e.data.sku}`);
              try {
                if (name === "first" && e.data.sku === "a") await gate;
              } finally {
                running.pop();
              }
            })
            .to("report")
            .build();
        const first = release_("first");
        const second = release_("second");
        await first.do("place", { stream: "s", actor }, { sku: "a" });
        const draining = first.drain({ leaseMillis: 60_000 });
        while (!running.length) await sleep(5);
        // Another process's operator: the store only, so "first" keeps running its handler.
        expect(await store().reset(["report"])).toEqual(["report"]);
        for (let i = 0; i < 3; i++) await second.drain({ leaseMillis: 60_000 });
        expect(overlaps).toEqual([]);
        release();
        await draining; // its acknowledgement is refused, and gives the stream back
        await settle(second);
        expect(overlaps).toEqual([]);
        expect((await store().reactions())[0]).toMatchObject({ stream: "report", at: expect.any(Number) });
        expect((await store().reactions())[0].at).toBeGreaterThan(-1);
      });

      it("an unblock while an old drain still runs: the old drain cannot block or acknowledge over it", async () => {
        const app = act()
          .with(Shop)
          .on("Placed")
          .do(async function project() {}, { maxRetries: 0 })
          .to("report")
          .build();
        const [placed] = await app.do("place", { stream: "s", actor }, { sku: "a" });
        await app.correlate();
        const [polled] = await store().poll({ lagging: 1, leading: 0 });
        const [granted] = await store().lease([{ ...polled, by: "old", retry: 0 }], 5_000);
        await store().block([{ ...granted, error: "boom" }]);
        expect(await app.unblock("report")).toEqual(["report"]);
        expect(await store().lease([granted], 5_000)).toEqual([]); // no renewal…
        expect(await store().ack([{ ...granted, at: placed.event!.id + 1 }])).toEqual([]); // …and no ack
        await settle(app);
        expect((await store().reactions())[0]).toMatchObject({ blocked: false, at: placed.event!.id });
      });
    });

    describe("a filtered correlate", () => {
      it("does not move the app's position past events it did not scan", async () => {
        const seen: string[] = [];
        const app = act()
          .with(Shop)
          .on("Placed")
          .do(async (e) => {
            seen.push(e.stream);
          })
          .build();
        await app.do("place", { stream: "a", actor }, { sku: "1" });
        await app.do("place", { stream: "b", actor }, { sku: "2" });
        await app.correlate({ stream: "b" });
        await settle(app);
        expect(seen.sort()).toEqual(["a", "b"]);
      });
    });

    describe("events that cannot be decoded", () => {
      it("block only the stream of the reaction that cannot run, with the reason; the rest of the app goes on", async () => {
        const projected: string[] = [];
        const app = act()
          .with(Shop)
          .on("Placed")
          .do(
            async function project(e) {
              projected.push(e.data.sku);
            },
            { maxRetries: 2, retryBaseMillis: 5, retryMaxMillis: 5 }
          )
          // A resolver that reads the data: it throws on a shape it does not know.
          .to((e) => ({ target: `sku-${e.data.sku.toUpperCase()}` }))
          .on("Noted")
          .do(async function log() {}, { maxRetries: 0 })
          .build();
        await app.do("place", { stream: "s", actor }, { sku: "a" });
        // An old release wrote this one: no `sku`.
        await store().commit({
          stream: "s",
          messages: [{ name: "Placed", data: { code: 7 } }],
          meta: { correlation: "x", causation: {} },
        });
        await app.do("place", { stream: "t", actor }, { sku: "b" });
        await app.do("note", { stream: "n", actor }, { text: "hi" });
        for (let i = 0; i < 12; i++) {
          await app.drain({ leaseMillis: 2_000 });
          await sleep(10); // the retries' backoff
        }
        expect(projected.sort()).toEqual(["a", "b"]);
        const blocked = await app.blocked();
        expect(blocked.map((b) => b.stream)).toEqual(["s"]);
        expect(blocked[0].error).toMatch(/Reaction "project" to event "Placed" #\d+ on stream "s" failed: .*sku/);
        expect(blocked[0].retry).toBe(3);
        const rows = await store().reactions();
        expect(rows.find((r) => r.stream === "n")).toMatchObject({ blocked: false });
      });
    });

    describe("retries", () => {
      it("count per reaction: a best-effort reaction's failures are not charged to its critical sibling", async () => {
        let critical = 0;
        const app = act()
          .with(Shop)
          .on("Placed")
          .do(
            async function bestEffort() {
              throw new Error("mail server down");
            },
            { blockOnError: false, maxRetries: 1, retryBaseMillis: 1, retryMaxMillis: 1 }
          )
          .to("side")
          .on("Placed")
          .do(
            async function ledger() {
              critical++;
              if (critical === 1) throw new Error("transient");
            },
            { maxRetries: 1, retryBaseMillis: 1, retryMaxMillis: 1 }
          )
          .to("side")
          .build();
        const [placed] = await app.do("place", { stream: "s", actor }, { sku: "a" });
        for (let i = 0; i < 10; i++) {
          await app.drain();
          await sleep(5);
        }
        expect(await app.blocked()).toEqual([]);
        expect(critical).toBe(2);
        expect((await store().reactions())[0]).toMatchObject({ at: placed.event!.id, retry: 0 });
      });

      it("`acked` lists only streams whose watermark moved", async () => {
        const app = act()
          .with(Shop)
          .on("Placed")
          .do(async function ok() {})
          .to("side")
          .on("Placed")
          .do(
            async function fails() {
              throw new Error("no");
            },
            { maxRetries: 3 }
          )
          .to("side")
          .build();
        await app.do("place", { stream: "s", actor }, { sku: "a" });
        const { acked } = await app.drain();
        expect(acked).toEqual([]);
      });
    });

    describe("lease renewals that fail", () => {
      it("stop the holder before its next handler, so no second drainer runs an event at the same time", async () => {
        const running = new Set<string>();
        const overlaps: string[] = [];
        const handled: string[] = [];
        // Two processes with the same release: one slow reaction on one stream.
        const release = () =>
          act()
            .with(Shop)
            .on("Placed")
            .do(async function slow(e) {
              if (running.size) overlaps.push(e.data.sku);
              running.add(e.data.sku);
              await sleep(120);
              running.delete(e.data.sku);
              handled.push(e.data.sku);
            })
            .to("one")
            .build();
        const [first, second] = [release(), release()];
        for (const sku of ["a", "b", "c", "d"]) await first.do("place", { stream: "s", actor }, { sku });
        // Every renewal fails with an error (the holder's pool is busy, say); new leases still work.
        const log = store();
        const lease = log.lease.bind(log);
        let failed = 0;
        log.lease = async (leases: Lease[], millis: number) => {
          if (millis > 0 && leases.some((l) => l.token !== undefined)) {
            failed++;
            throw new Error("pool busy");
          }
          return lease(leases, millis);
        };
        try {
          const one = first.drain({ leaseMillis: 150 });
          await sleep(200); // the first lease has run out in the store
          await Promise.all([one, second.drain({ leaseMillis: 150 })]);
          while (running.size) await sleep(10);
        } finally {
          log.lease = lease;
        }
        expect(failed).toBeGreaterThan(0);
        expect(overlaps).toEqual([]);
        await settle(first);
        // Every event handled, in order. A handler may run again after the
        // run before it ended (never beside it): when a loaded machine makes
        // the first holder's acknowledgement come after its lease ran out, the
        // store refuses it and the next holder runs that event again — the
        // at-least-once call the docs promise for a lost lease.
        expect([...new Set(handled)]).toEqual(["a", "b", "c", "d"]);
      });
    });

    describe("fenced handlers", () => {
      /**
       * The drains' lease. Long enough that a machine running other suites
       * beside this one still starts the handler on it (no handler starts on a
       * lease less than half left, and one whose deadline passed is lost);
       * short enough that a renewal comes due (every third of it) and the
       * deadline passes within a test's time.
       */
      const LEASE = 2_000;

      /** One slow reaction on stream "one" that waits for its lease's abort (or 10 s), then tries an action. */
      function fencedApp(seen: { reason?: string; refused?: string; token?: number }) {
        return act()
          .with(Shop)
          .on("Placed")
          .do(async function slow(e, _stream, app, { signal, token }) {
            seen.token = token;
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, 10_000);
              signal.addEventListener("abort", () => {
                clearTimeout(timer);
                resolve();
              });
            });
            seen.reason = (signal.reason as Error | undefined)?.message;
            await app
              .do("note", { stream: "late", actor }, { text: "after the lease" }, { reactingTo: e })
              .catch((error: Error) => (seen.refused = error.message));
          })
          .to("one")
          .build();
      }

      /** Waits (bounded) until the handler has tried its action, so a handler never aborted fails the test instead of hanging it. */
      async function tried(seen: { refused?: string; token?: number }): Promise<void> {
        for (let i = 0; i < 1_500 && !seen.refused; i++) await sleep(10);
        expect(seen.token, "the handler never started").toBeTypeOf("number");
      }

      async function notes(): Promise<number> {
        return store().query(() => {}, { stream: "late" });
      }

      it("a failed renewal aborts the running handler's signal, and the app refuses its actions from then on", async () => {
        const seen: { reason?: string; refused?: string; token?: number } = {};
        const app = fencedApp(seen);
        await app.do("place", { stream: "s", actor }, { sku: "a" });
        const log = store();
        const lease = log.lease.bind(log);
        // Renewals fail once the handler runs (before, one may be needed for
        // it to start at all: a busy machine takes a while to get there).
        log.lease = async (leases: Lease[], millis: number) => {
          if (seen.token !== undefined && millis > 0 && leases.some((l) => l.token !== undefined))
            throw new Error("pool busy");
          return lease(leases, millis);
        };
        try {
          await app.drain({ leaseMillis: LEASE });
          await tried(seen);
        } finally {
          log.lease = lease;
        }
        expect(seen.reason).toMatch(/could not be renewed.*: pool busy/);
        expect(seen.refused).toBe(seen.reason);
        expect(await notes()).toBe(0);
      });

      it("a lease whose deadline passes without a renewal aborts the handler's signal (a paused process)", async () => {
        const seen: { reason?: string; refused?: string; token?: number } = {};
        const app = fencedApp(seen);
        await app.do("place", { stream: "s", actor }, { sku: "a" });
        const log = store();
        const lease = log.lease.bind(log);
        // Renewals never answer once the handler runs: the store is stuck,
        // or the process was paused.
        log.lease = (leases: Lease[], millis: number) =>
          seen.token !== undefined && millis > 0 && leases.some((l) => l.token !== undefined)
            ? new Promise<Lease[]>(() => {})
            : lease(leases, millis);
        try {
          await app.drain({ leaseMillis: LEASE });
          await tried(seen);
        } finally {
          log.lease = lease;
        }
        expect(seen.reason).toMatch(/passed its deadline without a renewal/);
        expect(await notes()).toBe(0);
      });

      it("an operator reset aborts the signal of the handler running on the stream", async () => {
        const seen: { reason?: string; refused?: string; token?: number } = {};
        const app = fencedApp(seen);
        await app.do("place", { stream: "s", actor }, { sku: "a" });
        // A lease that neither lapses nor needs a renewal before the reset: the abort can only be the reset's.
        const draining = app.drain({ leaseMillis: 60_000 });
        for (let i = 0; i < 2_000 && seen.token === undefined; i++) await sleep(5);
        await app.reset("one");
        await draining;
        await tried(seen);
        expect(seen.reason).toMatch(/operator command/);
        expect(await notes()).toBe(0);
      });
    });

    describe("monitoring", () => {
      it("lag counts only events a stream still has to handle: a caught-up stream reads 0 after unrelated commits", async () => {
        const app = act()
          .with(Shop)
          .on("Placed")
          .do(async () => {})
          .to("orders")
          .build();
        await app.do("place", { stream: "s", actor }, { sku: "a" });
        await settle(app);
        for (let i = 0; i < 30; i++) await app.do("note", { stream: `n-${i}`, actor }, { text: "x" });
        await app.do("place", { stream: "s", actor }, { sku: "b" });
        await app.correlate();
        const before = await app.stats();
        expect(before.streams.find((s) => s.stream === "orders")?.lag).toBe(1);
        await settle(app);
        for (let i = 0; i < 30; i++) await app.do("note", { stream: `m-${i}`, actor }, { text: "y" });
        const after = await app.stats();
        expect(after.streams.find((s) => s.stream === "orders")?.lag).toBe(0);
      });
    });
  });
}
