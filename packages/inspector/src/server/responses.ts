import { existsSync, readFileSync, statSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** An error with the status and the plain message the page shows. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string
  ) {
    super(message);
  }
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json",
  ".png": "image/png",
  ".ico": "image/x-icon",
};

/** Headers every response carries: no framing, no sniffing, no referrer, scripts only from here. */
const SECURITY_HEADERS = {
  "Content-Security-Policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
};

/** The built page: beside the built server (`dist/web`), or in `dist/web` when the server runs from its sources. */
export const defaultWebRoot = () => {
  const built = fileURLToPath(new URL("./web/", import.meta.url));
  return existsSync(built) ? built : fileURLToPath(new URL("../../dist/web/", import.meta.url));
};

/** Sends a JSON body with the security headers, never cached. */
export function send(res: ServerResponse, status: number, body: unknown) {
  if (res.headersSent) return res.end();
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    "Content-Type": "application/json; charset=utf-8",
    "Cache-Control": "no-store",
  });
  res.end(JSON.stringify(body));
}

/** Sends plain text with the security headers, never cached. */
export function sendText(res: ServerResponse, status: number, text: string) {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    "Content-Type": "text/plain; charset=utf-8",
    "Cache-Control": "no-store",
  });
  res.end(text);
}

/** Driver error codes that mean the database is unreachable or went away, not that the request was wrong. */
const DOWN = /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|ETIMEDOUT|EHOSTUNREACH|08\w{3}|57P\d{2})$/;

/**
 * SQLSTATEs with which a database refuses the inspector's own queries — the
 * catalog's listing of streams, which the store's error handling does not
 * cover: a role without the right to read a table (42501), a failed login
 * (28xxx), a database that does not exist (3D000), too many connections or
 * another lack of resources (53xxx). The store's endpoints answer these with
 * 503; so do the catalog's.
 */
const REFUSED = /^(42501|28\w{3}|3D000|53\w{3})$/;

/**
 * Answers a failed request: an {@link HttpError} with its status and message,
 * a validation error with 400, a store that is down or refuses with 503 and
 * anything else with 500 — the details of those only in the terminal.
 */
export function sendError(res: ServerResponse, error: unknown) {
  if (error instanceof HttpError) return send(res, error.status, { error: error.message });
  const e = error as { name?: string; reason?: string; retryable?: unknown; code?: string; message?: string };
  if (e?.name === "ValidationError" || e?.name === "ERR_VALIDATION")
    return send(res, 400, { error: e.message ?? "Invalid input." });
  // Store failures can carry driver messages (host names, user names): the
  // page gets the kind of failure, the terminal gets the details.
  console.error("act-inspector:", error);
  const storeError = typeof e?.retryable === "boolean" && typeof e?.reason === "string";
  const down =
    (e?.code && DOWN.test(e.code)) || (error as Error)?.message?.includes("timeout exceeded when trying to connect");
  const refused = !storeError && !down && typeof e?.code === "string" && REFUSED.test(e.code);
  if (storeError || down || refused)
    return send(res, 503, {
      error: `The store is not answering (${storeError ? e.reason : refused ? "refused" : "unreachable"}). Check that the database is up and that the inspector's role may read it; the inspector's terminal has the details.`,
    });
  return send(res, 500, { error: "The inspector failed to answer; its terminal has the details." });
}

/** Serves a file of the built page, or the page itself for any path it does not have (the page routes in the browser). */
export function sendStatic(res: ServerResponse, root: string, pathname: string) {
  const index = join(root, "index.html");
  if (!existsSync(index))
    return sendText(res, 500, "The inspector's page is not built: run `npm run build -w @act-root/inspector`.");
  let file = normalize(join(root, decodeURIComponent(pathname)));
  // Never serve anything outside the page's folder.
  if (!file.startsWith(root.endsWith(sep) ? root : root + sep) || !existsSync(file) || statSync(file).isDirectory())
    file = index;
  const hashed = file.includes(`${sep}assets${sep}`);
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    "Content-Type": TYPES[extname(file)] ?? "application/octet-stream",
    // Assets are named by their content: they can be kept; the page itself is always fresh.
    "Cache-Control": hashed ? "private, max-age=31536000, immutable" : "no-store",
  });
  res.end(readFileSync(file));
}
