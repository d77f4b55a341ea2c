/**
 * The server's front door on an in-memory store (no database needed): the
 * session token, the Host header and the request line, sent byte for byte
 * over a socket so that the test, not an HTTP client, decides what they say.
 */
import { connect } from "node:net";
import { InMemoryStore } from "@act-root/act";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StoreCatalog } from "../src/server/catalog.js";
import { type RunningServer, startServer } from "../src/server/http.js";

const store = new InMemoryStore();
const catalog = new StoreCatalog(store, "memory");
let server: RunningServer;
let other: RunningServer;

const tokenOf = (s: RunningServer) => new URL(s.url).searchParams.get("token")!;

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

/** A GET of `target` with the given Host (none when undefined) and the session cookie carrying `token`. */
const get = (
  target: string,
  { host = `127.0.0.1:${server.port}`, token = tokenOf(server) }: { host?: string | null; token?: string } = {}
) =>
  raw(
    server.port,
    [
      `GET ${target} HTTP/1.1`,
      ...(host === null ? [] : [`Host: ${host}`]),
      `Cookie: act_inspector_${server.port}=${token}`,
    ].join("\r\n")
  );

beforeAll(async () => {
  server = await startServer({ store, catalog });
  other = await startServer({ store, catalog });
});

afterAll(async () => {
  await server?.close();
  await other?.close();
});

describe("the session token", () => {
  it("opens the API whole and only whole", async () => {
    const token = tokenOf(server);
    expect(token).toHaveLength(32);
    expect(await get("/api/info")).toBe(200);
    // One character off the end, one more, half of it: an attacker who could
    // get a partial match accepted would find the token a character at a time.
    const wrong = {
      "one character removed": token.slice(0, -1),
      "one character added": `${token}A`,
      "its first half": token.slice(0, 16),
      "its first character": token.slice(0, 1),
      "the last character changed": token.slice(0, -1) + (token.endsWith("A") ? "B" : "A"),
      "another token of the same length": tokenOf(other),
      empty: "",
    };
    for (const [what, guess] of Object.entries(wrong)) {
      expect(guess === token, what).toBe(false);
      expect(await get("/api/info", { token: guess }), what).toBe(401);
      // The link that trades the token for a cookie holds it to the same rule.
      expect(await get(`/?token=${encodeURIComponent(guess)}`, { token: "" }), `link: ${what}`).toBe(401);
    }
    expect(await get(`/?token=${token}`, { token: "" })).toBe(303);
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
    const none = await raw(
      server.port,
      `GET /api/info HTTP/1.0\r\nCookie: act_inspector_${server.port}=${tokenOf(server)}`
    );
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
          headers: { cookie: `act_inspector_${refused.port}=${tokenOf(refused)}` },
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
        headers: { cookie: `act_inspector_${broken.port}=${tokenOf(broken)}` },
      });
      expect(res.status).toBe(500);
    } finally {
      await broken.close();
    }
  });
});
