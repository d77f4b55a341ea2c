// @ts-check
// The one static server that answers like GitHub Pages, shared by the e2e
// suite (e2e/server.mjs) and the speed benchmark (scripts/bench-site.mjs), so
// both see the site as readers will, not as `docusaurus serve` (whose
// clean-URL redirects differ):
//   /base          -> 301 to /base/
//   /base/x        -> x, else x.html, else 301 to /base/x/ when x/index.html exists
//   /base/x/       -> x/index.html
//   anything else  -> 404.html with HTTP 404
// Only GET and HEAD. Nothing outside the served folder is ever read: `..` in
// any spelling is refused, and a symbolic link is followed only when its
// target is inside the folder too.
import { close, createReadStream, open, realpathSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize, resolve, sep } from "node:path";
import { pipeline } from "node:stream";
import { createGzip } from "node:zlib";

/** @typedef {import("node:http").IncomingMessage} Request */
/** @typedef {import("node:http").ServerResponse<Request>} Response */

/** Content types by file extension; anything else is `application/octet-stream`. */
export const TYPES = /** @type {Record<string, string>} */ ({
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".ico": "image/x-icon",
  ".webp": "image/webp",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
  ".txt": "text/plain; charset=utf-8",
  ".md": "text/markdown; charset=utf-8",
  ".xml": "application/xml; charset=utf-8",
  ".map": "application/json; charset=utf-8",
});
const COMPRESSIBLE = new Set([".html", ".js", ".mjs", ".css", ".json", ".svg", ".txt", ".md", ".xml", ".map"]);

/**
 * Whether `path` is `folder` or inside it (both absolute, without `..`).
 *
 * @param {string} folder
 * @param {string} path
 */
const within = (folder, path) => path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);

/**
 * The real path of the regular file at `path`, when there is one and it lies
 * inside `realRoot` once every symbolic link is resolved; otherwise undefined.
 *
 * @param {string} path
 * @param {string} realRoot
 * @returns {string | undefined}
 */
function fileAt(path, realRoot) {
  try {
    const real = realpathSync(path);
    return within(realRoot, real) && statSync(real).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A decoded URL path in the form a `Location` header carries: each segment
 * percent-encoded, so a folder named in any script redirects.
 *
 * @param {string} pathname
 */
const encodePath = (pathname) => pathname.split("/").map(encodeURIComponent).join("/");

/**
 * What a decoded request path maps to under `root` served at `base`:
 * `{ file }` (the file's real path), `{ redirect }` (a percent-encoded path)
 * or `{}` (not found: also for every path that would leave `root`, whether by
 * `..` or by a symbolic link pointing outside it).
 *
 * @param {string} root
 * @param {string} base
 * @param {string} pathname
 * @returns {{ file?: string, redirect?: string }}
 */
export function resolvePagesPath(root, base, pathname) {
  const baseNoSlash = base.replace(/\/$/, "");
  if (pathname === baseNoSlash) return { redirect: encodePath(base) };
  if (!pathname.startsWith(base)) return {};
  const rel = normalize(pathname.slice(base.length));
  if (rel === ".." || rel.startsWith(`..${sep}`)) return {};
  let realRoot;
  try {
    realRoot = realpathSync(root);
  } catch {
    return {};
  }
  const target = join(realRoot, rel);
  if (!within(realRoot, target)) return {};
  if (pathname.endsWith("/")) {
    const index = fileAt(join(target, "index.html"), realRoot);
    return index ? { file: index } : {};
  }
  const file = fileAt(target, realRoot) ?? fileAt(`${target}.html`, realRoot);
  if (file) return { file };
  if (fileAt(join(target, "index.html"), realRoot)) return { redirect: encodePath(`${pathname}/`) };
  return {};
}

/**
 * Sends `file` with `status`. The file is opened before anything is sent, so
 * a file that cannot be read (gone since it was found, unreadable) answers
 * 500 instead of ending the process; an error while streaming, or a client
 * that goes away, ends the response and closes the file.
 *
 * @param {Request} req
 * @param {Response} res
 * @param {number} status
 * @param {string} file
 * @param {{ gzip?: boolean, cacheControl?: string }} [options]
 */
export function sendFile(req, res, status, file, { gzip = false, cacheControl = "no-cache" } = {}) {
  open(file, "r", (error, fd) => {
    if (error) {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
      res.end(`Cannot read ${extname(file) || "the file"}: ${error.code ?? "error"}`);
      return;
    }
    if (res.destroyed) return close(fd, () => {});
    const ext = extname(file);
    const compress = gzip && COMPRESSIBLE.has(ext) && /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
    res.writeHead(status, {
      "content-type": TYPES[ext] ?? "application/octet-stream",
      "cache-control": cacheControl,
      ...(gzip && { vary: "Accept-Encoding" }),
      ...(compress && { "content-encoding": "gzip" }),
    });
    if (req.method === "HEAD") {
      res.end();
      return close(fd, () => {});
    }
    // pipeline destroys every stream when one fails or the client closes the
    // connection early; destroying the read stream closes the descriptor.
    const stream = createReadStream("", { fd, autoClose: true });
    const done = () => {};
    if (compress) pipeline(stream, createGzip({ level: 9 }), res, done);
    else pipeline(stream, res, done);
  });
}

/**
 * An http.Server (not yet listening) for the built site in `root`.
 * Options: `base` ("/act-root/"), `gzip` (compress text when the client
 * accepts it, as Pages does; off for tests), `cacheControl` ("no-cache").
 *
 * @param {{ root: string, base?: string, gzip?: boolean, cacheControl?: string }} options
 */
export function createPagesServer({ root, base = "/act-root/", gzip = false, cacheControl = "no-cache" }) {
  const dir = resolve(root);
  /** @param {Request} req @param {Response} res */
  const notFound = (req, res) => {
    const page = resolvePagesPath(dir, "/", "/404.html").file;
    if (page) return sendFile(req, res, 404, page, { gzip, cacheControl });
    res.writeHead(404, { "content-type": "text/plain; charset=utf-8" });
    res.end("Not found");
  };
  return createServer((req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD" });
      return res.end();
    }
    let url;
    try {
      // An absolute-form target with a bad host or port does not parse.
      url = new URL(req.url ?? "/", "http://localhost");
    } catch {
      res.writeHead(400, { "content-type": "text/plain; charset=utf-8" });
      return res.end("Bad request");
    }
    let pathname;
    try {
      pathname = decodeURIComponent(url.pathname);
    } catch {
      return notFound(req, res);
    }
    if (pathname.includes("\0")) return notFound(req, res);
    const found = resolvePagesPath(dir, base, pathname);
    if (found.redirect) {
      res.writeHead(301, { location: found.redirect + url.search });
      return res.end();
    }
    if (found.file) return sendFile(req, res, 200, found.file, { gzip, cacheControl });
    return notFound(req, res);
  });
}
