import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  act,
  CLOSE_EVENT,
  Closing,
  InMemoryStore,
  logger,
  StoreError,
  StreamArchivedError,
  StreamClosedError,
  state,
  type Store,
  ValidationError,
} from "../../src/index.js";
import { testClock } from "../../src/testing/index.js";

const ada = { id: "u-1", name: "Ada" };
const Tab = (shape = z.object({ total: z.number() })) =>
  state("Tab", shape)
    .init(() => ({ total: 0 }) as z.infer<typeof shape>)
    .emits({ Charged: z.object({ amount: z.number() }) })
    .patch({ Charged: ({ data }, s) => ({ total: s.total + data.amount }) })
    .on("charge", z.object({ amount: z.number() }))
    .emit(({ amount }) => ["Charged", { amount }])
    .build();

afterEach(() => vi.restoreAllMocks());

describe("closing a stream", () => {
  it("tells committed listeners, so a consumer wakes for the close event", async () => {
    const app = act().with(Tab()).build({ store: new InMemoryStore() });
    const committed = vi.fn();
    app.on("committed", committed);
    await app.close(Tab(), "t-1", { by: ada });
    expect(committed).toHaveBeenCalledOnce();
  });

  it("is an event reactions handle once the app registers Closing", async () => {
    const seen: string[] = [];
    const app = act()
      .with(Tab())
      .with(Closing)
      .on(CLOSE_EVENT)
      .do(async function onClosed(event) {
        seen.push(`${event.stream} by ${event.data.by.name}: ${event.data.reason}`);
      })
      .build({ store: new InMemoryStore() });
    await app.do("charge", { stream: "t-1", actor: ada }, { amount: 1 });
    await app.close(Tab(), "t-1", { by: ada, reason: "paid" });
    for (let i = 0; i < 3; i++) await app.drain();
    expect(seen).toEqual(["t-1 by Ada: paid"]);
  });

  it("refuses bad options, naming the field", async () => {
    const app = act().with(Tab()).build({ store: new InMemoryStore() });
    const bad = [
      { by: { id: "u-1" } },
      { by: ada, expectedVersion: -2 },
      { by: ada, continueAs: "" },
      { by: ada, continueAs: "t-1" },
    ];
    for (const options of bad)
      await expect(app.close(Tab(), "t-1", options as never)).rejects.toBeInstanceOf(ValidationError);
    await expect(app.close(Tab(), "", { by: ada })).rejects.toBeInstanceOf(ValidationError);
    await app.do("charge", { stream: "t-1", actor: ada }, { amount: 1 }); // nothing was closed
  });

  it("refuses an action with a stale expected version on a closed stream as closed, not as a conflict", async () => {
    const app = act().with(Tab()).build({ store: new InMemoryStore() });
    await app.do("charge", { stream: "t-1", actor: ada }, { amount: 1 });
    await app.close(Tab(), "t-1", { by: ada, reason: "paid" });
    const refused = await app
      .do("charge", { stream: "t-1", actor: ada, expectedVersion: 0 }, { amount: 1 })
      .catch((e) => e);
    expect(refused).toBeInstanceOf(StreamClosedError);
    expect(refused.message).toMatch(/Stream "t-1" was closed at .* by Ada \(u-1\): paid\. Nothing was committed/);
  });

  it("loads from the archive a stream whose summary an older definition wrote; refuses once it is purged", async () => {
    const store = new InMemoryStore();
    const clock = testClock(new Date(Date.now() + 60_000));
    const v1 = act().with(Tab()).build({ store, clock });
    await v1.do("charge", { stream: "t-1", actor: ada }, { amount: 5 });
    await v1.do("charge", { stream: "t-1", actor: ada }, { amount: 2 });
    await v1.close(Tab(), "t-1", { by: ada });
    await v1.archive({ afterMillis: 0 });
    // A new definition ignores the old summary: it folds the archived events instead.
    const changed = Tab(z.object({ total: z.number(), note: z.string().optional() }));
    const v2 = act().with(changed).build({ store, clock });
    expect((await v2.load(changed, "t-1")).state).toEqual({ total: 7 });
    clock.advance(1);
    await v2.purge({ afterMillis: 0 });
    const refused = await act()
      .with(changed)
      .build({ store })
      .load(changed, "t-1")
      .catch((e) => e);
    expect(refused).toBeInstanceOf(StreamArchivedError);
    expect(refused).toMatchObject({ stream: "t-1", version: 2, purged: true });
    expect(refused.message).toMatch(/Stream "t-1" was archived and purged: .*retention deleted them/);
  });

  it("refuses a time-travel load before the summary, naming where the events went", async () => {
    const store = new InMemoryStore();
    const app = act()
      .with(Tab())
      .build({ store, clock: testClock(new Date(Date.now() + 60_000)) });
    await app.do("charge", { stream: "t-1", actor: ada }, { amount: 5 });
    await app.close(Tab(), "t-1", { by: ada });
    await app.archive({ afterMillis: 0 });
    const refused = await app.load(Tab(), "t-1", { at: { version: 0 } }).catch((e) => e);
    expect(refused).toMatchObject({ stream: "t-1", version: 1, purged: false });
    expect(refused.message).toMatch(/app\.queryArchive\(\{ stream: "t-1" \}\)/);
  });
});

describe("archiving through an app", () => {
  it("refuses a store without an archive, and a bad policy, before anything moves", async () => {
    const bare = new InMemoryStore();
    const without = new Proxy(bare, {
      get: (target, key) => (key === "archive" ? undefined : Reflect.get(target, key, target)),
    }) as Store;
    const app = act().with(Tab()).build({ store: without });
    await expect(app.archive({ afterMillis: 0 })).rejects.toBeInstanceOf(StoreError);
    await expect(app.purge({ afterMillis: 0 })).rejects.toThrow(/keeps no archive \(Store\.archive\)/);
    const withArchive = act().with(Tab()).build({ store: new InMemoryStore() });
    for (const policy of [{ afterMillis: -1 }, { afterMillis: 1.5 }, {}, { afterMillis: 0, extra: 1 }])
      await expect(withArchive.archive(policy as never)).rejects.toBeInstanceOf(ValidationError);
    await expect(withArchive.purge({ afterMillis: -1 })).rejects.toBeInstanceOf(ValidationError);
  });

  it("logs what retention deleted, as a warning naming the streams", async () => {
    const warn = vi.spyOn(logger, "warn").mockImplementation(() => {});
    const clock = testClock(new Date(Date.now() + 60_000));
    const app = act().with(Tab()).build({ store: new InMemoryStore(), clock });
    await app.do("charge", { stream: "t-1", actor: ada }, { amount: 5 });
    await app.close(Tab(), "t-1", { by: ada });
    await app.archive({ afterMillis: 0 });
    expect(warn).not.toHaveBeenCalled();
    clock.advance(1);
    expect(await app.purge({ afterMillis: 0 })).toEqual({ events: 1, streams: ["t-1"] });
    expect(warn).toHaveBeenCalledWith(
      { events: 1, streams: ["t-1"] },
      "retention deleted 1 archived events of 1 streams for good"
    );
  });
});
