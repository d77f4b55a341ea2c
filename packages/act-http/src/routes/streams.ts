/**
 * `GET /streams/{State}/{id}`: a stream's state and version, for a caller
 * its state's read rule allows. The version is the answer's `ETag`, which
 * the client sends back in `If-Match` with its next action.
 */
import type { Actor } from "@act-root/act";
import type { Context, Hono } from "hono";
import { identify } from "../auth.js";
import { HttpErrors, HttpProblem, problem } from "../problem.js";
import type { ServedState, Settings } from "../settings.js";
import { etag } from "../versions.js";

/** What every answer about a stream holds. */
export type StreamAnswer = { stream: string; version: number; state: unknown };

/**
 * Characters an id may not hold: control characters (a newline in a stream
 * name breaks log lines) and the bidirectional overrides that make a name
 * read differently from what it is.
 */
const UNSAFE = /[\p{Cc}\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

/** The served state a URL names, and the stream of its id; 404 / 400 otherwise. */
export function locate(settings: Settings, stateName: string, id: string): { served: ServedState; stream: string } {
  const served = settings.states.get(stateName);
  if (!served) throw new HttpProblem(404, HttpErrors.NotFound, `No state "${stateName}" is served`);
  if (id.length > 200 || UNSAFE.test(id))
    throw new HttpProblem(
      400,
      HttpErrors.BadRequest,
      "The id must be at most 200 characters, without control characters",
      [{ path: "id", message: "at most 200 characters, no control or bidirectional-override characters" }]
    );
  return { served, stream: served.stream(id) };
}

/** Loads a stream; answers it when the caller may read it, or nothing when its read rule says no. */
export async function allowed(
  settings: Settings,
  served: ServedState,
  actor: Actor,
  id: string,
  stream: string
): Promise<StreamAnswer | undefined> {
  const snapshot = await settings.app.load(served.state, stream);
  const version = snapshot.event?.version ?? -1;
  if (!(await served.authorize({ actor, id, stream, state: snapshot.state, version }))) return undefined;
  return { stream, version, state: snapshot.state };
}

/** Loads a stream and checks that the caller may read it (403 otherwise). */
export async function readable(
  settings: Settings,
  served: ServedState,
  actor: Actor,
  id: string,
  stream: string
): Promise<StreamAnswer> {
  const answer = await allowed(settings, served, actor, id, stream);
  if (!answer) throw new HttpProblem(403, HttpErrors.Forbidden, "You may not read this stream");
  return answer;
}

/** Answers a stream's state with its version as the ETag. */
export function answer(c: Context, body: StreamAnswer, status: 200 | 202 = 200): Response {
  c.header("ETag", etag(body.version));
  return c.json(body, status);
}

/** Adds the stream read route. */
export function streamRoutes(http: Hono, settings: Settings): void {
  http.get("/streams/:state/:id", async (c) => {
    const actor = await identify(settings.authenticate, c.req.raw);
    const id = c.req.param("id");
    const { served, stream } = locate(settings, c.req.param("state"), id);
    const body = await readable(settings, served, actor, id, stream);
    if (body.version < 0) {
      c.header("ETag", etag(-1));
      return c.json(problem(404, HttpErrors.NotFound, "The stream has no events"), 404, {
        "Content-Type": "application/problem+json",
      });
    }
    return answer(c, body);
  });
}
