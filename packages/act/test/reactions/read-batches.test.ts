import { beforeEach, describe, expect, it } from "vitest";
import { act, store } from "../../src/index.js";
import { correlate } from "../../src/reactions/correlate.js";
import { readBatches } from "../../src/reactions/read-batches.js";
import { Account, actor, freshStore } from "../fixtures.js";

beforeEach(async () => {
  await freshStore();
});

/** An app whose reaction to each deposit targets `audit-<account>` (a resolver that names no source). */
const auditApp = () =>
  act()
    .with(Account)
    .on("Deposited")
    .do(async () => {})
    .to((event) => ({ target: `audit-${event.stream}` }))
    .build();

describe("readBatches", () => {
  it("reads each leased stream up to its own limit, from the shared reads and by id alike", async () => {
    const app = auditApp();
    for (let i = 0; i < 40; i++) await app.do("deposit", { stream: `acc-${i % 2}`, actor }, { amount: i });
    const { leased } = await correlate(store(), app.registry.events, "test", { after: -1, limit: 100 });
    const limits: Record<string, number> = { "audit-acc-0": 3, "audit-acc-1": 7 };
    const limit = (lease: { stream: string }) => limits[lease.stream];
    const shared = await readBatches(app.registry.events, leased, limit, store());
    expect(shared.map((batch) => [batch.lease.stream, batch.events.length])).toEqual([
      ["audit-acc-0", 3],
      ["audit-acc-1", 7],
    ]);
    // Known by id: every deposit's id, by account.
    const ids = new Map<string, number[]>();
    for (const batch of shared) ids.set(batch.lease.stream, []);
    await store().query((event) => ids.get(`audit-${event.stream}`)?.push(event.id), { names: ["Deposited"] });
    const exact = await readBatches(app.registry.events, leased, limit, store(), (lease) => ({
      ids: ids.get(lease.stream)!,
      to: lease.head!,
    }));
    expect(exact.map((batch) => batch.events.map((event) => event.id))).toEqual([
      ids.get("audit-acc-0")!.slice(0, 3),
      ids.get("audit-acc-1")!.slice(0, 7),
    ]);
    expect(exact.map((batch) => batch.end)).toEqual([ids.get("audit-acc-0")![2], ids.get("audit-acc-1")![6]]);
  });

  it("reads one page of the log for streams polled as leading, up to ten while a lagging one needs it", async () => {
    const app = auditApp();
    // 3,000 deposits over 100 accounts in turn: an account's events are one in a hundred of the log.
    for (let i = 0; i < 3_000; i++) await app.do("deposit", { stream: `acc-${i % 100}`, actor }, { amount: 1 });
    const { leased } = await correlate(store(), app.registry.events, "test", { after: -1, limit: 10_000 });
    const lease = leased.find((l) => l.stream === "audit-acc-0")!;
    const read = async (lagging: boolean | undefined) => {
      let events = 0;
      const log = store();
      const counted = Object.create(log, {
        query: {
          value: (callback: (event: never) => void, query: never) =>
            log.query((event) => {
              events++;
              callback(event as never);
            }, query),
        },
      });
      const [batch] = await readBatches(app.registry.events, [{ ...lease, lagging }], 25, counted);
      return { handled: batch.events.length, events };
    };
    // Leading only: one page of 1,000 events, the account's 10 in it.
    expect(await read(false)).toEqual({ handled: 10, events: 1_000 });
    // Lagging (or polled without saying): the pages its 25 events take — the
    // third ends at the stream's last event, the 2,901st of the log.
    expect(await read(true)).toEqual({ handled: 25, events: 2_901 });
    expect(await read(undefined)).toEqual({ handled: 25, events: 2_901 });
  });
});
