/**
 * What the Postgres store adds for reactions: wake-ups across processes
 * (LISTEN/NOTIFY), a read bound that only writers of the events table hold
 * back (with a warning naming a writer left open), and failures a caller can
 * branch on.
 */
import { inspect } from "node:util";
import { act, logger, StoreError, store } from "@act-root/act";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { PostgresStore } from "../src/index.js";
import * as q from "../src/sql.js";
import { Counter } from "./fixtures/states.js";
import { client, connectionString, makeStore, sleep, sql } from "./support.js";

const TABLE = "reactions";
const actor = { id: "u", name: "U" };
let pgStore: PostgresStore;

beforeAll(async () => {
  pgStore = makeStore({ table: TABLE, slowWriterMillis: 200 });
  store(pgStore);
  await pgStore.drop();
  await pgStore.seed();
});
afterAll(async () => {
  await pgStore.drop();
  await pgStore.dispose();
});

/** A client of another database on the same server. */
async function otherDatabase(): Promise<pg.Client> {
  if (!(await sql(`SELECT 1 FROM pg_database WHERE datname = 'act_other'`)).length)
    await sql(`CREATE DATABASE act_other`);
  const url = connectionString();
  const c = new pg.Client(
    url ? { connectionString: url.replace(/\/[^/?]*(\?|$)/, "/act_other$1") } : { database: "act_other" }
  );
  c.on("error", () => {});
  await c.connect();
  return c;
}

describe("open transactions elsewhere", () => {
  it("do not hold drains back, while a writer of the events table does and is named in a warning", async () => {
    const handled: number[] = [];
    const app = act()
      .with(Counter)
      .on("Incremented")
      .do(async (event) => void handled.push(event.data.by))
      .to("audit")
      .build();
    // A console left open in another database, and a report writing another table of this one.
    const elsewhere = await otherDatabase();
    await elsewhere.query("BEGIN; CREATE TABLE IF NOT EXISTS scratch (x int); INSERT INTO scratch VALUES (1)");
    await sql("CREATE TABLE IF NOT EXISTS public.unrelated (x int)");
    const report = await client();
    await report.query("BEGIN; INSERT INTO public.unrelated VALUES (1)");

    await app.do("increment", { stream: "a", actor }, { by: 1 });
    await app.drain();
    expect(handled).toEqual([1]);

    // A transaction that wrote the events table and stays open holds drains back…
    const writer = await client();
    await writer.query(`BEGIN; INSERT INTO public."${TABLE}" (id, stream, version, name, data, meta)
      VALUES ((pg_current_xact_id()::text::bigint << 16), 'late', 0, 'Incremented', '{"by":100}', '{"correlation":"x","causation":{}}')`);
    await app.do("increment", { stream: "b", actor }, { by: 2 });
    const warn = vi.spyOn(logger, "warn");
    await sleep(250);
    await app.drain();
    expect(handled).toEqual([1]);
    // …and is named, with its backend pid, once it has been open longer than slowWriterMillis.
    const pid = (await writer.query("SELECT pg_backend_pid() AS pid")).rows[0].pid;
    await vi.waitFor(() =>
      expect(warn.mock.calls.map((c) => String(c[0]))).toContainEqual(
        expect.stringMatching(new RegExp(`backend pid ${pid} has held a write transaction`))
      )
    );
    warn.mockRestore();
    await writer.query("COMMIT");
    for (let i = 0; i < 5 && handled.length < 3; i++) await app.drain();
    expect(handled).toEqual([1, 100, 2]);

    await report.query("ROLLBACK");
    await elsewhere.query("ROLLBACK");
    await Promise.all([report.end(), elsewhere.end(), writer.end()]);
  });
});

describe("wake-ups", () => {
  it("tell a subscriber of another store instance (another process) about a commit at once, not about a rollback", async () => {
    const listener = makeStore({ table: TABLE });
    const woken = vi.fn();
    const stop = listener.subscribe(woken);
    await sleep(200); // LISTEN is in place
    const rolledBack = await client();
    await rolledBack.query(`BEGIN; SELECT pg_notify('act:public.${TABLE}', ''); ROLLBACK`);
    await sleep(100);
    expect(woken).not.toHaveBeenCalled();
    await pgStore.commit({
      stream: "w",
      messages: [{ name: "Incremented", data: { by: 1 } }],
      meta: { correlation: "x", causation: {} },
    });
    await vi.waitFor(() => expect(woken).toHaveBeenCalled(), { timeout: 2_000, interval: 5 });
    stop();
    await listener.dispose();
    await rolledBack.end();
  });

  it("name the events committed: at once to this store's own subscribers, through the server to others, none when they do not fit", async () => {
    const listener = makeStore({ table: TABLE });
    const woken = vi.fn();
    const stopListener = listener.subscribe(woken);
    const own = vi.fn();
    const stopOwn = pgStore.subscribe(own);
    await sleep(200); // LISTEN is in place
    const meta = { correlation: "x", causation: {} };
    await pgStore.commit({
      stream: "named",
      messages: [
        { name: "Incremented", data: { by: 1 } },
        { name: "Reset", data: {} },
        { name: "Incremented", data: { by: 2 } },
      ],
      meta,
    });
    // This store's subscribers hear of it before the commit returns to its caller, without the server.
    expect(own).toHaveBeenCalledWith(["Incremented", "Reset"]);
    await vi.waitFor(() => expect(woken).toHaveBeenCalledWith(["Incremented", "Reset"]), {
      timeout: 2_000,
      interval: 5,
    });
    // Its own announcement, back from the server, does not wake them again.
    await sleep(100);
    expect(own).toHaveBeenCalledTimes(1);
    // Names beyond a notification's payload: the others are woken without names (anything may have been committed).
    woken.mockClear();
    const many = Array.from({ length: 400 }, (_, i) => ({ name: `Event-with-a-long-name-${i}`, data: {} }));
    await pgStore.commit({ stream: "many", messages: many, meta });
    await vi.waitFor(() => expect(woken).toHaveBeenCalled(), { timeout: 2_000, interval: 5 });
    expect(woken.mock.calls.every(([names]) => names === undefined)).toBe(true);
    expect(own.mock.calls.at(-1)?.[0]).toHaveLength(400);
    stopOwn();
    stopListener();
    await listener.dispose();
  });

  it("listen again after the connection is lost, and wake everyone once since something may have been missed", async () => {
    const listener = makeStore({ table: TABLE, applicationName: "act-listener-test" });
    const woken = vi.fn();
    listener.subscribe(woken);
    await sleep(200);
    await sql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'act-listener-test'`);
    await vi.waitFor(() => expect(woken).toHaveBeenCalled(), { timeout: 5_000, interval: 20 });
    woken.mockClear();
    await sleep(300);
    await pgStore.commit({
      stream: "w2",
      messages: [{ name: "Incremented", data: { by: 1 } }],
      meta: { correlation: "x", causation: {} },
    });
    await vi.waitFor(() => expect(woken).toHaveBeenCalled(), { timeout: 5_000, interval: 20 });
    await listener.dispose();
  });
});

describe("wake-ups with the longest names", () => {
  it("reach a subscriber when schema and table are 32 characters each (the channel name would pass 63 bytes)", async () => {
    const names = { schema: `s${"x".repeat(31)}`, table: `t${"y".repeat(31)}` };
    const writer = makeStore(names);
    const listener = makeStore(names);
    await writer.seed();
    const warn = vi.spyOn(logger, "warn");
    const woken = vi.fn();
    const stop = listener.subscribe(woken);
    try {
      await vi.waitFor(
        async () => {
          await writer.commit({
            stream: "long",
            messages: [{ name: "E", data: {} }],
            meta: { correlation: "x", causation: {} },
          });
          expect(woken).toHaveBeenCalled();
        },
        { timeout: 5_000, interval: 100 }
      );
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
      stop();
      await writer.drop();
      await writer.dispose();
      await listener.dispose();
    }
  });

  it("reach a subscriber when the channel name is exactly 63 bytes, and exactly 64", async () => {
    // `act:` + schema + `.` + table: 4 + 35 + 1 + 23 = 63 bytes fit as they are;
    // one more byte is one too many for PostgreSQL.
    const fits = { schema: "tenant_customer_accounts_production", table: "domain_events_v2_archiv" };
    const over = { schema: "tenant_customer_accounts_production", table: "domain_events_v2_archive" };
    expect(q.channel(fits.schema, fits.table)).toBe("act:tenant_customer_accounts_production.domain_events_v2_archiv");
    expect(Buffer.byteLength(q.channel(fits.schema, fits.table))).toBe(63);
    const hashed = q.channel(over.schema, over.table);
    expect(hashed).not.toBe("act:tenant_customer_accounts_production.domain_events_v2_archive");
    expect(Buffer.byteLength(hashed)).toBeLessThanOrEqual(63);

    const warn = vi.spyOn(logger, "warn");
    try {
      for (const names of [fits, over]) {
        const writer = makeStore(names);
        const listener = makeStore(names);
        await writer.seed();
        const woken = vi.fn();
        const stop = listener.subscribe(woken);
        try {
          await vi.waitFor(
            async () => {
              await writer.commit({
                stream: "edge",
                messages: [{ name: "E", data: {} }],
                meta: { correlation: "x", causation: {} },
              });
              expect(woken).toHaveBeenCalled();
            },
            { timeout: 5_000, interval: 100 }
          );
        } finally {
          stop();
          await writer.drop();
          await writer.dispose();
          await listener.dispose();
        }
      }
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it("keep two long names that differ only at the end on different channels that fit", () => {
    const a = q.channel(`s${"x".repeat(62)}`, `t${"y".repeat(47)}`);
    const b = q.channel(`s${"x".repeat(62)}`, `t${"y".repeat(46)}z`);
    expect(a).not.toBe(b);
    expect(Buffer.byteLength(a)).toBeLessThanOrEqual(63);
    expect(q.channel("public", "events")).toBe("act:public.events");
  });
});

describe("failures a caller can branch on", () => {
  it("reports a full pool as busy and retryable, not as a lost connection", async () => {
    const small = makeStore({ table: TABLE, max: 1, connectionTimeoutMillis: 200 });
    const hold = await client();
    await hold.query(`BEGIN; LOCK TABLE public."${TABLE}_watermarks" IN ACCESS EXCLUSIVE MODE`);
    const slow = small.poll({ lagging: 1, leading: 1 }).catch(() => undefined); // takes the only connection and waits on the lock
    await sleep(50);
    const error = await small.query(() => {}, { stream: "a" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ reason: "busy", retryable: true });
    expect((error as Error).message).toMatch(/pooled connections busy/);
    await hold.query("ROLLBACK");
    await slow;
    await hold.end();
    await small.dispose();
  });

  it("never shows the password when inspected, logged or serialised", async () => {
    const secret = makeStore({
      table: TABLE,
      password: "s3cret-pw",
      connectionString: "postgres://u:s3cret-pw@localhost:1/db",
    });
    expect(inspect(secret, { showHidden: true, depth: 10 })).not.toContain("s3cret");
    expect(JSON.stringify(secret)).not.toContain("s3cret");
    expect(String(Object.values(secret))).not.toContain("s3cret");
    await secret.dispose();
  });
});

describe("large results", () => {
  it("are read in pages, in order, forward and backward, with limits across pages", async () => {
    const meta = { correlation: "x", causation: {} };
    for (let i = 0; i < 5; i++)
      await pgStore.commit({
        stream: "big",
        messages: Array.from({ length: 500 }, (_, j) => ({ name: "Incremented", data: { by: i * 500 + j } })),
        meta,
      });
    const forward: number[] = [];
    expect(await pgStore.query((e) => forward.push(e.data.by as number), { stream: "big" })).toBe(2_500);
    expect(forward).toEqual(Array.from({ length: 2_500 }, (_, i) => i));
    const backward: number[] = [];
    await pgStore.query((e) => backward.push(e.data.by as number), { stream: "big", backward: true, limit: 1_700 });
    expect(backward).toEqual(Array.from({ length: 1_700 }, (_, i) => 2_499 - i));
    let across = 0;
    await pgStore.query(() => across++, { names: ["Incremented"], after: -1, limit: 1_200 });
    expect(across).toBe(1_200);
  });
});
