/**
 * Copying a store into another one (`copyStore`), against every pair of
 * stores that matters: after the copy, an app built on the target with the
 * same model continues where the source's app was — same states and
 * versions, same events at the same times, no reaction run again for an
 * event already handled, idempotency keys and blocked streams kept, each
 * pending timer fired once — and an interrupted copy continues where it
 * stopped.
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  act,
  type Committed,
  CopyError,
  copyStore,
  logDigest,
  type Schemas,
  type Store,
  sleep,
  state,
  ZodEmpty,
} from "../src/index.js";
import { testClock } from "../src/testing/index.js";
import { bound, copyKeptSuite, withTransfer } from "./copy-kept.suite.js";

const actor = { id: "u-1", name: "Ada" };
const meta = { correlation: "c-late", causation: {} };

const Account = state("Account", z.object({ balance: z.number(), closed: z.boolean() }))
  .init(() => ({ balance: 0, closed: false }))
  .emits({ Deposited: z.object({ amount: z.number() }), Closed: ZodEmpty })
  .patch({
    Deposited: ({ data }, s) => ({ balance: s.balance + data.amount }),
    Closed: () => ({ closed: true }),
  })
  .on("deposit", z.object({ amount: z.number().positive() }))
  .emit(({ amount }) => ["Deposited", { amount }])
  .on("close", ZodEmpty)
  .emit(() => ["Closed", {}])
  // A snapshot every third event, so the copy carries snapshot events too.
  .snap((s) => s.patches >= 3)
  .build();

/** The app both sides run: a reaction that "sends an e-mail" per deposit, failing for one account. */
function build(on: Store, sent: number[], clock = testClock()) {
  const app = act()
    .with(Account)
    .on("Deposited")
    .do(
      async function email(event) {
        if (event.stream === "acct-bad") throw new Error("mail server refused acct-bad");
        sent.push(event.id);
      },
      { maxRetries: 0, blockOnError: true }
    )
    .to((event) => ({ target: `mail-${event.stream}` }))
    .build({ store: on, clock });
  return { app, clock };
}

/** Drains until nothing moves (bounded). */
async function settleAll(app: { drain: (o?: object) => Promise<{ acked: unknown[]; blocked: unknown[] }> }) {
  for (let i = 0; i < 50; i++) {
    const { acked, blocked } = await app.drain({ leaseMillis: 5_000 });
    if (!acked.length && !blocked.length) return;
  }
}

/** Every event of a store, snapshots included. */
async function events(s: Store, filter: object = {}) {
  const all: Committed<Schemas, string>[] = [];
  await s.query((e) => void all.push(e as Committed<Schemas, string>), { with_snaps: true, ...filter });
  return all;
}

const STREAMS = ["acct-1", "acct-2", "acct-3", "acct-bad"];

/**
 * Fills `source` as an app in production would (exported for the backup drills): deposits (with snapshots),
 * reactions run, one stream blocked, an idempotent deposit, one timer fired
 * and one pending.
 */
export async function fill(source: Store) {
  const sent: number[] = [];
  const { app, clock } = build(source, sent);
  for (let round = 0; round < 4; round++)
    for (const stream of STREAMS) await app.do("deposit", { stream, actor }, { amount: round + 1 });
  await app.do("deposit", { stream: "acct-2", actor, idempotencyKey: "request-42" }, { amount: 100 });
  await app.schedule({
    id: "fired-early",
    action: "deposit",
    target: { stream: "acct-3", actor },
    payload: { amount: 7 },
    afterMillis: 1_000,
  });
  await app.schedule({
    id: "interest",
    action: "deposit",
    target: { stream: "acct-1", actor },
    payload: { amount: 5 },
    afterMillis: 60_000,
  });
  clock.advance(2_000); // the first timer is due, the second is not
  await settleAll(app);
  await app.do("close", { stream: "acct-3", actor }, {});
  await settleAll(app);
  return { app, sent };
}

/**
 * @param name - names the pair in the test titles, e.g. "SQLite → PostgreSQL"
 * @param stores - makes an empty source and an empty target (seeded), and disposes them
 */
export function copySuite(
  name: string,
  stores: { source: () => Promise<Store>; target: () => Promise<Store>; dispose?: () => Promise<void> }
): void {
  describe(`copyStore (${name})`, () => {
    afterEach(async () => {
      await stores.dispose?.();
    });

    it("copies the log as it is: ids, versions, times, metadata and snapshots; queries by time give the same events", async () => {
      const source = await stores.source();
      const target = await stores.target();
      await fill(source);
      // Apart by a few ms: every event is created before `filled`, and a re-stamped one after it.
      await sleep(5);
      const filled = new Date();
      await sleep(5);

      const report = await copyStore(source, target, { batch: 7 });

      const from = await events(source);
      const to = await events(target);
      expect(to).toEqual(from);
      expect(from.some((e) => e.name === "__snapshot__")).toBe(true);
      expect(report).toMatchObject({ copied: from.length, resumedAfter: -1, log: { events: from.length } });
      expect(report.log).toEqual(await logDigest(target));
      // Every event keeps its creation time: none is "now".
      expect(await events(target, { created_before: filled })).toHaveLength(to.length);
      const middle = from[Math.floor(from.length / 2)].created;
      for (const filter of [{ created_after: middle }, { created_before: middle }])
        expect(await events(target, filter)).toEqual(await events(source, filter));
      expect((await events(target, { created_after: middle })).length).toBeGreaterThan(0);
      for (const e of from.filter((e) => e.meta.causation.action))
        expect(to.find((t) => t.id === e.id)?.meta).toEqual(e.meta);
    });

    it("an app on the target loads the same states and versions, runs no reaction again, and runs new ones once", async () => {
      const source = await stores.source();
      const target = await stores.target();
      const { app: before } = await fill(source);
      await copyStore(source, target);

      const sent: number[] = [];
      const { app } = build(target, sent);
      for (const stream of STREAMS) {
        const [a, b] = await Promise.all([before.load(Account, stream), app.load(Account, stream)]);
        expect(b.state).toEqual(a.state);
        expect(b.event?.version).toBe(a.event?.version);
        expect(b.event?.id).toBe(a.event?.id);
      }
      await settleAll(app);
      expect(sent).toEqual([]); // every e-mail was sent on the source: none again
      expect(await target.reactions({ blocked: true })).toEqual(await source.reactions({ blocked: true }));
      expect((await target.reactions({ blocked: true }))[0]).toMatchObject({
        stream: "mail-acct-bad",
        error: expect.stringContaining("acct-bad"),
      });

      const [fresh] = await app.do("deposit", { stream: "acct-1", actor }, { amount: 9 });
      await settleAll(app);
      expect(sent).toEqual([fresh.event?.id]);
      const copied = await events(source);
      expect(fresh.event?.id).toBeGreaterThan(Math.max(...copied.map((e) => e.id)));
    });

    it("keeps idempotency keys with what they committed, and fires each pending timer once", async () => {
      const source = await stores.source();
      const target = await stores.target();
      await fill(source);
      await copyStore(source, target);
      const sent: number[] = [];
      const { app, clock } = build(target, sent);

      const count = (await events(target)).length;
      const [retried] = await app.do(
        "deposit",
        { stream: "acct-2", actor, idempotencyKey: "request-42" },
        { amount: 100 }
      );
      expect((await events(target)).length).toBe(count);
      expect(retried.event?.data).toEqual({ amount: 100 });

      clock.advance(2_000); // the timer fired on the source is not fired again
      await settleAll(app);
      expect((await events(target)).length).toBe(count);
      clock.advance(60_000); // the pending one fires here, once
      await settleAll(app);
      await settleAll(app);
      const interest = (await events(target, { stream: "acct-1" })).filter(
        (e) => e.name === "Deposited" && (e.data as { amount: number }).amount === 5
      );
      expect(interest).toHaveLength(1);
      expect((await target.timers?.list({ ids: ["interest"] }))?.[0]).toMatchObject({ status: "fired" });
    });

    it("continues after an interruption between batches from the target's last event, and ends equal", async () => {
      const source = await stores.source();
      const target = await stores.target();
      await fill(source);
      const transfer = target.transfer;
      if (!transfer) throw new Error("no transfer port");
      let batches = 0;
      // The third batch fails, as a process killed between two batches would stop.
      const failing = withTransfer(target, {
        ...bound(transfer),
        append: async (page, after) => {
          if (++batches === 3) throw new Error("killed");
          await transfer.append(page, after);
        },
      });
      await expect(copyStore(source, failing, { batch: 5 })).rejects.toThrow("killed");
      const partial = await events(target);
      expect(partial).toHaveLength(10);
      expect((await transfer.records()).watermarks).toEqual([]); // records only after every event

      const report = await copyStore(source, target, { batch: 5 });
      const all = await events(source);
      expect(report).toMatchObject({ resumedAfter: partial[9].id, copied: all.length - 10 });
      expect(report.records.watermarks).toBeGreaterThan(0);
      expect(await logDigest(target)).toEqual(await logDigest(source));
      expect(await transfer.records()).toEqual(await source.transfer?.records());

      // Run again on a finished copy: nothing to do, and still equal.
      expect(await copyStore(source, target)).toMatchObject({ copied: 0, records: { watermarks: 0 } });
    });

    it("fails the final check when the source moves during the copy, naming the first event the target lacks", async () => {
      const source = await stores.source();
      const target = await stores.target();
      await fill(source);
      const transfer = target.transfer;
      if (!transfer) throw new Error("no transfer port");
      let reads = 0;
      let late: number | undefined;
      // An app still writing to the source: it commits after the records were copied, before the check.
      const moving = withTransfer(target, {
        ...bound(transfer),
        records: async () => {
          if (++reads === 2)
            late = (
              await source.commit({ stream: "acct-1", messages: [{ name: "Deposited", data: { amount: 1 } }], meta })
            )[0].id;
          return transfer.records();
        },
      });
      const error = await copyStore(source, moving).catch((e: unknown) => e as CopyError);
      expect(error).toBeInstanceOf(CopyError);
      expect(error).toMatchObject({ id: late });
      expect((error as Error).message).toContain("the target no event");
      expect((error as Error).message).toContain("Was an app still writing to the source?");
    });

    it("refuses a target holding another log or records of its own, and says where a copy differs", async () => {
      const source = await stores.source();
      const target = await stores.target();
      await fill(source);
      // Another log on the target.
      const { app } = build(target, []);
      await app.do("deposit", { stream: "elsewhere", actor }, { amount: 1 });
      await expect(copyStore(source, target)).rejects.toThrow(/not a copy of the source/);
      await target.drop();
      await target.seed();
      // Records but no event.
      await target.discover(["Deposited/email"], 3);
      await expect(copyStore(source, target)).rejects.toThrow(CopyError);
      await target.drop();
      await target.seed();

      // A target that writes one event wrongly: the check names it.
      const transfer = target.transfer;
      if (!transfer) throw new Error("no transfer port");
      const wrong = withTransfer(target, {
        ...bound(transfer),
        append: (page, after) =>
          transfer.append(
            page.map((e, i) => (after === -1 && i === 3 ? { ...e, data: { amount: -1 } } : e)),
            after
          ),
      });
      const third = (await events(source))[3];
      const error = await copyStore(source, wrong).catch((e: unknown) => e as CopyError);
      expect(error).toBeInstanceOf(CopyError);
      expect(error).toMatchObject({ position: 3, id: third.id });
      expect((error as Error).message).toContain(`id ${third.id}`);
    });

    copyKeptSuite(stores);
  });
}
