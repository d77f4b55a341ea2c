/**
 * `http(app, options)`: an Act app's HTTP API as a Hono app — one code base
 * for Node, Bun, Deno and Workers, since it uses only Hono and web
 * standards (`Request`, `Response`, streams, `crypto.subtle`). The runtime's
 * server is the caller's: `export default api` on Workers and Bun,
 * `Deno.serve(api.fetch)`, or `serve({ fetch: api.fetch })` from
 * `@hono/node-server` on Node.
 */
import type { Act, Schemas } from "@act-root/act";
import { Hono } from "hono";
import { type OpenApiDocument, openapi } from "./openapi.js";
import { HttpErrors, problem, toProblem } from "./problem.js";
import { actionRoutes, errorVersions } from "./routes/actions.js";
import { changeRoutes } from "./routes/changes.js";
import { readRoutes } from "./routes/reads.js";
import { streamRoutes } from "./routes/streams.js";
import { type HttpOptions, settingsOf } from "./settings.js";
import { eventRoutes } from "./routes/events.js";
import { etag } from "./versions.js";

/**
 * An app's HTTP API: a `fetch` handler for any runtime, the Hono app (to
 * mount under a path or add routes), its OpenAPI document, and a graceful
 * stop.
 *
 * @experimental
 * @example
 * ```ts
 * declare const api: ActHttp;
 * const response = await api.fetch(new Request("http://localhost/openapi.json"));
 * await api.close();
 * ```
 */
export type ActHttp = {
  /**
   * Answers a request (web standard: works as a Workers, Bun or Deno handler).
   *
   * @param request - the request
   */
  readonly fetch: (request: Request) => Promise<Response>;
  /** The Hono app behind `fetch`: mount it with `parent.route("/api", api.routes)`. */
  readonly routes: Hono;
  /** The OpenAPI 3.1 document, also served at `GET /openapi.json`. */
  readonly openapi: OpenApiDocument;
  /**
   * Stops gracefully: new requests get 503, open event streams end, and it
   * resolves once the requests in flight have been answered. Stop the
   * runtime's server from accepting connections first, and the app
   * (`app.stop()`) after.
   */
  readonly close: () => Promise<void>;
};

/**
 * Serves an Act app over HTTP: each listed action as `POST
 * /streams/{State}/{id}/{action}`, each stream's state as `GET
 * /streams/{State}/{id}`, its events as server-sent events at `GET
 * /streams/{State}/{id}/events`, each read at `GET /reads/{name}` (and live,
 * as server-sent events, at `GET /reads/{name}/changes` when the read names
 * its projection), and the OpenAPI document at `GET /openapi.json`.
 *
 * Safe by default: it refuses to build without an `authenticate` hook and
 * without an `authorize` rule on every route; the actor is always the one
 * `authenticate` found, never one the body names; bodies and their fields
 * are size-limited; errors are `application/problem+json` without stack
 * traces or store details; the stream version is the `ETag`, `If-Match` the
 * expected version, `Idempotency-Key` the action's idempotency key.
 *
 * @param app - the app, from `act()...build()`
 * @param options - authentication, the routes and their rules, limits (see {@link HttpOptions})
 * @returns the API (see {@link ActHttp})
 * @throws TypeError naming what is missing or wrong in the options
 * @experimental
 * @example
 * ```ts
 * const api = http(app, {
 *   authenticate: bearerTokens([["a-long-random-service-token", actor]]),
 *   actions: { increment: { authorize: ({ payload }) => payload.by <= 10 } },
 *   streams: [stream(Counter, { stream: (id) => `counter-${id}`, authorize: () => true })],
 * });
 * // Workers, Bun: export default api; Deno: Deno.serve(api.fetch); Node: serve({ fetch: api.fetch }).
 * ```
 */
export function http<S extends Schemas, E extends Schemas, A extends Schemas>(
  app: Act<S, E, A>,
  options: HttpOptions<S, A>
): ActHttp {
  const settings = settingsOf(app, options);
  const document = openapi(settings);
  const routes = new Hono();
  const { lifecycle } = settings;

  routes.use(async (c, next) => {
    if (lifecycle.closing) {
      c.header("Connection", "close");
      c.header("Retry-After", "1");
      return c.json(problem(503, HttpErrors.Unavailable, "The server is stopping; retry"), 503, {
        "Content-Type": "application/problem+json",
      });
    }
    const leave = lifecycle.enter();
    try {
      await next();
    } finally {
      leave();
    }
  });
  routes.get("/openapi.json", (c) => c.json(document));
  actionRoutes(routes, settings);
  eventRoutes(routes, settings);
  streamRoutes(routes, settings);
  readRoutes(routes, settings);
  changeRoutes(routes, settings);

  routes.notFound((c) =>
    c.json(problem(404, HttpErrors.NotFound, "No such route"), 404, { "Content-Type": "application/problem+json" })
  );
  routes.onError((error, c) => {
    const { problem, logged } = toProblem(error);
    if (logged) settings.log(error, c.req.raw);
    const version = typeof error === "object" && error ? errorVersions.get(error) : undefined;
    if (version !== undefined) c.header("ETag", etag(version));
    if (problem.status === 401) c.header("WWW-Authenticate", "Bearer");
    if (problem.status === 503) c.header("Retry-After", "1");
    return c.json(problem, problem.status as 400, { "Content-Type": "application/problem+json" });
  });

  return {
    fetch: async (request) => routes.fetch(request),
    routes,
    openapi: document,
    close: () => lifecycle.close(),
  };
}
