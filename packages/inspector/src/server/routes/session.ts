import { jsonBody } from "../requests.js";
import { HttpError } from "../responses.js";
import { statesOf } from "./streams.js";
import type { Routes, Served } from "./route.js";

/** Signing in (a link's token for a session) and what the page needs to know about the server. */
export function sessionRoutes({ app, catalog, tenant, operations, sessions }: Served): Routes {
  return {
    "POST /api/session": async (_url, req) => {
      const body = await jsonBody(req);
      const given = (body as { token?: unknown })?.token;
      if (typeof given !== "string" || !given) throw new HttpError(400, 'Give the link\'s token as { "token": "…" }.');
      return { session: sessions.open(given) };
    },

    "GET /api/info": async () => ({
      mode: app ? "app" : "store",
      operations,
      // The page's header shows this: which tenant is inspected, before anything else.
      store: tenant === undefined ? catalog.label : `tenant ${tenant} · ${catalog.label}`,
      ...(tenant !== undefined && { tenant }),
      correlationIndexed: await catalog.correlationIndexed(),
      states: app ? statesOf(app).map((s) => s.name) : [],
    }),
  };
}
