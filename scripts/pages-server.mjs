// The one static server that answers like GitHub Pages, shared by the e2e
// suite (e2e/server.mjs) and the speed benchmark (scripts/bench-site.mjs), so
// both see the site as readers will, not as `docusaurus serve` (whose
// clean-URL redirects differ):
//   /base          -> 301 to /base/
//   /base/x        -> x, else x.html, else 301 to /base/x/ when x/index.html exists
//   /base/x/       -> x/index.html
//   anything else  -> 404.html with HTTP 404
// Only GET and HEAD; nothing outside the served folder is ever read.
import { createReadStream, statSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize, resolve, sep } from "node:path";
import { createGzip } from "node:zlib";

export const TYPES = {
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
};
const COMPRESSIBLE = new Set([".html", ".js", ".mjs", ".css", ".json", ".svg", ".txt", ".md", ".xml", ".map"]);

function fileAt(path) {
  try {
    return statSync(path).isFile() ? path : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What a request path maps to under `root` served at `base`:
 * `{ file }`, `{ redirect }` or `{}` (not found).
 */
export function resolvePagesPath(root, base, pathname) {
  const baseNoSlash = base.replace(/\/$/, "");
  if (pathname === baseNoSlash) return { redirect: base };
  if (!pathname.startsWith(base)) return {};
  const rel = normalize(pathname.slice(base.length));
  if (rel === ".." || rel.startsWith(`..${sep}`)) return {};
  const target = join(root, rel);
  if (target !== root && !target.startsWith(root + sep)) return {};
  if (pathname.endsWith("/")) return { file: fileAt(join(target, "index.html")) };
  const exact = fileAt(target);
  if (exact) return { file: exact };
  const html = fileAt(`${target}.html`);
  if (html) return { file: html };
  if (fileAt(join(target, "index.html"))) return { redirect: `${pathname}/` };
  return {};
}

/**
 * An http.Server (not yet listening) for the built site in `root`.
 * Options: `base` ("/act-root/"), `gzip` (compress text when the client
 * accepts it, as Pages does; off for tests), `cacheControl` ("no-cache").
 */
export function createPagesServer({ root, base = "/act-root/", gzip = false, cacheControl = "no-cache" }) {
  const dir = resolve(root);
  const send = (req, res, status, file, headers = {}) => {
    const ext = extname(file);
    const compress = gzip && COMPRESSIBLE.has(ext) && /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
    res.writeHead(status, {
      "content-type": TYPES[ext] ?? "application/octet-stream",
      "cache-control": cacheControl,
      ...(gzip && { vary: "Accept-Encoding" }),
      ...(compress && { "content-encoding": "gzip" }),
      ...headers,
    });
    if (req.method === "HEAD") return res.end();
    const stream = createReadStream(file);
    (compress ? stream.pipe(createGzip({ level: 9 })) : stream).pipe(res);
  };
  const notFound = (req, res) => {
    const page = fileAt(join(dir, "404.html"));
    if (page) return send(req, res, 404, page);
    res.writeHead(404, { "content-type": "text/plain; charset=utf-8" });
    res.end("Not found");
  };
  return createServer((req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD" });
      return res.end();
    }
    const url = new URL(req.url ?? "/", "http://localhost");
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
    if (found.file) return send(req, res, 200, found.file);
    return notFound(req, res);
  });
}
