import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { type Committed, type Schemas, store } from "@act-root/act";
import { SqliteStore } from "@act-root/act-sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/server/http.js";
import { SqliteCatalog } from "../src/server/sqlite-catalog.js";
import { scenario, shop } from "./fixture.js";
import { bearer, signIn } from "./session.js";

const dir = mkdtempSync(join(tmpdir(), "inspector-sqlite-"));
const file = join(dir, "events.db");
let sqlite: SqliteStore;
let catalog: SqliteCatalog;
let readOnly: RunningServer;
let operations: RunningServer;

/** Each server's session, opened once with its printed link. */
const sessions = new Map<RunningServer, string>();

const get = async (s: RunningServer, path: string, init: RequestInit = {}) => {
  if (!sessions.has(s)) sessions.set(s, await signIn(s.url));
  const headers = new Headers(init.headers);
  headers.set("authorization", bearer(sessions.get(s)!).authorization);
  const res = await fetch(`http://127.0.0.1:${s.port}${path}`, { ...init, headers });
  return { status: res.status, body: await res.json() };
};
const unblock = (s: RunningServer) =>
  get(s, "/api/reactions/unblock", {
    method: "POST",
    body: JSON.stringify({ streams: ["order-poisoned"] }),
    headers: {
      "content-type": "application/json",
      origin: `http://127.0.0.1:${s.port}`,
      "sec-fetch-site": "same-origin",
    },
  });

beforeAll(async () => {
  sqlite = new SqliteStore({ filename: file });
  store(sqlite);
  await sqlite.seed();
  await scenario(shop());
  catalog = await SqliteCatalog.open(file);
  readOnly = await startServer({ store: sqlite, catalog });
  operations = await startServer({ store: sqlite, catalog, operations: true });
});

afterAll(async () => {
  await readOnly?.close();
  await operations?.close();
  await catalog?.close();
  await sqlite?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe("the inspector on a SQLite store", () => {
  it("lists streams by prefix, a page at a time", async () => {
    const all = await get(readOnly, "/api/streams");
    expect(all.body.streams.map((s: { stream: string }) => s.stream)).toEqual([
      "order-1",
      "order-2",
      "order-poisoned",
      "payment-order-1",
      "stock-tea",
    ]);
    const first = await get(readOnly, "/api/streams?prefix=order-&limit=2");
    expect(first.body).toMatchObject({ streams: [{ stream: "order-1" }, { stream: "order-2" }], next: "order-2" });
    const second = await get(readOnly, "/api/streams?prefix=order-&limit=2&after=order-2");
    expect(second.body.streams.map((s: { stream: string }) => s.stream)).toEqual(["order-poisoned"]);
    expect(second.body.next).toBeUndefined();
    expect((await get(readOnly, "/api/stream?name=stock-tea")).body).toMatchObject({ events: 1 });
    expect((await get(readOnly, "/api/stream?name=nope")).status).toBe(404);
    expect((await get(readOnly, "/api/info")).body).toMatchObject({ store: "sqlite events.db", mode: "store" });
  });

  it("follows causation three hops", async () => {
    const events: Committed<Schemas, string>[] = [];
    await sqlite.query((e) => void events.push(e as never), { stream: "order-1" });
    let id = events.find((e) => e.name === "OrderPlaced")!.id;
    const names: string[] = [];
    for (let hop = 0; hop < 3; hop++) {
      const { body } = await get(readOnly, `/api/event?id=${id}`);
      names.push(body.caused[0].name);
      id = body.caused[0].id;
    }
    expect(names).toEqual(["StockReserved", "PaymentCharged", "OrderShipped"]);
  });

  it("refuses to unblock when read-only, and unblocks with operations on", async () => {
    const refused = await unblock(readOnly);
    expect(refused.status).toBe(403);
    expect((await sqlite.reactions({ blocked: true })).map((r) => r.stream)).toEqual(["order-poisoned"]);
    const done = await unblock(operations);
    expect(done.body).toEqual({ unblocked: ["order-poisoned"] });
    expect(await sqlite.reactions({ blocked: true })).toEqual([]);
  });

  it("lists streams from the index (EXPLAIN QUERY PLAN), never reading the table through", () => {
    const plans = catalog.explain("order-");
    for (const plan of [plans.streams, plans.stream]) {
      expect(plan).toContain("act_events_stream_version");
      expect(plan).not.toMatch(/^SCAN (act_events|e|l|x)$/m);
    }
  });

  it("never creates a file that is not there", async () => {
    await expect(SqliteCatalog.open(join(dir, "missing.db"))).rejects.toThrow("No SQLite file at");
  });

  it("starts from the command line with --sqlite, and says the URL works once", async () => {
    const cli = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", "--sqlite", file], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, LOG_LEVEL: "fatal" },
    });
    try {
      const [line, hint] = await new Promise<string[]>((resolve, reject) => {
        cli.once("exit", (code) => reject(new Error(`act-inspector exited (${code})`)));
        const lines: string[] = [];
        createInterface({ input: cli.stdout! }).on("line", (l) => {
          if (lines.push(l) === 2) resolve(lines);
        });
      });
      expect(hint).toBe("The URL works once: keep the tab it opens (a reload stays signed in); restart for a new URL.");
      const printed = line.slice(line.indexOf("http"));
      const res = await fetch(`${new URL(printed).origin}/api/streams?prefix=stock`, {
        headers: bearer(await signIn(printed)),
      });
      expect((await res.json()).streams).toMatchObject([{ stream: "stock-tea", events: 1 }]);
      await expect(signIn(printed)).rejects.toThrow(/^403 This link was already used\./);
    } finally {
      const exited = new Promise((resolve) => cli.once("exit", resolve));
      cli.kill("SIGTERM");
      await exited;
    }
  });
});
