/**
 * The inspector's HTTP server: the JSON API the page reads and the page's
 * static files, on node:http.
 *
 * Sign-in: the printed URL carries a one-use token. The page trades it once
 * (`POST /api/session`) for a session credential, keeps that in the tab
 * (sessionStorage, which belongs to this origin, port included) and sends it
 * as `Authorization: Bearer …` on every API call. No cookie is set: browsers
 * send a cookie for 127.0.0.1 to every port of that host, so any other local
 * server the browser visits would receive it and could replay it.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Act, Committed, ReactionStream, Schemas, State, Store } from "@act-root/act";
import type { Catalog } from "./catalog.js";
import { diff } from "./diff.js";

/** How the server is started. */
export type ServerOptions = {
  /** The store to read (and, with `operations`, to unblock or reset reactions in). */
  readonly store: Store;
  /** Lists streams (see `Catalog`). */
  readonly catalog: Catalog;
  /** App mode: the app whose states and reactions the inspector may use. */
  readonly app?: Act<any, any, any>;
  /** Allow unblocking and resetting reaction streams (default false: read-only). */
  readonly operations?: boolean;
  /** Interface to listen on (default 127.0.0.1). */
  readonly host?: string;
  /** Port (default 0: any free port). */
  readonly port?: number;
  /** The printed URL's one-use token; random when omitted (tests pass their own). */
  readonly token?: string;
  /** Folder of the built page (default: the package's `dist/web`). */
  readonly webRoot?: string;
  /** Largest `data` or `meta` sent in a list, in characters of JSON; longer ones are cut (default 2,000). */
  readonly truncateAt?: number;
};

/**
 * A running inspector server.
 *
 * @example
 * ```ts
 * const inspector: RunningServer = await inspect(app, { print: false });
 * // The URL works once: open it in a browser on this machine.
 * console.log(inspector.url);
 * // Another browser needs a link of its own.
 * console.log(inspector.link());
 * await inspector.close();
 * ```
 */
export type RunningServer = {
  /**
   * The URL to open, with a one-use token: the first page that opens it
   * gets a session, and any later use is refused (403).
   */
  readonly url: string;
  /** The port it listens on, on 127.0.0.1. */
  readonly port: number;
  /**
   * Makes another one-use URL, for another browser (or a browser that lost
   * its tab). Each link opens one session; the sessions last until the
   * server stops.
   */
  link(): string;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
};

/** How many links may wait unused (`link()` called in a loop must not grow memory without bound). */
const MAX_LINKS = 100;
const MAX_BODY = 64 * 1024;
const MAX_LIMIT = 500;

const INVALID_LINK = "This link's token is not valid: open the URL the inspector printed when it started.";
const USED_LINK =
  "This link was already used. Each link the inspector prints opens one session, so that a copy of it (in the shell history, a log or another browser) cannot open a second one. Go back to the browser tab it opened, or restart the inspector for a new link.";
const SIGNED_OUT =
  "Not signed in: this tab has no inspector session, or its session ended when the inspector stopped. Open the URL the inspector printed (each one works once), or restart the inspector for a new one.";

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
const defaultWebRoot = () => {
  const built = fileURLToPath(new URL("./web/", import.meta.url));
  return existsSync(built) ? built : fileURLToPath(new URL("../../dist/web/", import.meta.url));
};

/** A committed event as the page receives it, its payloads possibly cut. */
type WireEvent = Omit<Committed<Schemas, string>, "data" | "meta"> & {
  data: unknown;
  meta: unknown;
  truncated?: { data?: number; meta?: number };
};

/** Starts the server; resolves once it listens. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const secret = () => randomBytes(24).toString("base64url");
  // Links not used yet, links used (kept to tell a replay from a wrong
  // token), and the sessions they opened. Each comparison is of whole
  // values, in constant time (see same()).
  const unused = [options.token ?? secret()];
  const used: string[] = [];
  const sessions: string[] = [];
  const host = options.host ?? "127.0.0.1";
  const webRoot = options.webRoot ?? defaultWebRoot();
  const truncateAt = options.truncateAt ?? 2_000;
  const { store, catalog, app } = options;
  const operations = options.operations === true;
  let port = 0;

  const cut = (e: Committed<Schemas, string>): WireEvent => {
    const out: WireEvent = { ...e };
    for (const key of ["data", "meta"] as const) {
      const json = JSON.stringify(e[key]) ?? "null";
      if (json.length > truncateAt) {
        out[key] = `${json.slice(0, truncateAt)}…`;
        out.truncated = { ...out.truncated, [key]: json.length };
      }
    }
    return out;
  };

  const eventById = async (id: number) => {
    let found: Committed<Schemas, string> | undefined;
    await store.query(
      (e) => {
        if (e.id === id) found = e as Committed<Schemas, string>;
      },
      { after: id - 1, before: id + 1, limit: 1, with_snaps: true }
    );
    return found;
  };

  /** Events that a reaction to `event` committed: same correlation, later, caused by it. */
  const causedBy = async (event: Committed<Schemas, string>, limit: number) => {
    const caused: Committed<Schemas, string>[] = [];
    let scanned = 0;
    await store.query(
      (e) => {
        scanned++;
        if (e.meta.causation.event?.id === event.id && caused.length < limit) caused.push(e as never);
      },
      { correlation: event.meta.correlation, after: event.id, limit: 1_000, with_snaps: false }
    );
    return { caused, complete: scanned < 1_000 };
  };

  const routes: Partial<Record<string, (url: URL, req: IncomingMessage) => Promise<unknown>>> = {
    "POST /api/session": async (_url, req) => {
      const body = await jsonBody(req);
      const given = (body as { token?: unknown })?.token;
      if (typeof given !== "string" || !given) throw new HttpError(400, 'Give the link\'s token as { "token": "…" }.');
      const at = unused.findIndex((t) => same(given, t));
      if (at < 0) throw linkRefusal(given);
      used.push(...unused.splice(at, 1));
      const session = secret();
      sessions.push(session);
      return { session };
    },

    "GET /api/info": async () => ({
      mode: app ? "app" : "store",
      operations,
      store: catalog.label,
      correlationIndexed: await catalog.correlationIndexed(),
      states: app ? statesOf(app).map((s) => s.name) : [],
    }),

    "GET /api/streams": async (url) => {
      const prefix = url.searchParams.get("prefix") ?? "";
      if (prefix.length > 200) throw new HttpError(400, "The prefix is too long (200 characters at most).");
      const after = url.searchParams.get("after") ?? undefined;
      return catalog.streams(prefix, after, limitOf(url, 50));
    },

    "GET /api/stream": async (url) => {
      const name = required(url, "name");
      const summary = await catalog.stream(name);
      if (!summary) throw new HttpError(404, `No stream named ${JSON.stringify(name)}: it has no events.`);
      return summary;
    },

    "GET /api/events": async (url) => {
      const stream = required(url, "stream");
      const after = optionalId(url, "after");
      const names = url.searchParams.get("names")?.split(",").filter(Boolean);
      const limit = limitOf(url, 200);
      const events: WireEvent[] = [];
      await store.query((e) => void events.push(cut(e as Committed<Schemas, string>)), {
        stream,
        with_snaps: true,
        limit: limit + 1,
        ...(after !== undefined && { after }),
        ...(names?.length && { names }),
      });
      if (events.length === 0 && after === undefined && !names?.length && !(await catalog.stream(stream)))
        throw new HttpError(404, `No stream named ${JSON.stringify(stream)}: it has no events.`);
      const page = events.slice(0, limit);
      return { events: page, ...(events.length > limit && { next: page[page.length - 1].id }) };
    },

    "GET /api/event": async (url) => {
      const id = optionalId(url, "id");
      if (id === undefined) throw new HttpError(400, "Give the event's id, a whole number.");
      const event = await eventById(id);
      if (!event) throw new HttpError(404, `No event with id ${id}.`);
      const cause = event.meta.causation.event ? await eventById(event.meta.causation.event.id) : undefined;
      const { caused, complete } = await causedBy(event, 100);
      return { event, cause: cause ?? null, caused, complete };
    },

    "GET /api/correlation": async (url) => {
      const correlation = required(url, "id");
      const after = optionalId(url, "after");
      const limit = limitOf(url, 100);
      const events: WireEvent[] = [];
      await store.query((e) => void events.push(cut(e as Committed<Schemas, string>)), {
        correlation,
        limit: limit + 1,
        ...(after !== undefined && { after }),
      });
      const page = events.slice(0, limit);
      return { events: page, ...(events.length > limit && { next: page[page.length - 1].id }) };
    },

    "GET /api/state": async (url) => {
      if (!app) throw new HttpError(409, "State at a version needs app mode: start the inspector with inspect(app).");
      const stream = required(url, "stream");
      const version = optionalId(url, "version");
      if (version === undefined) throw new HttpError(400, "Give the version, a whole number.");
      const summary = await catalog.stream(stream);
      if (!summary) throw new HttpError(404, `No stream named ${JSON.stringify(stream)}: it has no events.`);
      if (version >= summary.events)
        throw new HttpError(
          404,
          `Stream ${JSON.stringify(stream)} has no version ${version} (last: ${summary.events - 1}).`
        );
      const state = await stateOf(app, store, stream);
      if (!state) throw new HttpError(404, `None of the app's states emits the events of ${JSON.stringify(stream)}.`);
      const now = await app.load(state, stream, undefined, { version });
      const before = version > 0 ? await app.load(state, stream, undefined, { version: version - 1 }) : undefined;
      const previous = before?.state ?? state.init();
      return {
        state: state.name,
        version,
        event: now.event ?? null,
        after: now.state,
        before: previous,
        changes: diff(previous, now.state),
      };
    },

    "GET /api/reactions": async (url) => {
      const limit = limitOf(url, 200);
      const blocked = url.searchParams.get("blocked");
      const streams: Array<ReactionStream & { lag?: number }> = await store.reactions({
        limit,
        ...(blocked !== null && { blocked: blocked === "true" }),
      });
      if (app) {
        // Only the app knows which later events route to a stream, so only app mode can count lag.
        const { streams: stats } = await app.stats(1_000);
        const lag = new Map(stats.map((s) => [s.stream, s.lag]));
        return { operations, streams: streams.map((s) => ({ ...s, lag: lag.get(s.stream) })) };
      }
      return { operations, streams };
    },

    "POST /api/reactions/unblock": async (_url, req) => {
      const streams = await streamsBody(req);
      const done = app ? await app.unblock(...streams) : await store.unblock(streams);
      return { unblocked: done };
    },

    "POST /api/reactions/reset": async (_url, req) => {
      const streams = await streamsBody(req);
      const done = app ? await app.reset(...streams) : await store.reset(streams);
      return { reset: done };
    },
  };

  /** Why a link's token is refused: already used (403), or not one of ours (401). */
  const linkRefusal = (given: string) =>
    used.some((t) => same(given, t)) ? new HttpError(403, USED_LINK) : new HttpError(401, INVALID_LINK);

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    // Only a path is answered. A full URL as the target (`GET http://other/…`,
    // the form proxies receive) names a host of its own, which by the HTTP
    // rules takes the place of the Host header checked below.
    const target = req.url ?? "";
    if (!target.startsWith("/") || target.startsWith("//"))
      return send(res, 400, { error: "The request target must be a path." });
    // A page on another site resolving its own name to 127.0.0.1 (DNS
    // rebinding) sends its own Host header: only ours is answered.
    if (!allowedHost(req.headers.host, port))
      return send(res, 421, { error: "This server answers only to 127.0.0.1 and localhost." });
    const url = new URL(target, "http://localhost");
    // A broken %-escape would otherwise fail deep in a handler (a 500), and
    // a NUL would reach the store, which some databases refuse in text.
    if (!wellFormed(url)) return send(res, 400, { error: "The address has a malformed %-escape or a NUL character." });

    if (url.pathname.startsWith("/api/")) {
      // Every endpoint but the exchange itself needs a session.
      const exchange = url.pathname === "/api/session";
      const credential = bearerOf(req);
      if (!exchange && !sessions.some((s) => same(credential, s))) return send(res, 401, { error: SIGNED_OUT });
      const route = routes[`${req.method} ${url.pathname}`];
      if (!route) {
        const other = routes[`${req.method === "GET" ? "POST" : "GET"} ${url.pathname}`];
        return send(res, other ? 405 : 404, {
          error: other ? `Use ${req.method === "GET" ? "POST" : "GET"}.` : "No such endpoint.",
        });
      }
      if (req.method === "POST") {
        if (!operations && !exchange)
          return send(res, 403, {
            error: "Read-only: operations are off. Restart the inspector with --operations to allow them.",
          });
        const refusal = crossSite(req, port);
        if (refusal) return send(res, 403, { error: refusal });
      }
      try {
        return send(res, 200, await route(url, req));
      } catch (error) {
        return sendError(res, error);
      }
    }
    if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, { error: "Only GET here." });
    // The page's own files hold no data and are served to anyone who may
    // reach the port; the data is behind the API, which needs a session. A
    // link that cannot open one is refused here already, so that a second
    // use of the printed URL says why instead of loading a page that fails.
    const given = url.searchParams.get("token");
    if (given !== null && !unused.some((t) => same(given, t))) {
      const refusal = linkRefusal(given);
      return sendText(res, refusal.status, refusal.message);
    }
    return sendStatic(res, webRoot, url.pathname);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error) => sendError(res, error));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address();
  port = typeof address === "object" && address ? address.port : 0;
  const shown = host.includes(":") ? `[${host}]` : host;
  const linkOf = (token: string) => `http://${shown}:${port}/?token=${token}`;
  return {
    url: linkOf(unused[0]),
    port,
    link: () => {
      if (unused.length >= MAX_LINKS)
        throw new Error(`${MAX_LINKS} links are waiting unused: open one of them before making more.`);
      const token = secret();
      unused.push(token);
      return linkOf(token);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The app's states, each once. */
export function statesOf(app: Act<any, any, any>): State<any, any, any>[] {
  return [...new Set(Object.values(app.registry.actions) as State<any, any, any>[])];
}

/** The state that emits the stream's first event (the first one that is not a snapshot). */
async function stateOf(app: Act<any, any, any>, store: Store, stream: string) {
  let first: string | undefined;
  await store.query(
    (e) => {
      first = e.name as string;
    },
    { stream, limit: 1 }
  );
  return first === undefined ? undefined : statesOf(app).find((s) => first! in s.events);
}

function required(url: URL, name: string): string {
  const value = url.searchParams.get(name);
  if (!value) throw new HttpError(400, `The "${name}" parameter is missing.`);
  if (value.length > 1_000) throw new HttpError(400, `The "${name}" parameter is too long.`);
  return value;
}

function optionalId(url: URL, name: string): number | undefined {
  const value = url.searchParams.get(name);
  if (value === null || value === "") return undefined;
  if (!/^-?\d{1,16}$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw new HttpError(400, `"${name}" must be a whole number, not ${JSON.stringify(value.slice(0, 40))}.`);
  return Number(value);
}

function limitOf(url: URL, fallback: number): number {
  const value = url.searchParams.get("limit");
  if (value === null) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT)
    throw new HttpError(400, `"limit" must be a whole number from 1 to ${MAX_LIMIT}.`);
  return n;
}

async function streamsBody(req: IncomingMessage): Promise<string[]> {
  const body = await jsonBody(req);
  const streams = (body as { streams?: unknown })?.streams;
  if (!Array.isArray(streams) || streams.length === 0 || !streams.every((s) => typeof s === "string" && s.length > 0))
    throw new HttpError(400, 'Give the streams as { "streams": ["name", …] }.');
  return streams;
}

async function jsonBody(req: IncomingMessage): Promise<unknown> {
  // A JSON body forces a browser to ask before sending it from another
  // origin (a CORS preflight this server never approves).
  if (!(req.headers["content-type"] ?? "").startsWith("application/json"))
    throw new HttpError(415, "Send JSON (Content-Type: application/json).");
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new HttpError(413, "The request body is too large.");
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new HttpError(400, "The request body is not valid JSON.");
  }
}

function allowedHost(header: string | undefined, port: number): boolean {
  if (!header) return false;
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(header.toLowerCase());
}

/** Why a POST is refused as cross-site, or undefined when it comes from this server's own page (or no browser). */
function crossSite(req: IncomingMessage, port: number): string | undefined {
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin")
    return `Refused: the request came from another site (Sec-Fetch-Site: ${site}).`;
  const origin = req.headers.origin;
  if (origin !== undefined && !allowedHost(origin.replace(/^http:\/\//, ""), port))
    return "Refused: the request came from another origin.";
  return undefined;
}

/** The path and every query parameter decode, and none holds a NUL. */
function wellFormed(url: URL): boolean {
  try {
    const parts = [url.pathname, ...url.search.slice(1).split("&")];
    return parts.every((part) => !decodeURIComponent(part.replace(/\+/g, " ")).includes("\0"));
  } catch {
    return false;
  }
}

/** The credential of `Authorization: Bearer <credential>`, or "" (which matches no session). */
function bearerOf(req: IncomingMessage): string {
  const match = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? "");
  return match ? match[1] : "";
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function send(res: ServerResponse, status: number, body: unknown) {
  if (res.headersSent) return res.end();
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    "Content-Type": "application/json; charset=utf-8",
    "Cache-Control": "no-store",
  });
  res.end(JSON.stringify(body));
}

function sendText(res: ServerResponse, status: number, text: string) {
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

function sendError(res: ServerResponse, error: unknown) {
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

function sendStatic(res: ServerResponse, root: string, pathname: string) {
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
