import { type Committed, type Schemas, store } from "@act-root/act";
import { PostgresStore } from "@act-root/act-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { freePort } from "../../act-pg/tools/pg-server.js";
import { PgCatalog } from "../src/server/pg-catalog.js";
import { LogSearch } from "../src/server/search.js";
import { type RunningServer, startServer } from "../src/server/http.js";
import { inspect } from "../src/index.js";
import { scenario, type Shop, shop } from "./fixture.js";
import { bearer, signIn } from "./session.js";

const url = inject("pgUrl");
const schema = "inspector_api";
let pgStore: PostgresStore;
let catalog: PgCatalog;
let app: Shop;
/** Store mode, read-only. */
let readOnly: RunningServer;
/** Store mode with operations. */
let operations: RunningServer;
/** App mode with operations. */
let appMode: RunningServer;

type Call = { status: number; body: any; headers: Headers };

const base = (s: RunningServer) => `http://127.0.0.1:${s.port}`;
/** Each server's session, opened with a link of its own (the printed one works once). */
const sessions = new Map<RunningServer, string>();
const sessionOf = async (s: RunningServer) => {
  if (!sessions.has(s)) sessions.set(s, await signIn(s.link()));
  return sessions.get(s)!;
};

async function call(s: RunningServer, path: string, init: RequestInit & { signedIn?: boolean } = {}): Promise<Call> {
  const { signedIn = true, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (signedIn && !headers.has("authorization")) headers.set("authorization", bearer(await sessionOf(s)).authorization);
  const res = await fetch(base(s) + path, { ...rest, headers, redirect: "manual" });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // plain text (the page, or a message for a person)
  }
  return { status: res.status, body, headers: res.headers };
}

const post = (s: RunningServer, path: string, body: unknown, headers: Record<string, string> = {}) =>
  call(s, path, {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json", origin: base(s), "sec-fetch-site": "same-origin", ...headers },
  });

async function events(stream: string): Promise<Committed<Schemas, string>[]> {
  const all: Committed<Schemas, string>[] = [];
  await pgStore.query((e) => void all.push(e as never), { stream, with_snaps: true });
  return all;
}

beforeAll(async () => {
  pgStore = new PostgresStore({ connectionString: url, schema });
  store(pgStore);
  await pgStore.drop();
  await pgStore.seed();
  app = shop();
  await scenario(app);
  catalog = new PgCatalog({ connectionString: url, schema });
  readOnly = await startServer({ store: pgStore, catalog });
  operations = await startServer({ store: pgStore, catalog, operations: true });
  appMode = await inspect(app, { operations: true, catalog, print: false });
});

afterAll(async () => {
  await readOnly?.close();
  await operations?.close();
  await appMode?.close();
  await catalog?.close();
  await pgStore?.dispose();
});

describe("the session token", () => {
  it("is printed in a URL on 127.0.0.1", () => {
    expect(readOnly.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{32}$/);
  });

  it("opens one session; every endpoint needs a session, in Authorization: Bearer", async () => {
    for (const path of ["/api/info", "/api/streams", "/api/events?stream=order-1", "/api/reactions"]) {
      const res = await call(readOnly, path, { signedIn: false });
      expect(res.status, path).toBe(401);
      expect(res.body.error, path).toMatch(/^Not signed in: this tab has no inspector session/);
    }
    const wrong = await call(readOnly, "/api/info", { headers: bearer("nope") });
    expect(wrong.status).toBe(401);
    const session = await signIn(readOnly.url);
    expect((await call(readOnly, "/api/info", { headers: bearer(session) })).status).toBe(200);
    await expect(signIn(readOnly.url)).rejects.toThrow(/^403 This link was already used\./);
  });

  it("refuses a wrong token in the URL, and sets no cookie", async () => {
    const res = await call(readOnly, "/?token=not-the-token", { signedIn: false });
    expect(res.status).toBe(401);
    expect(res.headers.get("set-cookie")).toBeNull();
  });

  it("of one server does not open another", async () => {
    const res = await call(readOnly, "/api/info", { headers: bearer(await sessionOf(operations)) });
    expect(res.status).toBe(401);
  });

  it("is not enough from another host name (DNS rebinding)", async () => {
    // fetch forbids setting Host; node:http lets the test send it.
    const { request } = await import("node:http");
    const session = await sessionOf(readOnly);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port: readOnly.port,
          path: "/api/info",
          headers: { host: "evil.example", ...bearer(session) },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        }
      );
      req.on("error", reject);
      req.end();
    });
    expect(status).toBe(421);
  });
});

describe("GET /api/info", () => {
  it("says the mode and whether operations are on, and never the connection string", async () => {
    const res = await call(readOnly, "/api/info");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ mode: "store", operations: false, store: `postgres ${schema}.events` });
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(url);
    expect(text).not.toContain(String(new URL(url).port));
    expect((await call(appMode, "/api/info")).body).toMatchObject({
      mode: "app",
      operations: true,
      states: ["Order", "Stock", "Payment"],
    });
  });

  it("sends headers that keep the page from being framed or leaking its address", async () => {
    const res = await call(readOnly, "/api/info");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("cache-control")).toBe("no-store");
  });
});

describe("GET /api/streams", () => {
  it("lists streams with their event counts and last event time", async () => {
    const res = await call(readOnly, "/api/streams");
    expect(res.status).toBe(200);
    const names = res.body.streams.map((s: { stream: string }) => s.stream);
    expect(names).toEqual(["order-1", "order-2", "order-poisoned", "payment-order-1", "stock-tea"]);
    const order1 = res.body.streams[0];
    expect(order1.events).toBe((await events("order-1")).length);
    expect(new Date(order1.last).getTime()).toBeGreaterThan(0);
  });

  it("searches by prefix", async () => {
    const res = await call(readOnly, "/api/streams?prefix=order-");
    expect(res.body.streams.map((s: { stream: string }) => s.stream)).toEqual(["order-1", "order-2", "order-poisoned"]);
    expect((await call(readOnly, "/api/streams?prefix=zzz")).body.streams).toEqual([]);
  });

  it("pages with a cursor", async () => {
    const first = await call(readOnly, "/api/streams?prefix=order-&limit=2");
    expect(first.body.streams.map((s: { stream: string }) => s.stream)).toEqual(["order-1", "order-2"]);
    expect(first.body.next).toBe("order-2");
    const second = await call(readOnly, `/api/streams?prefix=order-&limit=2&after=${first.body.next}`);
    expect(second.body.streams.map((s: { stream: string }) => s.stream)).toEqual(["order-poisoned"]);
    expect(second.body.next).toBeUndefined();
  });

  it("refuses a bad limit", async () => {
    for (const limit of ["0", "abc", "501", "1.5"]) {
      const res = await call(readOnly, `/api/streams?limit=${limit}`);
      expect(res.status, limit).toBe(400);
      expect(res.body.error).toMatch(/limit/);
    }
  });
});

describe("GET /api/stream", () => {
  it("summarises one stream", async () => {
    const res = await call(readOnly, "/api/stream?name=stock-tea");
    expect(res.body).toMatchObject({ stream: "stock-tea", events: 1 });
  });

  it("says when the stream does not exist, and when the name is missing", async () => {
    const missing = await call(readOnly, "/api/stream?name=nope");
    expect(missing.status).toBe(404);
    expect(missing.body.error).toContain('No stream named "nope"');
    expect((await call(readOnly, "/api/stream")).status).toBe(400);
  });
});

describe("GET /api/events", () => {
  it("returns the timeline with snapshots and cuts large payloads", async () => {
    const res = await call(readOnly, "/api/events?stream=order-1");
    expect(res.status).toBe(200);
    const names = res.body.events.map((e: { name: string }) => e.name);
    expect(names).toContain("__snapshot__");
    expect(names).toContain("OrderShipped");
    const cup = res.body.events.find((e: any) => e.name === "ItemAdded" && e.truncated);
    expect(cup.truncated.data).toBeGreaterThan(5_000);
    expect(cup.data.length).toBeLessThan(2_100);
    const full = await call(readOnly, `/api/event?id=${cup.id}`);
    expect(full.body.event.data.note).toHaveLength(5_000);
  });

  it("filters by event name and pages by id", async () => {
    const placed = await call(readOnly, "/api/events?stream=order-1&names=OrderPlaced");
    expect(placed.body.events.map((e: { name: string }) => e.name)).toEqual(["OrderPlaced"]);
    const page = await call(readOnly, "/api/events?stream=order-1&limit=2");
    expect(page.body.events.map((e: { version: number }) => e.version)).toEqual([0, 1]);
    const next = await call(readOnly, `/api/events?stream=order-1&limit=2&after=${page.body.next}`);
    expect(next.body.events[0].version).toBe(2);
  });

  it("says when the stream is unknown or the cursor malformed", async () => {
    expect((await call(readOnly, "/api/events?stream=nope")).status).toBe(404);
    const bad = await call(readOnly, "/api/events?stream=order-1&after=12abc");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain("whole number");
  });
});

describe("GET /api/event: causation", () => {
  it("follows what an event caused, three hops across streams, and back", async () => {
    const placed = (await events("order-1")).find((e) => e.name === "OrderPlaced")!;
    const hop = async (id: number, expected: string) => {
      const res = await call(readOnly, `/api/event?id=${id}`);
      expect(res.status).toBe(200);
      expect(res.body.caused.map((e: { name: string }) => e.name)).toEqual([expected]);
      expect(res.body.next).toBeUndefined();
      return res.body.caused[0];
    };
    const reserved = await hop(placed.id, "StockReserved");
    const charged = await hop(reserved.id, "PaymentCharged");
    const shipped = await hop(charged.id, "OrderShipped");
    expect(shipped.stream).toBe("order-1");
    const back = await call(readOnly, `/api/event?id=${shipped.id}`);
    expect(back.body.cause).toMatchObject({ id: charged.id, name: "PaymentCharged", stream: "payment-order-1" });
    expect(back.body.caused).toEqual([]);
  });

  it("refuses a malformed id and says when no event has it", async () => {
    const bad = await call(readOnly, "/api/event?id=1;drop");
    expect(bad.status).toBe(400);
    expect((await call(readOnly, "/api/event")).status).toBe(400);
    const missing = await call(readOnly, "/api/event?id=1");
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe("No event with id 1.");
  });
});

describe("GET /api/correlation", () => {
  it("finds every event of a causal chain", async () => {
    const placed = (await events("order-1")).find((e) => e.name === "OrderPlaced")!;
    // Without an index on the correlation id a search stops at its time
    // budget and says where to go on from, as a busy server may well do:
    // the pages, followed as the page follows them, hold the whole chain.
    const found: { name: string }[] = [];
    let path = `/api/correlation?id=${encodeURIComponent(placed.meta.correlation)}`;
    for (let pages = 0; ; pages++) {
      expect(pages, "pages of one search").toBeLessThan(1_000);
      const res = await call(readOnly, path);
      expect(res.status).toBe(200);
      found.push(...res.body.events);
      if (res.body.next === undefined) break;
      path = `/api/correlation?id=${encodeURIComponent(placed.meta.correlation)}&after=${res.body.next}`;
    }
    expect(found.map((e) => e.name)).toEqual(["OrderPlaced", "StockReserved", "PaymentCharged", "OrderShipped"]);
    expect((await call(readOnly, "/api/correlation")).status).toBe(400);
  });

  it("starts a search without an index at the oldest event: a page per id range of the events, not of the ids below them", async () => {
    // PostgreSQL's ids are transaction ids shifted left, far above zero. With
    // no time budget every page reads one range of ids, so the pages count
    // how many ranges the search needed.
    const search = new LogSearch(pgStore, catalog, { millis: 0 });
    const placed = (await events("order-1")).find((e) => e.name === "OrderPlaced")!;
    expect(placed.id).toBeGreaterThan(1_000_000);
    let page = await search.search(placed.meta.correlation, -1, 100);
    const found = [...page.events];
    let pages = 1;
    for (; page.next !== undefined && pages < 100; pages++) {
      page = await search.search(placed.meta.correlation, page.next, 100);
      found.push(...page.events);
    }
    expect(found.map((e) => e.name)).toEqual(["OrderPlaced", "StockReserved", "PaymentCharged", "OrderShipped"]);
    expect(pages).toBeLessThan(100);
  });
});

describe("GET /api/state", () => {
  it("needs app mode", async () => {
    const res = await call(readOnly, "/api/state?stream=order-1&version=1");
    expect(res.status).toBe(409);
    expect(res.body.error).toContain("app mode");
  });

  it("rebuilds the state after a version, with what changed since the one before", async () => {
    const res = await call(appMode, "/api/state?stream=order-1&version=1");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      state: "Order",
      version: 1,
      before: { items: ["tea"], total: 3, status: "open" },
      after: { items: ["tea", "cup"], total: 8, status: "open" },
    });
    expect(res.body.changes).toEqual([
      { path: "items", kind: "changed", before: ["tea"], after: ["tea", "cup"] },
      { path: "total", kind: "changed", before: 3, after: 8 },
    ]);
    const first = await call(appMode, "/api/state?stream=order-1&version=0");
    expect(first.body.before).toEqual({ items: [], total: 0, status: "open" });
  });

  it("says when the version or the stream does not exist", async () => {
    expect((await call(appMode, "/api/state?stream=order-1&version=99")).status).toBe(404);
    expect((await call(appMode, "/api/state?stream=nope&version=0")).status).toBe(404);
    expect((await call(appMode, "/api/state?stream=order-1&version=x")).status).toBe(400);
  });
});

describe("reactions", () => {
  it("lists reaction streams with the blocked one and its reason", async () => {
    const res = await call(readOnly, "/api/reactions");
    expect(res.status).toBe(200);
    const poisoned = res.body.streams.find((s: { stream: string }) => s.stream === "order-poisoned");
    expect(poisoned).toMatchObject({ blocked: true });
    expect(poisoned.error).toContain("the warehouse refused the item");
    expect(res.body.operations).toBe(false);
  });

  it("counts lag in app mode", async () => {
    const res = await call(appMode, "/api/reactions");
    const poisoned = res.body.streams.find((s: { stream: string }) => s.stream === "order-poisoned");
    expect(poisoned.lag).toBe(1);
  });

  it("refuses operations when the server is read-only", async () => {
    const res = await post(readOnly, "/api/reactions/unblock", { streams: ["order-poisoned"] });
    expect(res.status).toBe(403);
    expect(res.body.error).toContain("Read-only");
    expect((await post(readOnly, "/api/reactions/reset", { streams: ["order-1"] })).status).toBe(403);
    expect((await pgStore.reactions({ blocked: true })).map((r) => r.stream)).toEqual(["order-poisoned"]);
  });

  it("refuses operations from another site", async () => {
    const crossSite = await post(
      operations,
      "/api/reactions/unblock",
      { streams: ["order-poisoned"] },
      {
        "sec-fetch-site": "cross-site",
      }
    );
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.error).toContain("another site");
    const otherOrigin = await post(
      operations,
      "/api/reactions/unblock",
      { streams: ["order-poisoned"] },
      {
        origin: "http://evil.example",
      }
    );
    expect(otherOrigin.status).toBe(403);
    const form = await call(operations, "/api/reactions/unblock", {
      method: "POST",
      body: "streams=order-poisoned",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
    expect((await pgStore.reactions({ blocked: true })).map((r) => r.stream)).toEqual(["order-poisoned"]);
  });

  it("refuses malformed operations and GETs on them", async () => {
    expect((await post(operations, "/api/reactions/unblock", { streams: [] })).status).toBe(400);
    expect((await post(operations, "/api/reactions/unblock", { streams: [1] })).status).toBe(400);
    const notJson = await call(operations, "/api/reactions/unblock", {
      method: "POST",
      body: "{",
      headers: { "content-type": "application/json" },
    });
    expect(notJson.status).toBe(400);
    expect((await call(operations, "/api/reactions/unblock")).status).toBe(405);
    expect((await call(operations, "/api/nothing")).status).toBe(404);
  });

  it("unblocks and resets with operations on", async () => {
    const unblocked = await post(operations, "/api/reactions/unblock", { streams: ["order-poisoned"] });
    expect(unblocked.status).toBe(200);
    expect(unblocked.body.unblocked).toEqual(["order-poisoned"]);
    expect(await pgStore.reactions({ blocked: true })).toEqual([]);
    const reset = await post(appMode, "/api/reactions/reset", { streams: ["stock-tea"] });
    expect(reset.body.reset).toEqual(["stock-tea"]);
    expect((await pgStore.reactions()).find((r) => r.stream === "stock-tea")?.at).toBe(-1);
  });
});

describe("the page's files", () => {
  it("are served from the page's folder only, whatever the path asks for", async () => {
    const { mkdtempSync, writeFileSync, mkdirSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const dir = mkdtempSync(join(tmpdir(), "inspector-web-"));
    mkdirSync(join(dir, "web", "assets"), { recursive: true });
    writeFileSync(join(dir, "web", "index.html"), "<!doctype html><title>page</title>");
    writeFileSync(join(dir, "web", "assets", "app.js"), "console.log(1)");
    writeFileSync(join(dir, "secret.txt"), "do not serve");
    const server = await startServer({ store: pgStore, catalog, webRoot: join(dir, "web") });
    const { request } = await import("node:http");
    // fetch would normalise the dots away; node:http sends the path as written.
    const raw = (path: string) =>
      new Promise<{ status: number; body: string; type: string }>((resolve, reject) => {
        const req = request({ host: "127.0.0.1", port: server.port, path }, (res) => {
          let body = "";
          res.on("data", (chunk) => {
            body += chunk;
          });
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, body, type: String(res.headers["content-type"]) })
          );
        });
        req.on("error", reject);
        req.end();
      });
    try {
      expect((await raw("/assets/app.js")).type).toContain("text/javascript");
      for (const path of ["/../secret.txt", "/..%2fsecret.txt", "/assets/..%2f..%2fsecret.txt"]) {
        const res = await raw(path);
        expect(res.body, path).not.toContain("do not serve");
        expect(res.type, path).toContain("text/html");
      }
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("says so when the page was not built", async () => {
    const server = await startServer({ store: pgStore, catalog, webRoot: "/nonexistent/web/" });
    try {
      const res = await call(server, "/");
      expect(res.status).toBe(500);
      expect(res.body).toContain("npm run build -w @act-root/inspector");
    } finally {
      await server.close();
    }
  });
});

describe("a store that is down", () => {
  it("gets a clear message that names no host, user or password", async () => {
    const port = await freePort();
    const dead = `postgres://secret_user:secret_pw@127.0.0.1:${port}/postgres`;
    const downStore = new PostgresStore({ connectionString: dead, connectionTimeoutMillis: 1_000 });
    const downCatalog = new PgCatalog({ connectionString: dead });
    const server = await startServer({ store: downStore, catalog: downCatalog });
    try {
      for (const path of ["/api/events?stream=order-1", "/api/reactions", "/api/streams", "/api/info"]) {
        const res = await call(server, path);
        expect(res.status, path).toBe(503);
        expect(res.body.error).toContain("The store is not answering");
        expect(JSON.stringify(res.body)).not.toMatch(/secret|127\.0\.0\.1/);
      }
    } finally {
      await server.close();
      await downCatalog.close();
      await downStore.dispose();
    }
  });
});

describe("the Postgres catalog's queries", () => {
  it("use the events table's indexes (EXPLAIN)", async () => {
    // Enough streams that the planner prefers an index to reading the table.
    const client = new pg.Client({ connectionString: url });
    client.on("error", () => {});
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS inspector_explain;
        DROP TABLE IF EXISTS inspector_explain.events;
        CREATE TABLE inspector_explain.events (id bigint PRIMARY KEY, stream text NOT NULL, version integer NOT NULL,
          name text NOT NULL, data json NOT NULL, meta json NOT NULL, created timestamptz NOT NULL DEFAULT now());
        CREATE UNIQUE INDEX events_stream_version ON inspector_explain.events (stream, version);
        INSERT INTO inspector_explain.events (id, stream, version, name, data, meta)
          SELECT g, 's-' || lpad((g / 10)::text, 6, '0'), g % 10, 'E', '{}', '{}' FROM generate_series(0, 49999) g;
        ANALYZE inspector_explain.events;`);
      const explainCatalog = new PgCatalog({ connectionString: url, schema: "inspector_explain" });
      try {
        const plans = await explainCatalog.explain("s-0001");
        expect(plans.streams).toMatch(/events_stream_(version|id)/);
        expect(plans.streams).not.toContain("Seq Scan");
        expect(plans.stream).toContain("events_stream_version");
        expect(plans.stream).not.toContain("Seq Scan");
        const page = await explainCatalog.streams("s-0001", undefined, 3);
        expect(page.streams.map((s) => s.stream)).toEqual(["s-000100", "s-000101", "s-000102"]);
        expect(page.streams[0].events).toBe(10);
      } finally {
        await explainCatalog.close();
      }
    } finally {
      await client.query("DROP SCHEMA inspector_explain CASCADE");
      await client.end();
    }
  });
});
