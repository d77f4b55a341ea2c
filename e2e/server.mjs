// A static file server that answers the way GitHub Pages does, so the e2e
// suite tests routing against real static hosting rather than `docusaurus
// serve` (whose clean-URL redirects differ):
//   /base/x        -> x.html if it exists, else 301 to /base/x/ when x/index.html exists
//   /base/x/       -> x/index.html
//   /base/x.html   -> that file
//   anything else  -> 404.html with HTTP 404
// Usage: node e2e/server.mjs [--port 4317] [--root build] [--base /act-root/] [--snapshot]
// --snapshot serves a private copy of the root (removed on exit), so a site
// build started meanwhile cannot change the files under a running test.
import { createServer } from "node:http";
import { cpSync, createReadStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, arg, i, all) => {
    if (arg.startsWith("--")) pairs.push([arg.slice(2), all[i + 1]]);
    return pairs;
  }, []),
);
const snapshot = process.argv.includes("--snapshot");
const port = Number(args.port ?? process.env.E2E_PORT ?? 4317);
const source = resolve(args.root && args.root !== "--snapshot" ? args.root : join(here, "..", "build"));
const copy = snapshot ? mkdtempSync(join(tmpdir(), "act-e2e-site-")) : undefined;
if (copy) {
  cpSync(source, copy, { recursive: true });
  process.on("exit", () => rmSync(copy, { recursive: true, force: true }));
}
const root = copy ?? source;
const base = args.base ?? "/act-root/";

const TYPES = {
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

function fileAt(path) {
  try {
    return statSync(path).isFile() ? path : undefined;
  } catch {
    return undefined;
  }
}

function send(req, res, status, file, headers = {}) {
  const type = TYPES[extname(file)] ?? "application/octet-stream";
  res.writeHead(status, { "content-type": type, "cache-control": "no-cache", ...headers });
  if (req.method === "HEAD") return res.end();
  createReadStream(file).pipe(res);
}

function notFound(req, res) {
  const page = fileAt(join(root, "404.html"));
  if (page) return send(req, res, 404, page);
  res.writeHead(404, { "content-type": "text/plain; charset=utf-8" });
  res.end("Not found");
}

/** Resolves a request path to a file, a redirect target or nothing. */
export function resolvePath(pathname) {
  const baseNoSlash = base.replace(/\/$/, "");
  if (pathname === baseNoSlash) return { redirect: base };
  if (!pathname.startsWith(base)) return {};
  const rel = normalize(pathname.slice(base.length));
  if (rel.startsWith("..")) return {};
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

const server = createServer((req, res) => {
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
  const found = resolvePath(pathname);
  if (found.redirect) {
    res.writeHead(301, { location: found.redirect + url.search });
    return res.end();
  }
  if (found.file) return send(req, res, 200, found.file);
  return notFound(req, res);
});

server.listen(port, "127.0.0.1", () => {
  console.log(`Serving ${source}${copy ? ` (copied to ${copy})` : ""} at http://127.0.0.1:${port}${base}`);
});
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
