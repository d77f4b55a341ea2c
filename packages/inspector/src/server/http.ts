/**
 * The inspector's HTTP server: the JSON API the page reads and the page's
 * static files, on node:http. This file starts it and answers each request:
 * the target, host and session checks, the cross-site check of a POST, and
 * the route; the sign-in is in `sessions.ts`, the routes by resource in
 * `routes/`, the reading of requests in `requests.ts` and the responses in
 * `responses.ts`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Act, Store } from "@act-root/act";
import type { Catalog } from "./catalog.js";
import { allowedHost, bearerOf, crossSite, wellFormed } from "./requests.js";
import { defaultWebRoot, send, sendError, sendStatic, sendText } from "./responses.js";
import { eventRoutes } from "./routes/events.js";
import { reactionRoutes } from "./routes/reactions.js";
import type { Routes, Served } from "./routes/route.js";
import { sessionRoutes } from "./routes/session.js";
import { streamRoutes } from "./routes/streams.js";
import { timerRoutes } from "./routes/timers.js";
import { LogSearch } from "./search.js";
import { SIGNED_OUT, Sessions } from "./sessions.js";
import { cutter } from "./wire-event.js";

/** How the server is started. */
export type ServerOptions = {
  /** The store to read (and, with `operations`, to unblock or reset reactions in). */
  readonly store: Store;
  /** Lists streams (see `Catalog`). */
  readonly catalog: Catalog;
  /** App mode: the app whose states and reactions the inspector may use. */
  readonly app?: Act<any, any, any>;
  /** The tenant whose store this is, shown on the page beside the store. */
  readonly tenant?: string;
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
 * @experimental
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

/** Starts the server; resolves once it listens. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const sessions = new Sessions(options.token);
  const host = options.host ?? "127.0.0.1";
  const webRoot = options.webRoot ?? defaultWebRoot();
  const { store, catalog, app, tenant } = options;
  const operations = options.operations === true;
  let port = 0;

  const served: Served = {
    store,
    catalog,
    app,
    ...(tenant !== undefined && { tenant }),
    operations,
    cut: cutter(options.truncateAt ?? 2_000),
    search: new LogSearch(store, catalog, options.search),
    sessions,
  };
  const routes: Routes = {
    ...sessionRoutes(served),
    ...streamRoutes(served),
    ...eventRoutes(served),
    ...reactionRoutes(served),
    ...timerRoutes(served),
  };

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
      if (!exchange && !sessions.signedIn(credential)) return send(res, 401, { error: SIGNED_OUT });
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
    if (given !== null && !sessions.waiting(given)) {
      const refusal = sessions.refusal(given);
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
    url: linkOf(sessions.first),
    port,
    link: () => linkOf(sessions.link()),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
