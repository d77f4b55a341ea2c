/**
 * Reaction streams on PostgreSQL where the store's own code shapes what the
 * statements return, beyond what the shared conformance suite asks of every
 * store: poll's order of ties, what a registration hands back, a stream named twice in one call,
 * the listing's optional fields, the order of retired streams, an ack
 * without `done`, and the warning that names a slow writer.
 */
import { type Lease, logger } from "@act-root/act";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { PostgresStore } from "../src/index.js";
import { client, makeStore } from "./support.js";

const TABLE = "lease_tests";
const meta = { correlation: "c", causation: {} };
let store: PostgresStore;

beforeAll(async () => {
  store = makeStore({ table: TABLE, slowWriterMillis: 300 });
});

beforeEach(async () => {
  await store.drop();
  await store.seed();
});

afterEach(() => {
  vi.restoreAllMocks();
});

afterAll(async () => {
  await store.drop();
  await store.dispose();
});

/** A lease as correlation and drains write them: `stream` by `by` from watermark `at`. */
const lease = (stream: string, by: string, at: number, more: Partial<Lease> = {}): Lease => ({
  stream,
  by,
  at,
  retry: 0,
  ...more,
});

describe("poll", () => {
  it("orders streams at the same watermark by name in JavaScript's string order, as every store does, whatever the database's collation", async () => {
    const [e] = await store.commit({ stream: "s", messages: [{ name: "A", data: {} }], meta });
    // A fullwidth letter comes after an emoji in JavaScript (UTF-16 code units), before it in the database's byte order.
    await store.lease(
      ["\uFF21", "\u{1F600}", "b", "a"].map((stream) => lease(stream, "d", -1, { head: e.id })),
      0
    );
    const byName = ["a", "b", "\u{1F600}", "\uFF21"];
    expect((await store.poll({ lagging: 4, leading: 0 })).map((p) => p.stream)).toEqual(byName); // all lagging
    expect((await store.poll({ lagging: 0, leading: 4 })).map((p) => p.stream)).toEqual(byName); // all leading
  });
});

describe("registration", () => {
  it("hands back each stream once, as given, with the retries and done it stored", async () => {
    const [a, b] = await store.commit({
      stream: "s",
      messages: [
        { name: "A", data: {} },
        { name: "B", data: {} },
      ],
      meta,
    });
    await store.lease([lease("r", "d", -1, { head: b.id })], 0);
    const [granted] = await store.lease([lease("r", "d", -1)], 10_000);
    await store.ack([{ ...granted, at: a.id, retry: 2, done: [`${b.id}:x#1`] }]);
    const given = [
      lease("r", "corr", -1, { source: "s", head: b.id, reactions: ["x#1"] }),
      lease("q", "corr", -1, { source: "s", head: b.id }),
      lease("r", "corr", -1, { source: "s", head: b.id, reactions: ["x#1"] }),
    ];
    expect(await store.lease(given, 0)).toEqual([
      { ...given[0], retry: 2, done: [`${b.id}:x#1`] },
      { ...given[1], retry: 0, done: [] },
    ]);
  });
});

describe("a lease", () => {
  it("is granted once for a stream named twice in one call", async () => {
    const [e] = await store.commit({ stream: "s", messages: [{ name: "A", data: {} }], meta });
    await store.lease([lease("r", "d", -1, { head: e.id })], 0);
    const granted = await store.lease([lease("r", "d", -1), lease("r", "d", -1)], 10_000);
    expect(granted).toHaveLength(1);
    expect(granted[0]).toMatchObject({ stream: "r", by: "d", at: -1, head: e.id, retry: 0, done: [] });
    expect(await store.lease([granted[0]], 10_000)).toEqual([expect.objectContaining({ token: granted[0].token })]);
  });

  it("acknowledged below the stream's watermark leaves the watermark where it is", async () => {
    const [a, b] = await store.commit({
      stream: "s",
      messages: [
        { name: "A", data: {} },
        { name: "B", data: {} },
      ],
      meta,
    });
    await store.lease([lease("r", "d", -1, { head: b.id })], 0);
    const [first] = await store.lease([lease("r", "d", -1)], 10_000);
    await store.ack([{ ...first, at: a.id }]);
    const [second] = await store.lease([lease("r", "d", a.id)], 10_000);
    expect(await store.ack([{ ...second, at: -1 }])).toHaveLength(1);
    expect((await store.reactions({ streams: ["r"] }))[0].at).toBe(a.id);
  });

  it("is acknowledged only by its holder, even with the current token", async () => {
    const [e] = await store.commit({ stream: "s", messages: [{ name: "A", data: {} }], meta });
    await store.lease([lease("r", "d", -1, { head: e.id })], 0);
    const [granted] = await store.lease([lease("r", "d", -1)], 10_000);
    expect(await store.ack([{ ...granted, by: "other", at: e.id }])).toEqual([]);
    expect((await store.reactions({ streams: ["r"] }))[0]).toMatchObject({ at: -1, leasedBy: "d" });
  });

  it("acknowledged without done forgets the done of the attempt before", async () => {
    const [a, b] = await store.commit({
      stream: "s",
      messages: [
        { name: "A", data: {} },
        { name: "B", data: {} },
      ],
      meta,
    });
    await store.lease([lease("r", "d", -1, { head: b.id })], 0);
    const [first] = await store.lease([lease("r", "d", -1)], 10_000);
    await store.ack([{ ...first, retry: 1, done: [`${a.id}:x#1`] }]);
    const [second] = await store.lease([lease("r", "d", -1)], 10_000);
    expect(second.done).toEqual([`${a.id}:x#1`]);
    const { done: _, ...withoutDone } = second;
    expect(await store.ack([{ ...withoutDone, at: a.id }])).toHaveLength(1);
    const [third] = await store.lease([lease("r", "d", a.id)], 10_000);
    expect(third.done).toEqual([]);
  });
});

describe("the listing", () => {
  it("leaves out the source, error, holder and lease end a stream does not have", async () => {
    const [e] = await store.commit({ stream: "s", messages: [{ name: "A", data: {} }], meta });
    await store.lease([lease("r", "d", -1, { head: e.id })], 0);
    const [row] = await store.reactions();
    expect(row).toEqual({ stream: "r", at: -1, head: e.id, reactions: [], token: 0, retry: 0, blocked: false });
    expect(await store.reactions({ streams: ["r"] })).toEqual([row]);
  });

  it("lists only the streams that are not blocked, when asked", async () => {
    const [e] = await store.commit({ stream: "s", messages: [{ name: "A", data: {} }], meta });
    await store.lease([lease("a", "d", -1, { head: e.id }), lease("b", "d", -1, { head: e.id })], 0);
    const [granted] = await store.lease([lease("a", "d", -1)], 10_000);
    await store.block([{ ...granted, error: "boom" }]);
    expect((await store.reactions({ blocked: false })).map((r) => r.stream)).toEqual(["b"]);
    expect((await store.reactions({ blocked: true })).map((r) => r.stream)).toEqual(["a"]);
  });
});

describe("retire", () => {
  it("returns the streams it changed by name, whatever order the table holds them in", async () => {
    const [e] = await store.commit({ stream: "s", messages: [{ name: "A", data: {} }], meta });
    for (const stream of ["c", "a", "b"])
      await store.lease([lease(stream, "d", -1, { head: e.id, reactions: ["gone#1"] })], 0);
    expect(await store.retire(["gone#1"])).toEqual(["a", "b", "c"]);
  });
});

describe("a slow writer", () => {
  it("is named in a warning with the table it writes and how long its transaction has been open", async () => {
    const writer = await client();
    try {
      const opened = Date.now();
      await writer.query(`BEGIN; INSERT INTO public."${TABLE}" (id, stream, version, name, data, meta)
        VALUES ((pg_current_xact_id()::text::bigint << 16), 'late', 0, 'A', '{}', '{"correlation":"x","causation":{}}')`);
      const pid = (await writer.query("SELECT pg_backend_pid() AS pid")).rows[0].pid;
      const warn = vi.spyOn(logger, "warn");
      const named = () =>
        warn.mock.calls.map((c) => String(c[0])).filter((m) => m.includes(`backend pid ${pid} has held`));
      await vi.waitFor(
        async () => {
          await store.poll({ lagging: 10, leading: 10 });
          expect(named()).toHaveLength(1);
        },
        { timeout: 10_000, interval: 100 }
      );
      const seconds = Number(/open for (\d+) s/.exec(named()[0])?.[1]);
      expect(seconds).toBeLessThanOrEqual(Math.ceil((Date.now() - opened) / 1000));
      expect(named()[0]).toContain(`write transaction on "public"."${TABLE}" open for`);
    } finally {
      await writer.query("ROLLBACK");
      await writer.end();
    }
  });
});
