// @ts-check
// npx vitest run --project site scripts/pages-server.test.mjs — the Pages-like static server
// never serves a file outside its folder (whatever the spelling of `..`,
// whatever symbolic links point to), survives requests that used to end it,
// and closes every file it opens. Requests go out with node:http and the path
// exactly as written: `fetch` would normalise `..` away before the server
// sees it.
import assert from "node:assert/strict";
import { createServer, request } from "node:http";
import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll as after, beforeAll as before, describe, test } from "vitest";
import { gunzipSync } from "node:zlib";
import { createPagesServer, resolvePagesPath, sendFile } from "./pages-server.mjs";

const BASE = "/act-root/";
const SECRET = "the secret outside the served folder";
const BIG = 8 * 1024 * 1024;

const top = mkdtempSync(join(tmpdir(), "act-pages-server-"));
const root = join(top, "site");
const outside = join(top, "outside");
const big = join(root, "big.bin");

before(() => {
  const files = {
    "site/404.html": "not found page",
    "site/index.html": "home",
    "site/page.html": "page as file",
    "site/folder/index.html": "folder index",
    "site/café/index.html": "café index",
    "site/日本/index.html": "日本 index",
    "outside/secret.txt": SECRET,
    "outside/index.html": SECRET,
    "outside/secret.html": SECRET,
  };
  for (const [path, body] of Object.entries(files)) {
    mkdirSync(join(top, path, ".."), { recursive: true });
    writeFileSync(join(top, path), body);
  }
  writeFileSync(big, Buffer.alloc(BIG, 7));
  symlinkSync(outside, join(root, "link-out")); // a folder outside
  symlinkSync(join(outside, "secret.txt"), join(root, "secret-link.txt")); // a file outside
  symlinkSync(join(outside, "secret.html"), join(root, "secret-page.html")); // a page outside
  symlinkSync("page.html", join(root, "inner-link.html")); // a file inside: fine
  symlinkSync(root, join(top, "site-link")); // the served folder itself reached through a link
});
after(() => rmSync(top, { recursive: true, force: true }));

describe("resolvePagesPath", () => {
  test("maps paths like GitHub Pages: file, file.html, folder index, redirect to the folder", () => {
    assert.deepEqual(resolvePagesPath(root, BASE, "/act-root/"), { file: join(root, "index.html") });
    assert.deepEqual(resolvePagesPath(root, BASE, "/act-root/page"), { file: join(root, "page.html") });
    assert.deepEqual(resolvePagesPath(root, BASE, "/act-root/folder/"), { file: join(root, "folder/index.html") });
    assert.deepEqual(resolvePagesPath(root, BASE, "/act-root/folder"), { redirect: "/act-root/folder/" });
    assert.deepEqual(resolvePagesPath(root, BASE, "/act-root"), { redirect: "/act-root/" });
    assert.deepEqual(resolvePagesPath(root, BASE, "/act-root/nope"), {});
    assert.deepEqual(resolvePagesPath(root, BASE, "/elsewhere/page"), {});
  });

  test("a redirect to a folder named in any script is percent-encoded, as a Location header must be", () => {
    assert.deepEqual(resolvePagesPath(root, BASE, "/act-root/café"), { redirect: "/act-root/caf%C3%A9/" });
    assert.deepEqual(resolvePagesPath(root, BASE, "/act-root/日本"), { redirect: "/act-root/%E6%97%A5%E6%9C%AC/" });
    assert.deepEqual(resolvePagesPath(root, BASE, "/act-root/café/"), { file: join(root, "café/index.html") });
  });

  test("`..` never leaves the folder, at any depth", () => {
    for (const path of [
      "/act-root/../outside/secret.txt",
      "/act-root/folder/../../outside/secret.txt",
      "/act-root/..",
      "/act-root/../outside/",
      "/act-root/../outside/secret",
    ])
      assert.deepEqual(resolvePagesPath(root, BASE, path), {}, path);
  });

  test("a symbolic link is followed only when its target is inside the folder", () => {
    for (const path of [
      "/act-root/link-out/secret.txt",
      "/act-root/link-out/",
      "/act-root/link-out",
      "/act-root/secret-link.txt",
      "/act-root/secret-page",
      "/act-root/secret-page.html",
    ])
      assert.deepEqual(resolvePagesPath(root, BASE, path), {}, path);
    assert.deepEqual(resolvePagesPath(root, BASE, "/act-root/inner-link"), { file: join(root, "page.html") });
    // The served folder may itself be a link: its target is what counts.
    assert.deepEqual(resolvePagesPath(join(top, "site-link"), BASE, "/act-root/page"), {
      file: join(root, "page.html"),
    });
  });

  test("a folder that does not exist serves nothing", () => {
    assert.deepEqual(resolvePagesPath(join(top, "missing"), BASE, "/act-root/page"), {});
  });
});

/**
 * One request with the path exactly as given.
 *
 * @param {number} port
 * @param {string} path
 * @param {Record<string, string>} [headers]
 * @returns {Promise<{ status: number, headers: import("node:http").IncomingHttpHeaders, body: Buffer }>}
 */
function get(port, path, headers = {}) {
  return new Promise((done, fail) => {
    const req = request({ host: "127.0.0.1", port, path, headers, agent: false }, (res) => {
      const chunks = /** @type {Buffer[]} */ ([]);
      res.on("data", (chunk) => chunks.push(chunk));
      res.on("end", () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", fail);
    });
    req.on("error", fail);
    req.end();
  });
}

/**
 * Starts `server` on a free port of 127.0.0.1.
 *
 * @param {import("node:http").Server} server
 * @returns {Promise<number>}
 */
function listen(server) {
  return new Promise((done) =>
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      done(typeof address === "object" && address ? address.port : 0);
    })
  );
}

/** Descriptors this process holds open on `file`. */
function openOn(/** @type {string} */ file) {
  return readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(join("/proc/self/fd", fd)) === file;
    } catch {
      return false; // closed while listing
    }
  }).length;
}

describe("the server", () => {
  const server = createPagesServer({ root, base: BASE });
  let port = 0;
  before(async () => {
    port = await listen(server);
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  test("serves the folder's pages", async () => {
    const page = await get(port, "/act-root/page");
    assert.equal(page.status, 200);
    assert.equal(page.body.toString(), "page as file");
    assert.match(String(page.headers["content-type"]), /^text\/html/);
  });

  test("`..` spelt with encoded slashes or dots, and links out of the folder, get the 404 page, never the file", async () => {
    for (const path of [
      "/act-root/..%2foutside%2fsecret.txt",
      "/act-root/..%2Foutside/secret.txt",
      "/act-root/%2e%2e%2foutside%2fsecret.txt",
      "/act-root/.%2e/outside/secret.txt",
      "/act-root/folder/..%2f..%2foutside/secret.txt",
      "/act-root/%2e%2e/outside/secret.txt",
      "/act-root/../outside/secret.txt",
      "/act-root/..%2foutside%2fsecret",
      "/act-root/..%2foutside/",
      "/act-root/link-out/secret.txt",
      "/act-root/link-out/",
      "/act-root/secret-link.txt",
      "/act-root/secret-page",
    ]) {
      const response = await get(port, path);
      assert.equal(response.status, 404, path);
      assert.equal(response.body.toString(), "not found page", path);
    }
  });

  test("redirects to a folder with a non-ASCII name, and keeps answering", async () => {
    const cafe = await get(port, "/act-root/caf%C3%A9?q=1");
    assert.equal(cafe.status, 301);
    assert.equal(cafe.headers.location, "/act-root/caf%C3%A9/?q=1");
    const followed = await get(port, String(cafe.headers.location));
    assert.equal(followed.body.toString(), "café index");
    assert.equal((await get(port, "/act-root/%E6%97%A5%E6%9C%AC")).headers.location, "/act-root/%E6%97%A5%E6%9C%AC/");
    assert.equal((await get(port, "/act-root/page")).status, 200);
  });

  test("a request target that does not parse as a URL gets 400, and the server keeps answering", async () => {
    assert.equal((await get(port, "http://localhost:99999/act-root/")).status, 400);
    assert.equal((await get(port, "/act-root/%E0%A4%A")).status, 404); // not valid percent-encoding
    assert.equal((await get(port, "/act-root/page")).status, 200);
  });

  test("compresses text for a client that accepts gzip when asked to", async () => {
    const zipped = createPagesServer({ root, base: BASE, gzip: true });
    const zport = await listen(zipped);
    try {
      const page = await get(zport, "/act-root/page", { "accept-encoding": "gzip" });
      assert.equal(page.headers["content-encoding"], "gzip");
      assert.equal(gunzipSync(page.body).toString(), "page as file");
      const plain = await get(zport, "/act-root/page");
      assert.equal(plain.headers["content-encoding"], undefined);
      assert.equal(plain.body.toString(), "page as file");
    } finally {
      zipped.close();
    }
  });

  test("closes the file of every request the client abandons mid-body", async () => {
    assert.equal(openOn(big), 0);
    for (let i = 0; i < 10; i++)
      await new Promise((done, fail) => {
        const req = request({ host: "127.0.0.1", port, path: "/act-root/big.bin", agent: false }, (res) => {
          res.once("data", () => {
            req.destroy(); // the reader goes away after the first chunk
            done(undefined);
          });
        });
        req.on("error", (error) => (req.destroyed ? undefined : fail(error)));
        req.end();
      });
    // The server notices each closed connection on a later turn of its loop:
    // give it ample time (a leak never closes, however long the wait).
    for (let i = 0; i < 500 && openOn(big) > 0; i++) await new Promise((tick) => setTimeout(tick, 20));
    assert.equal(openOn(big), 0, "descriptors left open on the abandoned file");
    // And a full download still works afterwards.
    assert.equal((await get(port, "/act-root/big.bin")).body.length, BIG);
    assert.equal(openOn(big), 0);
  });
});

describe("sendFile", () => {
  test("answers 500 for a file that cannot be read (gone since it was found), and the process carries on", async () => {
    const server = createServer((req, res) => sendFile(req, res, 200, join(root, "vanished.html")));
    const port = await listen(server);
    try {
      for (let i = 0; i < 2; i++) {
        const response = await get(port, "/");
        assert.equal(response.status, 500);
        assert.match(response.body.toString(), /ENOENT/);
      }
    } finally {
      server.close();
    }
  });
});
