import { z } from "zod";
import { act } from "../act-builder.js";
import { state } from "../builders/state-builder.js";
import { CLOSE_EVENT, StreamArchivedError, StreamClosedError } from "../core/closed-streams.js";
import { FORGOTTEN } from "../core/forgotten.js";
import { SNAP_EVENT } from "../core/schemas.js";
import type { Committed, Schemas } from "../types/action.js";
import type { Store } from "../types/ports.js";
import { testClock } from "./test-clock.js";
import type { TestApi } from "./test-api.js";

const actor = { id: "u-1", name: "User" };
const HOUR = 3_600_000;

/**
 * A member's card, built on first use (marking personal fields changes what
 * the process logs): the stream is the subject; a snapshot every third patch,
 * so a long-lived card has snapshots that move to the archive with its events.
 */
const models = () =>
  state("Member", z.object({ email: z.string(), visits: z.number() }))
    .init(() => ({ email: "", visits: 0 }))
    .emits({ Joined: z.object({ email: z.string() }), Visited: z.object({ page: z.string() }) })
    .patch({ Joined: ({ data }) => ({ email: data.email }), Visited: (_, s) => ({ visits: s.visits + 1 }) })
    .personal({ Joined: { fields: ["email"] } })
    .on("join", z.object({ email: z.string() }))
    .emit((p) => ["Joined", p])
    .on("visit", z.object({ page: z.string() }))
    .emit((p) => ["Visited", p])
    .snap((s) => s.patches >= 3)
    .build();
let built: ReturnType<typeof models> | undefined;
const Member = () => (built ??= models());

type Event = Committed<Schemas, string>;

/**
 * The part of the store conformance suite where personal data meets the
 * archive: a closed stream whose events were archived still loads after its
 * subject is forgotten (the archived events folded, the personal fields as
 * the placeholder), its archived snapshots are emptied with the log's, the
 * app reads the archive opened; once retention purged the events, the load
 * is refused naming the stream. Registered by {@link storeConformance} for a
 * store with both `keys` and `archive`.
 *
 * @param store - the store under test (seeded and empty before each test)
 * @param test - the test runner's functions
 */
export function lifecycleConformance(store: () => Store, test: TestApi): void {
  const { describe, expect, it } = test;
  /** An app whose clock is an hour ahead of the store's, so a stream closed now can be archived at once. */
  const appOn = (clock = testClock(new Date(Date.now() + HOUR))) =>
    act().with(Member()).build({ store: store(), clock });
  const archived = async (stream: string) => {
    const events: Event[] = [];
    await store().archive!.query<Schemas>((e) => events.push(e as Event), { stream, with_snaps: true });
    return events;
  };
  /** A member who joined and visited four times (a snapshot after the third patch), closed and archived. */
  const closedAndArchived = async (stream: string, clock = testClock(new Date(Date.now() + HOUR))) => {
    const app = appOn(clock);
    const target = { stream, actor };
    await app.do("join", target, { email: "eve@example.com" });
    for (const page of ["/a", "/b", "/c", "/d"]) await app.do("visit", target, { page });
    await app.close(Member(), stream, { by: actor });
    expect(await app.archive({ afterMillis: 0 })).toMatchObject({ streams: [stream], held: 0 });
    return app;
  };

  describe("personal data of archived streams", () => {
    it("loads a closed, archived stream after its subject is forgotten: the placeholder, the rest of the state", async () => {
      const app = await closedAndArchived("member-1");
      expect((await app.load(Member(), "member-1")).state).toEqual({ email: "eve@example.com", visits: 4 });
      const snapshots = (await archived("member-1")).filter((e) => e.name === SNAP_EVENT);
      expect(snapshots).toHaveLength(1); // the one written after the third patch moved with the events
      expect((snapshots[0].data as { state: unknown }).state).toMatch(/^act-pd:2:/);

      // The summary in the log and the snapshot in the archive, both emptied.
      expect(await app.forget("member-1")).toEqual({ subject: "member-1", versions: 1, snapshots: 2 });
      for (const e of (await archived("member-1")).filter((e) => e.name === SNAP_EVENT))
        expect(e.data).toEqual({ of: "[forgotten]", state: null });
      for (const reader of [app, appOn()])
        expect((await reader.load(Member(), "member-1")).state).toEqual({ email: FORGOTTEN, visits: 4 });
      const refused = await app.do("visit", { stream: "member-1", actor }, { page: "/e" }).catch((e) => e);
      expect(refused).toBeInstanceOf(StreamClosedError); // still closed
      expect(await app.forget("member-1")).toMatchObject({ snapshots: 0 }); // nothing left to empty
    });

    it("reads the archive through the app with personal fields opened, and the placeholder once forgotten", async () => {
      const app = await closedAndArchived("member-2");
      const raw = (await archived("member-2")).find((e) => e.name === "Joined");
      expect(raw?.data).toEqual({ email: expect.stringMatching(/^act-pd:2:/) }); // the store keeps it sealed
      const read: Event[] = [];
      const { count, first, last } = await app.queryArchive({ stream: "member-2" }, (e) => read.push(e as Event));
      expect(count).toBe(5);
      expect(read.map((e) => e.name)).toEqual(["Joined", "Visited", "Visited", "Visited", "Visited"]);
      expect(first?.data).toEqual({ email: "eve@example.com" });
      expect(last?.version).toBe(5); // the snapshot at version 3 is left out without with_snaps
      await app.forget("member-2");
      const { first: forgotten } = await app.queryArchive({ stream: "member-2", names: ["Joined"] });
      expect(forgotten?.data).toEqual({ email: FORGOTTEN });
    });

    it("refuses the load, naming the stream, once the archived events it needs were purged", async () => {
      const clock = testClock(new Date(Date.now() + HOUR));
      const app = await closedAndArchived("member-3", clock);
      clock.advance(1);
      expect(await app.purge({ afterMillis: 0 })).toEqual({ events: 6, streams: ["member-3"] });
      expect((await app.load(Member(), "member-3")).state).toEqual({ email: "eve@example.com", visits: 4 });
      await app.forget("member-3");
      const refused = await appOn()
        .load(Member(), "member-3")
        .catch((e) => e);
      expect(refused).toBeInstanceOf(StreamArchivedError);
      expect(refused).toMatchObject({ stream: "member-3", version: 6, purged: true });
      const names: string[] = [];
      await store().query((e) => names.push(e.name as string), { stream: "member-3", with_snaps: true });
      expect(names).toEqual([SNAP_EVENT, CLOSE_EVENT]); // the emptied summary and the close: the log holds no more
    });
  });
}
