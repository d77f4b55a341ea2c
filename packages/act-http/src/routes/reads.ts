/**
 * `GET /reads/{name}?…`: the app's read endpoints — typically a query of a
 * projection's read model. The query string is parsed by the read's zod
 * schema (400 with each bad parameter), the read's rule decides who may run
 * it, and the answer is passed through its `answer` schema so that only the
 * fields it lists leave the server.
 */
import { type Actor, ValidationError } from "@act-root/act";
import type { Hono } from "hono";
import type { z } from "zod";
import { identify } from "../auth.js";
import { HttpErrors, HttpProblem } from "../problem.js";
import type { Settings } from "../settings.js";
import type { ReadRoute } from "./types.js";

/** A read as a request names it: the route, the caller and the parsed query, after its rule allowed it. */
export type ReadCall = {
  readonly name: string;
  readonly route: ReadRoute<z.ZodObject, z.ZodType>;
  readonly actor: Actor;
  readonly query: z.output<z.ZodObject>;
};

/**
 * Finds the read a request names, parses its query string and checks its
 * rule (401, 404, 400, 403, in that order); `live` asks for a read served
 * live, which only reads declared with their projection are.
 */
export async function allowedRead(settings: Settings, name: string, request: Request, live = false): Promise<ReadCall> {
  const actor = await identify(settings.authenticate, request);
  const route = settings.reads.get(name);
  if (!route) throw new HttpProblem(404, HttpErrors.NotFound, `No read "${name}" is served`);
  if (live && !route.projection)
    throw new HttpProblem(404, HttpErrors.NotFound, `Read "${name}" is not served live: it names no projection`);
  // One value per parameter (the last); a query string is not a place for structures.
  const raw = Object.fromEntries(new URL(request.url).searchParams);
  const parsed = route.query.safeParse(raw);
  if (!parsed.success)
    throw new ValidationError(
      `query of read "${name}"`,
      raw,
      parsed.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message }))
    );
  const call = { name, route, actor, query: parsed.data };
  if (!(await allows(call)))
    throw new HttpProblem(403, HttpErrors.Forbidden, `You may not run read "${name}" with this query`);
  return call;
}

/** Whether the read's rule allows the call (asked again before each live answer). */
export async function allows({ route, actor, query }: ReadCall): Promise<boolean> {
  return Boolean(await route.authorize({ actor, query }));
}

/** Runs the read, and keeps only what its answer schema lists. */
export async function answerOf({ name, route, actor, query }: ReadCall): Promise<unknown> {
  const result = route.answer.safeParse(await route.read(query, actor));
  // The server's own reader broke its contract: logged, and the client gets a generic 500.
  if (!result.success)
    throw new Error(`act-http: read "${name}" answered what its answer schema refuses: ${result.error.message}`);
  return result.data;
}

/** Adds the read routes. */
export function readRoutes(http: Hono, settings: Settings): void {
  http.get("/reads/:name", async (c) => {
    const call = await allowedRead(settings, c.req.param("name"), c.req.raw);
    return c.json((await answerOf(call)) as never);
  });
}
