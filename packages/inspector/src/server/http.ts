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
  /**
   * How an unindexed search (correlation, causation) reads the log: a range
   * of event ids per query, starting at `window` ids and sized so that each
   * query takes about 20 ms, for at most `millis` per request, the server
   * answering other requests between ranges. A search that runs out of time
   * answers with what it found and where to go on from (default: 20,000 ids,
   * 250 ms).
   */
  readonly search?: { readonly window?: number; readonly millis?: number };
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
/** About how long each query of an unindexed search takes, in ms: other requests wait at most about this long. */
const STEP_MILLIS = 20;
/** The reaction states the reactions view filters by. */
const REACTION_STATES = ["all", "blocked", "leased", "lagging", "running"] as const;
type ReactionState = (typeof REACTION_STATES)[number];

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

  const window = Math.max(1, options.search?.window ?? 20_000);
  const budget = Math.max(0, options.search?.millis ?? 250);

  /** The id of the newest event (snapshots included), or -1 for an empty log. */
  const lastId = async () => {
    let last = -1;
    await store.query(
      (e) => {
        last = e.id;
      },
      { backward: true, limit: 1, with_snaps: true }
    );
    return last;
  };

  /**
   * Events of a correlation after the cursor, `limit` at most, that `keep`
   * accepts. With an index on the correlation id this is one query. Without
   * one each query reads a range of ids, the server answers other requests
   * between ranges, and the search stops at the time budget: `next` is where
   * to go on from, `searched` the last id looked at and `last` the newest id.
   */
  const search = async (
    correlation: string,
    after: number,
    limit: number,
    keep?: (e: Committed<Schemas, string>) => boolean
  ): Promise<SearchPage> => {
    const found: Committed<Schemas, string>[] = [];
    if (await catalog.correlationIndexed()) {
      // The index finds the correlation's events; a filter of our own reads
      // them a window at a time, as many as `limit` would not bound.
      let more = false;
      let read = 0;
      let seen = after;
      await store.query(
        (e) => {
          read++;
          seen = e.id;
          if (keep && !keep(e as never)) return;
          if (found.length < limit) found.push(e as never);
          else more = true;
        },
        { correlation, after, limit: keep ? window : limit + 1 }
      );
      const next = more ? found[found.length - 1].id : keep && read >= window ? seen : undefined;
      return { events: found, ...(next !== undefined && { next }), indexed: true };
    }
    const last = await lastId();
    const started = Date.now();
    let cursor = after;
    // Ids can be sparse (PostgreSQL's sequence leaves gaps): the range grows
    // or shrinks so that each query takes about STEP_MILLIS.
    let span = window;
    while (cursor < last) {
      const upto = Math.min(last, cursor + span);
      const began = performance.now();
      let stop: number | undefined;
      await store.query(
        (e) => {
          if (stop !== undefined || (keep && !keep(e as never))) return;
          if (found.length < limit) found.push(e as never);
          else stop = found[found.length - 1].id;
        },
        { correlation, after: cursor, before: upto + 1 }
      );
      if (stop !== undefined) return { events: found, next: stop, searched: stop, last, indexed: false };
      const took = performance.now() - began;
      span = Math.max(1, Math.round(span * Math.min(4, Math.max(0.5, STEP_MILLIS / Math.max(took, 1)))));
      cursor = upto;
      if (cursor < last && Date.now() - started >= budget)
        return { events: found, next: cursor, searched: cursor, last, indexed: false };
      // Let the other requests in before the next range.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return { events: found, searched: last, last, indexed: false };
  };

  /** Events that a reaction to `event` committed: same correlation, later, caused by it. */
  const causedBy = (event: Committed<Schemas, string>, after: number, limit: number) =>
    search(event.meta.correlation, after, limit, (e) => e.meta.causation.event?.id === event.id);

  /** Every reaction stream, with its lag in app mode (only the app knows which later events route to a stream). */
  const reactionRows = async (): Promise<Array<ReactionStream & { lag?: number }>> =>
    app ? (await app.stats(1_000)).streams : await store.reactions();

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
      const before = optionalId(url, "before");
      const order = url.searchParams.get("order") ?? "oldest";
      if (order !== "oldest" && order !== "newest")
        throw new HttpError(400, '"order" is "oldest" (the default) or "newest".');
      const newest = order === "newest";
      const names = url.searchParams.get("names")?.split(",").filter(Boolean);
      const limit = limitOf(url, 200);
      const events: WireEvent[] = [];
      // Newest first reads the stream backwards: the last event is on the first page, whatever the stream's length.
      await store.query((e) => void events.push(cut(e as Committed<Schemas, string>)), {
        stream,
        with_snaps: true,
        limit: limit + 1,
        ...(newest && { backward: true }),
        ...(after !== undefined && { after }),
        ...(before !== undefined && { before }),
        ...(names?.length && { names }),
      });
      const cursor = newest ? before : after;
      if (events.length === 0 && cursor === undefined && !names?.length && !(await catalog.stream(stream)))
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
      const { events: caused, ...rest } = await causedBy(event, event.id, 100);
      return { event, cause: cause ?? null, caused, ...rest };
    },

    "GET /api/caused": async (url) => {
      const id = optionalId(url, "id");
      if (id === undefined) throw new HttpError(400, "Give the event's id, a whole number.");
      const event = await eventById(id);
      if (!event) throw new HttpError(404, `No event with id ${id}.`);
      const after = optionalId(url, "after") ?? id;
      const { events: caused, ...rest } = await causedBy(event, Math.max(after, id), limitOf(url, 100));
      return { caused, ...rest };
    },

    "GET /api/correlation": async (url) => {
      const correlation = required(url, "id");
      const after = optionalId(url, "after") ?? -1;
      const { events, ...rest } = await search(correlation, after, limitOf(url, 100));
      return { events: events.map(cut), ...rest };
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
      const now = await app.load(state, stream, { at: { version } });
      const before = version > 0 ? await app.load(state, stream, { at: { version: version - 1 } }) : undefined;
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
      const limit = limitOf(url, 50);
      const text = (url.searchParams.get("q") ?? "").toLowerCase();
      if (text.length > 200) throw new HttpError(400, "The name filter is too long (200 characters at most).");
      // `blocked=true` is the older way to ask for the blocked streams.
      const state = (url.searchParams.get("state") ??
        (url.searchParams.get("blocked") === "true" ? "blocked" : "all")) as ReactionState;
      if (!REACTION_STATES.includes(state))
        throw new HttpError(400, `"state" is one of ${REACTION_STATES.join(", ")}.`);
      const after = url.searchParams.get("after") ?? "";
      if (after.length > 1_100) throw new HttpError(400, "The cursor is too long.");
      // The store lists reaction streams by name only: the order (blocked
      // first), the totals, the filter and the pages are made here, from one
      // read of every stream; only the page is sent.
      const rows = await reactionRows();
      const now = Date.now();
      const leased = (r: ReactionStream) =>
        r.leasedBy !== undefined && (r.leasedUntil === undefined || r.leasedUntil.getTime() > now);
      const lagging = (r: ReactionStream & { lag?: number }) => (r.lag ?? r.head - r.at) > 0;
      const states: Record<ReactionState, (r: ReactionStream & { lag?: number }) => boolean> = {
        all: () => true,
        blocked: (r) => r.blocked,
        leased,
        lagging,
        running: (r) => !r.blocked,
      };
      const totals = { streams: rows.length, blocked: 0, leased: 0, lagging: 0 };
      const matched: Array<ReactionStream & { lag?: number }> = [];
      for (const r of rows) {
        if (r.blocked) totals.blocked++;
        if (leased(r)) totals.leased++;
        if (lagging(r)) totals.lagging++;
        if (states[state](r) && (!text || r.stream.toLowerCase().includes(text))) matched.push(r);
      }
      const page = matched
        .filter((r) => reactionKey(r) > after)
        .sort((a, b) => (reactionKey(a) < reactionKey(b) ? -1 : 1))
        .slice(0, limit + 1);
      const more = page.length > limit;
      const streams = page.slice(0, limit);
      return {
        operations,
        totals,
        matched: matched.length,
        streams,
        ...(more && { next: reactionKey(streams[streams.length - 1]) }),
      };
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

/** A page of a bounded search (see `ServerOptions.search`). */
type SearchPage = {
  events: Committed<Schemas, string>[];
  /** The cursor to go on from (an event id), when the search stopped before the end. */
  next?: number;
  /** Without an index: the last event id looked at. */
  searched?: number;
  /** Without an index: the newest event id when the search ran. */
  last?: number;
  /** Whether the store has an index on the correlation id (the search reads only that correlation's events). */
  indexed: boolean;
};

/** Where a reaction stream sorts, and the cursor after it: blocked streams first, then by name. */
function reactionKey(r: ReactionStream): string {
  return `${r.blocked ? "0" : "1"}${r.stream}`;
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
