/**
 * What a copy carries beside the log (`copyStore`), on every pair of stores
 * the copy suite runs: the keys of data subjects (every version, forgotten
 * subjects still forgotten, the subject→stream index), the archive (events,
 * versions, creation and archiving times; closed streams still load and
 * still refuse time travel before their summary), and every column of the
 * timers — and that an interrupted copy of them continues.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  act,
  CopyError,
  copyStore,
  FORGOTTEN,
  forgettable,
  logDigest,
  PersonalDataError,
  type Store,
  type StoreTransfer,
  StreamArchivedError,
  state,
} from "../src/index.js";
import { testClock } from "../src/testing/index.js";

export const ada = { id: "u-1", name: "Ada" };

export const Member = state("Member", z.object({ email: z.string(), logins: z.number() }))
  .init(() => ({ email: "", logins: 0 }))
  .emits({
    Joined: z.object({ personId: z.string(), email: forgettable(z.email()) }),
    LoggedIn: z.object({ personId: z.string(), email: forgettable(z.email()) }),
  })
  .patch({
    Joined: ({ data }) => ({ email: data.email }),
    LoggedIn: ({ data }, s) => ({ email: data.email, logins: s.logins + 1 }),
  })
  .personal({
    Joined: { fields: ["email"], subject: "personId" },
    LoggedIn: { fields: ["email"], subject: "personId" },
  })
  .on("join", z.object({ personId: z.string(), email: z.email() }))
  .emit((data) => ["Joined", data])
  .on("login", z.object({ personId: z.string(), email: z.email() }))
  .emit((data) => ["LoggedIn", data])
  // Snapshots hold the state in clear: forgetting must find them through the subject's streams.
  .snap((s) => s.patches >= 2)
  .build();

export const Tab = state("Tab", z.object({ total: z.number() }))
  .init(() => ({ total: 0 }))
  .emits({ Charged: z.object({ amount: z.number() }) })
  .patch({ Charged: ({ data }, s) => ({ total: s.total + data.amount }) })
  .on("charge", z.object({ amount: z.number() }))
  .emit(({ amount }) => ["Charged", { amount }])
  .build();

/** An app on `store` with both states; its clock a minute ahead, so streams closed now can be archived at once. */
export const appOn = (store: Store) =>
  act()
    .with(Member)
    .with(Tab)
    .build({ store, clock: testClock(new Date(Date.now() + 60_000)) });

/** `transfer`'s methods, bound to it. */
export const bound = (t: StoreTransfer): StoreTransfer => ({
  append: (page, after) => t.append(page, after),
  records: () => t.records(),
  restore: (records) => t.restore(records),
  archived: (after, limit) => t.archived(after, limit),
  archive: (page, after) => t.archive(page, after),
});

/** `s` with another transfer port (every other method of `s`, bound to it). */
export function withTransfer(s: Store, transfer: StoreTransfer): Store {
  return new Proxy(s, {
    get(target, key) {
      if (key === "transfer") return transfer;
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const port = (s: Store) => {
  if (!s.transfer) throw new Error("no transfer port");
  return s.transfer;
};

/** Personal data of three people: one rotated, one forgotten, one untouched. */
async function fillPersonal(source: Store) {
  const app = appOn(source);
  for (const [stream, personId] of [
    ["member-1", "p-1"],
    ["member-2", "p-2"],
    ["member-3", "p-3"],
  ]) {
    await app.do("join", { stream, actor: ada }, { personId, email: `${personId}@example.com` });
    await app.do("login", { stream, actor: ada }, { personId, email: `${personId}@example.com` });
  }
  await app.rotate("p-1");
  await app.do("login", { stream: "member-1", actor: ada }, { personId: "p-1", email: "p-1@new.example.com" });
  await app.forget("p-2");
  return app;
}

/** Closed and archived streams beside an open one. */
async function fillArchive(source: Store) {
  const app = appOn(source);
  for (const stream of ["tab-1", "tab-2", "tab-3"])
    for (let i = 1; i <= 3; i++) await app.do("charge", { stream, actor: ada }, { amount: i });
  await app.close(Tab, "tab-1", { by: ada, reason: "paid" });
  await app.close(Tab, "tab-2", { by: ada, continueAs: "tab-2b" });
  const moved = await app.archive({ afterMillis: 0 });
  expect(moved.events).toBe(6);
  await app.do("charge", { stream: "tab-3", actor: ada }, { amount: 10 });
  await app.do("charge", { stream: "tab-2b", actor: ada }, { amount: 20 });
  return app;
}

/**
 * @param stores - makes an empty source and an empty target (seeded); the
 * caller's `afterEach` disposes them
 */
export function copyKeptSuite(stores: { source: () => Promise<Store>; target: () => Promise<Store> }): void {
  describe("subject keys", () => {
    it("carries every key version, so personal fields read in clear on the target, and forgotten subjects stay forgotten", async () => {
      const source = await stores.source();
      const target = await stores.target();
      const before = await fillPersonal(source);
      const report = await copyStore(source, target, { batch: 4 });
      // Three people, and the key each stream's snapshots are sealed with.
      expect(report.records.subjects).toBe(6);
      expect(await port(target).records()).toEqual(await port(source).records());

      const app = appOn(target);
      for (const stream of ["member-1", "member-2", "member-3"]) {
        const [a, b] = await Promise.all([before.load(Member, stream), app.load(Member, stream)]);
        expect(b.state).toEqual(a.state);
      }
      // Both versions of p-1's key: the events sealed before the rotation and after it.
      expect((await app.load(Member, "member-1")).state).toEqual({ email: "p-1@new.example.com", logins: 2 });
      const joined = await app.queryArray({ stream: "member-1", names: ["Joined"] });
      expect(joined[0].data).toMatchObject({ email: "p-1@example.com" });
      expect((await app.load(Member, "member-3")).state.email).toBe("p-3@example.com");

      // p-2 was forgotten on the source: on the target too, for reads and for writes.
      expect((await app.load(Member, "member-2")).state.email).toBe(FORGOTTEN);
      expect(await target.keys?.read([{ subject: "p-2", version: 1 }])).toEqual([
        { subject: "p-2", version: 1, key: null },
      ]);
      expect(await target.keys?.forgotten("member-2")).toBe(true);
      const refused = await app
        .do("login", { stream: "member-2", actor: ada }, { personId: "p-2", email: "p-2@example.com" })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(PersonalDataError);
      expect(refused).toMatchObject({ reason: "forgotten-subject" });

      // The subject → stream index came along: forgetting p-1 on both empties the same snapshots.
      const [there, here] = [await before.forget("p-1"), await app.forget("p-1")];
      expect(here).toEqual(there);
      expect(here.snapshots).toBeGreaterThan(0);
      expect(await logDigest(target)).toEqual(await logDigest(source));
    });

    it("names a subject whose keys differ without printing a key", async () => {
      const source = await stores.source();
      const target = await stores.target();
      await fillPersonal(source);
      const { subjects } = await port(source).records();
      const live = subjects.flatMap((s) => s.keys).filter((k): k is string => k !== null);
      const wrong = Buffer.alloc(32, 7).toString("base64");
      const transfer = port(target);
      const swapping = withTransfer(target, {
        ...bound(transfer),
        restore: (records) =>
          transfer.restore({
            ...records,
            subjects: records.subjects.map((s) =>
              s.subject === "p-1" ? { ...s, keys: s.keys.map((k, i) => (i === 0 ? wrong : k)) } : s
            ),
          }),
      });
      const error = (await copyStore(source, swapping).catch((e: unknown) => e)) as Error;
      expect(error).toBeInstanceOf(CopyError);
      expect(error.message).toContain('the keys of data subject "p-1" differ (not shown)');
      for (const key of [...live, wrong]) expect(error.message).not.toContain(key);
    });
  });

  describe("archive", () => {
    it("carries archived events with their ids, versions and times; closed streams load the same and still refuse time travel before the summary", async () => {
      const source = await stores.source();
      const target = await stores.target();
      const before = await fillArchive(source);
      const report = await copyStore(source, target, { batch: 4 });
      expect(report.archived).toBe(6);

      const archived = await port(source).archived(-1, 100);
      expect(archived).toHaveLength(6);
      expect(await port(target).archived(-1, 100)).toEqual(archived);
      const digest = await logDigest(target);
      expect(digest).toEqual(await logDigest(source));
      expect(report.log).toEqual(digest);
      expect(digest.archive).toMatchObject({ events: 6, last: archived[5].event.id });
      expect(await target.archive?.query(() => {}, { stream: "tab-1", with_snaps: true })).toBe(3);

      const app = appOn(target);
      for (const stream of ["tab-1", "tab-2", "tab-2b", "tab-3"]) {
        const [a, b] = await Promise.all([before.load(Tab, stream), app.load(Tab, stream)]);
        expect(b.state).toEqual(a.state);
        expect(b.event?.version).toBe(a.event?.version);
      }
      expect((await app.load(Tab, "tab-2b")).state.total).toBe(26);
      for (const on of [before, app]) {
        const refused = await on.load(Tab, "tab-1", { at: { version: 1 } }).catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(StreamArchivedError);
        expect(refused).toMatchObject({ stream: "tab-1", version: 3 });
      }
      // The archiving times came along: retention on the target purges what it would have on the source.
      const cut = new Date(archived[0].archived + 1);
      expect(await target.archive?.purge(cut)).toEqual(await source.archive?.purge(cut));
      expect(await logDigest(target)).toEqual(await logDigest(source));
    });

    it("continues an interrupted copy of the archive after its last archived event, and the check finds an archive that differs", async () => {
      const source = await stores.source();
      const target = await stores.target();
      await fillArchive(source);
      const transfer = port(target);
      let pages = 0;
      const failing = withTransfer(target, {
        ...bound(transfer),
        archive: async (page, after) => {
          if (++pages === 2) throw new Error("killed");
          await transfer.archive(page, after);
        },
      });
      await expect(copyStore(source, failing, { batch: 4 })).rejects.toThrow("killed");
      expect(await transfer.archived(-1, 100)).toHaveLength(4);
      expect(await target.query(() => {}, { with_snaps: true })).toBe(0);

      const report = await copyStore(source, target, { batch: 4 });
      expect(report).toMatchObject({ archived: 2, resumedAfter: -1 });
      expect(await logDigest(target)).toEqual(await logDigest(source));

      // A copy that writes one archiving time wrongly fails the final check, which names the event.
      const other = await stores.target();
      await other.drop();
      await other.seed();
      const otherPort = port(other);
      const [, second] = await port(source).archived(-1, 2);
      const shifted = withTransfer(other, {
        ...bound(otherPort),
        archive: (page, after) =>
          otherPort.archive(
            page.map((r) => (r.event.id === second.event.id ? { ...r, archived: r.archived + 1 } : r)),
            after
          ),
      });
      const error = (await copyStore(source, shifted).catch((e: unknown) => e)) as CopyError;
      expect(error).toBeInstanceOf(CopyError);
      expect(error).toMatchObject({ position: 1, id: second.event.id });
      expect(error.message).toContain("the archives first differ at event #1");
    });
  });

  describe("timers", () => {
    it("carries every column of every timer, the correlation included", async () => {
      const source = await stores.source();
      const target = await stores.target();
      await source.commit({
        stream: "tab-1",
        messages: [{ name: "Charged", data: { amount: 1 } }],
        meta: {
          correlation: "c-1",
          causation: {},
        },
      });
      const due = new Date(Date.now() + 60_000);
      await source.timers?.schedule([
        { id: "with", action: "charge", stream: "tab-1", actor: ada, payload: { amount: 1 }, due, correlation: "c-9" },
        { id: "without", action: "charge", stream: "tab-1", actor: ada, payload: { amount: 2 }, due },
        { id: "gone", action: "charge", stream: "tab-2", actor: ada, payload: { amount: 3 }, due, correlation: "c-8" },
      ]);
      await source.timers?.cancel(["gone"], new Date());
      await copyStore(source, target);
      const [a, b] = [await source.timers?.list({}), await target.timers?.list({})];
      expect(a?.map((t) => [t.id, t.status, t.correlation])).toEqual([
        ["gone", "cancelled", "c-8"],
        ["with", "pending", "c-9"],
        ["without", "pending", undefined],
      ]);
      expect(b).toEqual(a);
      expect((await port(target).records()).timers).toEqual((await port(source).records()).timers);
      expect((await port(target).records()).timers.map((t) => t.correlation)).toEqual(["c-8", "c-9", undefined]);
    });
  });
}
