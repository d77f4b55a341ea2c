/**
 * The server's front door on an in-memory store (no database needed): the
 * one-use link, the session, the Host header and the request line, sent
 * byte for byte over a socket so that the test, not an HTTP client, decides
 * what they say.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryStore } from "@act-root/act";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StoreCatalog } from "../src/server/catalog.js";
import { type RunningServer, startServer } from "../src/server/http.js";
import { bearer, signIn } from "./session.js";

const store = new InMemoryStore();
const catalog = new StoreCatalog(store, "memory");
// A page of its own, so that these tests need no build of the real one.
const webRoot = join(mkdtempSync(join(tmpdir(), "inspector-http-")), "web");
mkdirSync(webRoot);
writeFileSync(join(webRoot, "index.html"), "<!doctype html><title>page</title>");
let server: RunningServer;
let other: RunningServer;
/** The session the tests use; opened with the printed link. */
let session: string;

const tokenOf = (link: string) => new URL(link).searchParams.get("token")!;

/** Sends one raw request; resolves with the status of the answer. */
function raw(port: number, head: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk) => {
      text += chunk;
    });
    socket.on("end", () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)));
    socket.on("error", reject);
    socket.write(`${head}\r\nConnection: close\r\n\r\n`);
  });
}

type Answer = { status: number; headers: Headers; body: string };

const answer = async (res: Response): Promise<Answer> => ({
  status: res.status,
  headers: res.headers,
  body: await res.text(),
});

/** Loads the page with a link's token, as a browser does with the printed URL. */
const load = async (s: RunningServer, token: string) =>
  answer(await fetch(`http://127.0.0.1:${s.port}/?token=${encodeURIComponent(token)}`, { redirect: "manual" }));

/** A GET of `target` with the given Host (none when null) and `Authorization: Bearer <session>` (none when ""). */
const get = (
  target: string,
  { host = `127.0.0.1:${server.port}`, credential = session }: { host?: string | null; credential?: string } = {}
) =>
  raw(
    server.port,
    [
      `GET ${target} HTTP/1.1`,
      ...(host === null ? [] : [`Host: ${host}`]),
      ...(credential === "" ? [] : [`Authorization: Bearer ${credential}`]),
    ].join("\r\n")
  );

/** `POST /api/session` with the link's token, as the page sends it. */
const trade = async (s: RunningServer, token: string) =>
  answer(
    await fetch(`http://127.0.0.1:${s.port}/api/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token }),
    })
  );

beforeAll(async () => {
  server = await startServer({ store, catalog, webRoot });
  other = await startServer({ store, catalog, webRoot });
  session = await signIn(server.url);
});

afterAll(async () => {
  await server?.close();
  await other?.close();
  rmSync(join(webRoot, ".."), { recursive: true, force: true });
});

describe("the printed link", () => {
  it("opens one session, once; a second use is refused with 403 and says what to do", async () => {
    const link = server.link();
    const first = await trade(server, tokenOf(link));
    expect(first.status).toBe(200);
    const opened = JSON.parse(first.body).session as string;
    expect(opened).toMatch(/^[\w-]{32}$/);
    expect(await get("/api/info", { credential: opened })).toBe(200);

    // The same link again, whether the page trades it or a browser loads it.
    const again = await trade(server, tokenOf(link));
    expect(again.status).toBe(403);
    const message = JSON.parse(again.body).error as string;
    expect(message).toMatch(/^This link was already used\./);
    expect(message).toContain("Go back to the browser tab it opened, or restart the inspector for a new link.");
    const page = await load(server, tokenOf(link));
    expect(page.status).toBe(403);
    expect(page.body).toBe(message);
    // The session it opened still works.
    expect(await get("/api/info", { credential: opened })).toBe(200);
  });

  it("is refused with 401 when it is not one of this server's", async () => {
    const wrong = await trade(server, tokenOf(other.link()));
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.body).error).toBe(
      "This link's token is not valid: open the URL the inspector printed when it started."
    );
    const page = await load(server, "nope");
    expect(page.status).toBe(401);
  });

  it("loads the page while it is unused, and the page's files need no session (they hold no data)", async () => {
    const link = server.link();
    const page = await load(server, tokenOf(link));
    expect(page.status).toBe(200);
    expect(page.body).toContain("<title>page</title>");
    expect(page.headers.get("cache-control")).toBe("no-store");
    // Loading the page does not use the link up: the page's script trades it.
    expect((await trade(server, tokenOf(link))).status).toBe(200);
    expect(await get("/", { credential: "" })).toBe(200);
  });

  it("sets no cookie: a browser would send it to every other port of 127.0.0.1", async () => {
    const link = server.link();
    const page = await load(server, tokenOf(link));
    const traded = await trade(server, tokenOf(link));
    expect(traded.status).toBe(200);
    for (const { headers } of [page, traded]) expect(headers.get("set-cookie")).toBeNull();
    // Nor does a cookie open anything: not the link's token, not the session.
    for (const value of [tokenOf(link), JSON.parse(traded.body).session, session]) {
      const res = await raw(
        server.port,
        `GET /api/info HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nCookie: act_inspector_${server.port}=${value}`
      );
      expect(res).toBe(401);
    }
  });

  it("is not a session itself", async () => {
    expect(await get("/api/info", { credential: tokenOf(server.link()) })).toBe(401);
    expect(await get("/api/info", { credential: tokenOf(server.url) })).toBe(401);
  });

  it("can be made again by the process that started the server, up to 100 waiting unused", async () => {
    const fresh = await startServer({ store, catalog });
    try {
      const links = Array.from({ length: 99 }, () => fresh.link());
      expect(new Set([fresh.url, ...links]).size).toBe(100);
      expect(() => fresh.link()).toThrow("100 links are waiting unused: open one of them before making more.");
      await signIn(links[0]);
      expect(fresh.link()).toMatch(/\/\?token=[\w-]{32}$/);
    } finally {
      await fresh.close();
    }
  });
});

describe("tokens and sessions", () => {
  it("are compared whole: no part of one, and nothing more, opens anything", async () => {
    const token = tokenOf(server.link());
    expect(token).toHaveLength(32);
    expect(session).toHaveLength(32);
    // One character off the end, one more, half of it: an attacker who could
    // get a partial match accepted would find a secret a character at a time.
    const variants = (secret: string) => ({
      "one character removed": secret.slice(0, -1),
      "one character added": `${secret}A`,
      "its first half": secret.slice(0, 16),
      "its first character": secret.slice(0, 1),
      "the last character changed": secret.slice(0, -1) + (secret.endsWith("A") ? "B" : "A"),
      "another secret of the same length": tokenOf(other.url),
    });
    for (const [what, guess] of Object.entries(variants(session))) {
      expect(guess === session, what).toBe(false);
      expect(await get("/api/info", { credential: guess }), what).toBe(401);
    }
    expect(await get("/api/info", { credential: "" })).toBe(401);
    for (const [what, guess] of Object.entries(variants(token))) {
      expect(guess === token, what).toBe(false);
      expect((await trade(server, guess)).status, `link: ${what}`).toBe(401);
      expect(await get(`/?token=${encodeURIComponent(guess)}`, { credential: "" }), `page: ${what}`).toBe(401);
    }
    // A used link's variants are wrong tokens (401), not the used link (403).
    const spent = tokenOf(server.url);
    for (const [what, guess] of Object.entries(variants(spent)))
      expect((await trade(server, guess)).status, `spent link: ${what}`).toBe(401);
    expect((await trade(server, token)).status).toBe(200);
  });

  it("a session goes in Authorization: Bearer, the scheme in any case, and nowhere else", async () => {
    const at = (header: string) =>
      raw(server.port, `GET /api/info HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n${header}`);
    expect(await at(`Authorization: Bearer ${session}`)).toBe(200);
    expect(await at(`Authorization: bearer ${session}`)).toBe(200);
    expect(await at(`Authorization: Basic ${session}`)).toBe(401);
    expect(await at(`Authorization: ${session}`)).toBe(401);
    expect(await at(`Authorization: Bearer ${session} ${session}`)).toBe(401);
    expect(await raw(server.port, `GET /api/info?session=${session} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}`)).toBe(
      401
    );
  });

  it("of one server open nothing on another", async () => {
    expect(
      await raw(
        other.port,
        `GET /api/info HTTP/1.1\r\nHost: 127.0.0.1:${other.port}\r\nAuthorization: Bearer ${session}`
      )
    ).toBe(401);
  });
});

describe("the Host header", () => {
  it("is answered only when it names this server, port included", async () => {
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, `LOCALHOST:${server.port}`])
      expect(await get("/api/info", { host }), host).toBe(200);
    // A page that rebinds its own name to 127.0.0.1 sends its name with our port.
    for (const host of [
      `evil.example:${server.port}`,
      `127.0.0.1:${other.port}`,
      `localhost:${other.port}`,
      "127.0.0.1",
      "evil.example",
      `127.0.0.1.evil.example:${server.port}`,
      `x127.0.0.1:${server.port}`,
    ])
      expect(await get("/api/info", { host }), host).toBe(421);
  });

  it("is required, and not empty", async () => {
    expect(await get("/api/info", { host: "" })).toBe(421);
    // HTTP/1.0 lets a client leave the header out.
    const none = await raw(server.port, `GET /api/info HTTP/1.0\r\nAuthorization: Bearer ${session}`);
    expect(none).toBe(421);
  });
});

describe("the request target", () => {
  it("must be a path: a full URL names another host, whatever Host says", async () => {
    for (const target of [
      "http://evil.example/api/info",
      `http://evil.example:${server.port}/api/info`,
      `http://127.0.0.1:${server.port}/api/info`,
      "//evil.example/api/info",
      "*",
    ])
      expect(await get(target), target).toBe(400);
  });

  it("is refused with 400 when a %-escape is broken or decodes to NUL", async () => {
    for (const target of [
      "/%E0%A4%A",
      "/%zz",
      "/assets/%",
      "/api/events?stream=%E0%A4%A",
      "/api/events?stream=%",
      "/api/events?stream=a%00b",
      "/api/events?str%00eam=a",
      "/api/stream?name=%00",
      "/%00",
      "/api/info%00",
    ])
      expect(await get(target), target).toBe(400);
    // Well-formed escapes still reach the handler.
    expect(await get("/api/stream?name=%E2%9C%93%20100%25")).toBe(404);
    expect(await get("/api/streams?prefix=a+b")).toBe(200);
  });
});

describe("a database that refuses the catalog's queries", () => {
  /** A catalog whose database refuses with `code`, as PostgreSQL's driver reports it. */
  const refusing = (code: string) =>
    Object.assign(Object.create(catalog), {
      streams: async () => {
        throw Object.assign(new Error(`refused (${code})`), { code });
      },
    });

  it("answers 503, as the store's endpoints do, naming no detail of the database", async () => {
    for (const code of ["42501", "28P01", "3D000", "53300"]) {
      const refused = await startServer({ store, catalog: refusing(code) });
      try {
        const res = await fetch(`${new URL(refused.url).origin}/api/streams`, {
          headers: bearer(await signIn(refused.url)),
        });
        expect(res.status, code).toBe(503);
        const { error } = (await res.json()) as { error: string };
        expect(error, code).toMatch(/^The store is not answering \(refused\)/);
        expect(error, code).not.toContain(code);
      } finally {
        await refused.close();
      }
    }
  });

  it("still answers 500 for a failure that is not the database refusing", async () => {
    const broken = await startServer({ store, catalog: refusing("42601") });
    try {
      const res = await fetch(`${new URL(broken.url).origin}/api/streams`, {
        headers: bearer(await signIn(broken.url)),
      });
      expect(res.status).toBe(500);
    } finally {
      await broken.close();
    }
  });
});
