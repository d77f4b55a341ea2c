/**
 * `GET /reads/{name}?…`: the app's read endpoints — typically a query of a
 * projection's read model. The query string is parsed by the read's zod
 * schema (400 with each bad parameter), the read's rule decides who may run
 * it, and the answer is passed through its `answer` schema so that only the
 * fields it lists leave the server.
 */
import { ValidationError } from "@act-root/act";
import type { Hono } from "hono";
import { identify } from "../auth.js";
import { HttpErrors, HttpProblem } from "../problem.js";
import type { Settings } from "../settings.js";

/** Adds the read routes. */
export function readRoutes(http: Hono, settings: Settings): void {
  http.get("/reads/:name", async (c) => {
    const actor = await identify(settings.authenticate, c.req.raw);
    const name = c.req.param("name");
    const route = settings.reads.get(name);
    if (!route) throw new HttpProblem(404, HttpErrors.NotFound, `No read "${name}" is served`);
    // One value per parameter (the last); a query string is not a place for structures.
    const raw = Object.fromEntries(new URL(c.req.url).searchParams);
    const parsed = route.query.safeParse(raw);
    if (!parsed.success)
      throw new ValidationError(
        `query of read "${name}"`,
        raw,
        parsed.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message }))
      );
    if (!(await route.authorize({ actor, query: parsed.data })))
      throw new HttpProblem(403, HttpErrors.Forbidden, `You may not run read "${name}" with this query`);
    const result = route.answer.safeParse(await route.read(parsed.data, actor));
    // The server's own reader broke its contract: logged, and the client gets a generic 500.
    if (!result.success)
      throw new Error(`act-http: read "${name}" answered what its answer schema refuses: ${result.error.message}`);
    return c.json(result.data as never);
  });
}
