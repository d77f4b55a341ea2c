/**
 * Commits on PostgreSQL where the store's own code decides, beyond what the
 * shared conformance suite asks of every store: an empty commit's checks,
 * who is woken, failures the store reports, inline commits that collide with a concurrent one, the
 * purge of expired idempotency keys when it fails.
 */
import { ConcurrencyError, type EventMeta, logger, StoreError } from "@act-root/act";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { PostgresStore } from "../src/index.js";
import { MAX_EVENTS_PER_COMMIT } from "../src/sql.js";
import { makeStore, sql } from "./support.js";

const TABLE = "append_tests";
const meta: EventMeta = { correlation: "c", causation: {} };
const msg = (name: string) => ({ name, data: {} });
let store: PostgresStore;

beforeAll(async () => {
  store = makeStore({ table: TABLE });
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
  await sql("DROP FUNCTION IF EXISTS append_tests_refuse() CASCADE");
});

/** Resolves when another backend waits for a lock (a commit held up by a concurrent one's uncommitted row). */
const someoneWaits = () =>
  vi.waitFor(
    async () => {
      const rows = await sql(
        "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
      );
      expect(rows.length).toBeGreaterThan(0);
    },
    { timeout: 10_000, interval: 20 }
  );

describe("an empty commit", () => {
  it("checks the stream's last event id too", async () => {
    const [first] = await store.commit({ stream: "s", messages: [msg("A")], meta });
    const [second] = await store.commit({ stream: "s", messages: [msg("B")], meta });
    const stale = await store.commit({ stream: "s", messages: [], meta, lastId: first.id }).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(ConcurrencyError);
    expect(stale).toMatchObject({ stream: "s", lastVersion: 1 });
    expect(await store.commit({ stream: "s", messages: [], meta, expectedVersion: 1, lastId: second.id })).toEqual([]);
  });

  it("wakes no subscriber: there is nothing to react to", async () => {
    const heard: (readonly string[] | undefined)[] = [];
    const stop = store.subscribe((names) => heard.push(names));
    try {
      await store.commit({ stream: "s", messages: [], meta, expectedVersion: -1 });
      await store.commit({ stream: "s", messages: [msg("B")], meta });
      await vi.waitFor(() => expect(heard).toContainEqual(["B"]));
      expect(heard).not.toContainEqual([]);
    } finally {
      stop();
    }
  });
});

describe("a commit the store refuses", () => {
  it("is a StoreError naming the stream when the database refuses the insert, not a conflict to retry", async () => {
    await sql(`
      CREATE OR REPLACE FUNCTION append_tests_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'inserts refused'; END $$;
      CREATE TRIGGER refuse BEFORE INSERT ON public.${TABLE}
        FOR EACH STATEMENT EXECUTE FUNCTION append_tests_refuse();`);
    for (const expected of [undefined, -1]) {
      const error = await store
        .commit({ stream: "s", messages: [msg("A")], meta, expectedVersion: expected })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreError);
      expect(error).toMatchObject({ operation: 'commit to "s"', reason: "rejected", retryable: false });
      expect((error as Error).message).toMatch(/^PostgresStore commit to "s" failed: inserts refused/);
    }
  });

  it("names the stream when a recall fails", async () => {
    await store.drop();
    await expect(store.recall("s", "k")).rejects.toThrow(
      /^PostgresStore recall of "s" failed: relation .* does not exist/
    );
  });

  it("says how many events one commit can hold, and how many it got", async () => {
    const many = Array.from({ length: MAX_EVENTS_PER_COMMIT + 1 }, () => msg("E"));
    await expect(store.commit({ stream: "huge", messages: many, meta })).rejects.toThrow(
      `PostgresStore commit to "huge": at most ${MAX_EVENTS_PER_COMMIT} events per commit, got ${MAX_EVENTS_PER_COMMIT + 1}`
    );
  });

  it("names the meta when it cannot be stored as JSON", async () => {
    const bad = { correlation: "c", causation: { n: 10n } } as unknown as EventMeta;
    await expect(store.commit({ stream: "s", messages: [msg("A")], meta: bad })).rejects.toThrow(
      /^PostgresStore commit to "s": meta\.causation\.n is a bigint/
    );
  });
});

describe("an inline commit that collides with a concurrent one", () => {
  /** Starts an inline commit that holds its transaction open until `release` is called. */
  function held(stream: string) {
    let release!: () => void;
    let inside!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const entered = new Promise<void>((r) => {
      inside = r;
    });
    const done = store.commitInline({ stream, messages: [msg("First")], meta }, async () => {
      inside();
      await gate;
    });
    return { entered, release, done };
  }

  it("fails as a ConcurrencyError with the version it lost to, when it expected a version", async () => {
    await store.commit({ stream: "race", messages: [msg("Zero")], meta, expectedVersion: -1 });
    const first = held("race");
    await first.entered;
    const second = store
      .commitInline({ stream: "race", messages: [msg("Second")], meta, expectedVersion: 0 }, () => {})
      .catch((e: unknown) => e);
    await someoneWaits();
    first.release();
    await first.done;
    const error = await second;
    expect(error).toBeInstanceOf(ConcurrencyError);
    expect(error).toMatchObject({ stream: "race", lastVersion: 1, expectedVersion: 0 });
    expect((await store.commit({ stream: "race", messages: [msg("Next")], meta, expectedVersion: 1 }))[0].version).toBe(
      2
    );
  });

  it("commits on top of it when it expected no version", async () => {
    const first = held("free");
    await first.entered;
    const work = vi.fn();
    const second = store.commitInline({ stream: "free", messages: [msg("Second")], meta }, work);
    await someoneWaits();
    first.release();
    await first.done;
    const [event] = await second;
    expect(event).toMatchObject({ stream: "free", version: 1, name: "Second" });
    expect(work).toHaveBeenCalledTimes(1); // only for the attempt that committed
    const names: string[] = [];
    await store.query((e) => names.push(e.name), { stream: "free" });
    expect(names).toEqual(["First", "Second"]);
  });
});

describe("the purge of expired idempotency keys", () => {
  /** Makes every DELETE from the keys table fail, after `seconds`. */
  const refuseDeletes = (seconds = 0) =>
    sql(`
      CREATE OR REPLACE FUNCTION append_tests_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_sleep(${seconds}); RAISE EXCEPTION 'deletes refused'; END $$;
      CREATE TRIGGER refuse BEFORE DELETE ON public.${TABLE}_keys
        FOR EACH STATEMENT EXECUTE FUNCTION append_tests_refuse();`);

  it("logs a failure as a warning and leaves the commit alone", async () => {
    await refuseDeletes();
    const purging = makeStore({ table: TABLE });
    const warn = vi.spyOn(logger, "warn");
    try {
      const [event] = await purging.commit({
        stream: "k",
        messages: [msg("A")],
        meta,
        expectedVersion: -1,
        idempotencyKey: "key-1",
      });
      expect(event.version).toBe(0);
      await vi.waitFor(() =>
        expect(warn).toHaveBeenCalledWith(
          expect.objectContaining({
            message: expect.stringMatching(/^PostgresStore purge of expired idempotency keys failed: deletes refused/),
          }),
          "act-pg: could not purge expired idempotency keys; trying again later"
        )
      );
      expect(await purging.recall("k", "key-1")).toEqual({ from: 0, to: 0 });
    } finally {
      await purging.dispose();
    }
  });

  it("leaves a recall nothing to find once a key expired, purged or not", async () => {
    await refuseDeletes();
    const shortLived = makeStore({ table: TABLE, idempotencyMillis: 1 });
    vi.spyOn(logger, "warn").mockImplementation(() => undefined); // the refused purge's warning
    try {
      await shortLived.commit({
        stream: "k",
        messages: [msg("A")],
        meta,
        expectedVersion: -1,
        idempotencyKey: "key-1",
      });
      await vi.waitFor(async () => expect(await shortLived.recall("k", "key-1")).toBeUndefined());
      expect(await sql(`SELECT key FROM public.${TABLE}_keys`)).toEqual([{ key: "key-1" }]); // still stored
    } finally {
      await shortLived.dispose();
    }
  });

  it("logs nothing when it fails after the store was disposed", async () => {
    await refuseDeletes(0.2);
    const purging = makeStore({ table: TABLE });
    const warn = vi.spyOn(logger, "warn");
    await purging.commit({ stream: "k", messages: [msg("A")], meta, expectedVersion: -1, idempotencyKey: "key-1" });
    await purging.dispose(); // waits for the purge in flight, which fails meanwhile
    expect(warn).not.toHaveBeenCalled();
  });
});
