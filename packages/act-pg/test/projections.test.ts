/**
 * `project` on PostgreSQL when a statement of the store fails: the caller
 * gets a `StoreError` that names `project` (so a drain retries it as the
 * store's failure, not the projection's), the projection's writes are
 * rolled back with it, and the stream's watermark does not move. An error of
 * the projection's own handler is thrown as it is.
 */
import { type Lease, StoreError } from "@act-root/act";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { PostgresStore } from "../src/index.js";
import { makeStore, sql } from "./support.js";

const TABLE = "project_failures";
const meta = { correlation: "c", causation: {} };
let store: PostgresStore;

beforeAll(async () => {
  store = makeStore({ table: TABLE });
  await store.drop();
  await store.seed();
  await sql("CREATE TABLE IF NOT EXISTS project_failures_model (key text PRIMARY KEY)");
});

afterEach(() => {
  vi.restoreAllMocks();
});

afterAll(async () => {
  await store.drop();
  await store.dispose();
  await sql("DROP TABLE IF EXISTS project_failures_model");
});

/** A projection stream with one event of work, leased by "d". */
async function leased(stream: string): Promise<Lease & { head: number }> {
  const [e] = await store.commit({ stream: `${stream}-source`, messages: [{ name: "A", data: {} }], meta });
  await store.lease([{ stream, by: "d", at: -1, retry: 0, head: e.id }], 0);
  const [granted] = await store.lease([{ stream, by: "d", at: -1, retry: 0 }], 10_000);
  return { ...granted, at: e.id, head: e.id };
}

const write = (key: string) => (client: pg.PoolClient) =>
  client.query("INSERT INTO project_failures_model (key) VALUES ($1)", [key]);
const written = async (key: string) =>
  (await sql("SELECT 1 FROM project_failures_model WHERE key = $1", [key])).length === 1;
const watermark = async (stream: string) => (await store.reactions({ streams: [stream] }))[0].at;

describe("project when the store's statements fail", () => {
  it("reports a refused acknowledgement as the store's failure and rolls the writes back", async () => {
    const lease = await leased("ack-fails");
    const error = await store
      .project(lease, async (client) => {
        await write("ack-fails")(client);
        // The acknowledgement that follows in the same transaction then finds no table.
        await client.query(`DROP TABLE public.${TABLE}_watermarks`);
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ operation: "project", reason: "rejected" });
    expect((error as Error).message).toMatch(/^PostgresStore project failed: relation .* does not exist/);
    expect(await written("ack-fails")).toBe(false);
    expect(await watermark("ack-fails")).toBe(-1); // the drop was rolled back too
  });

  it("reports a transaction that cannot begin as the store's failure, before the handler runs", async () => {
    const lease = await leased("begin-fails");
    const query = pg.Client.prototype.query;
    vi.spyOn(pg.Client.prototype, "query").mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      if (args[0] === "BEGIN") return Promise.reject(Object.assign(new Error("no transaction"), { code: "08006" }));
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as never);
    const work = vi.fn(write("begin-fails"));
    const error = await store.project(lease, work).catch((e: unknown) => e);
    vi.restoreAllMocks();
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ operation: "project", reason: "connection-lost", retryable: true });
    expect(work).not.toHaveBeenCalled();
    expect(await written("begin-fails")).toBe(false);
    expect(await store.project(lease, write("begin-fails"))).toBe(true); // the next call works
  });

  it("throws the handler's own error as it is, with nothing written", async () => {
    const lease = await leased("handler-fails");
    const failure = new Error("the read model refused it");
    await expect(
      store.project(lease, async (client) => {
        await write("handler-fails")(client);
        throw failure;
      })
    ).rejects.toBe(failure);
    expect(await written("handler-fails")).toBe(false);
    expect(await watermark("handler-fails")).toBe(-1);
  });

  it("names project when the database cannot be reached, and after dispose", async () => {
    const lease = await leased("unreachable");
    const nowhere = makeStore({
      connectionString: "postgres://postgres@127.0.0.1:1/postgres",
      connectionTimeoutMillis: 2000,
    });
    const unreachable = await nowhere.project(lease, write("unreachable")).catch((e: unknown) => e);
    expect(unreachable).toMatchObject({ operation: "project", reason: "unreachable", retryable: true });
    expect((unreachable as Error).message).toMatch(/^PostgresStore project could not reach the database/);
    await nowhere.dispose();
    const disposed = await nowhere.project(lease, write("unreachable")).catch((e: unknown) => e);
    expect(disposed).toMatchObject({ operation: "project", reason: "disposed", retryable: false });
    expect((disposed as Error).message).toMatch(/^PostgresStore project was called after the store was disposed/);
  });
});
