/**
 * `POST /streams/{State}/{id}/{action}`: runs an action for the caller the
 * `authenticate` hook found, after the action's `authorize` rule allowed
 * it. `If-Match` becomes the action's `expectedVersion` (412 when the
 * stream moved), `Idempotency-Key` its idempotency key (a retry gets the
 * first outcome; the key reused for another request is a 422), and
 * `?wait=reactions` waits — for this request's own chain only, and for a
 * bounded time — until the reactions it caused have run.
 */
import { NotSettledError, ValidationError } from "@act-root/act";
import type { Hono } from "hono";
import type { z } from "zod";
import { identify } from "../auth.js";
import { readJson } from "../limits.js";
import { HttpErrors, HttpProblem, versionOf } from "../problem.js";
import type { ServedAction, Settings } from "../settings.js";
import { expectedVersion } from "../versions.js";
import { answer, locate, type StreamAnswer } from "./streams.js";

/** The version an error answer's ETag should carry, by error. */
export const errorVersions = new WeakMap<object, number>();

/** zod's issues as `{ path, message }`, the path dotted like the core's. */
const issues = (error: z.ZodError) =>
  error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message }));

/** `Idempotency-Key`: 1 to 200 visible ASCII characters, or none. */
function keyOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (!/^[\x21-\x7e]{1,200}$/.test(header))
    throw new HttpProblem(400, HttpErrors.BadRequest, "Idempotency-Key must be 1 to 200 visible ASCII characters");
  return header;
}

/** `?wait=reactions` → true; no `wait` → false; anything else is a 400. */
function waitOf(wait: string | undefined): boolean {
  if (wait === undefined) return false;
  if (wait === "reactions") return true;
  throw new HttpProblem(400, HttpErrors.BadRequest, 'wait must be "reactions"', [
    { path: "wait", message: 'the only value is "reactions"' },
  ]);
}

/** The served action a URL names, on the state it names. */
function actionOf(settings: Settings, stateName: string, name: string): ServedAction {
  const served = settings.actions.get(name);
  if (!served || served.state.name !== stateName)
    throw new HttpProblem(404, HttpErrors.NotFound, `No action "${name}" is served on state "${stateName}"`);
  return served;
}

/**
 * Waits for the chain `snapshots` started, within the app's bounds: true
 * when its reactions all ran, false when the time ran out, a stream of it
 * is blocked, or too many requests wait already (the answer is then 202).
 */
async function settle(settings: Settings, snapshots: Parameters<Settings["app"]["settled"]>[0]): Promise<boolean> {
  if (settings.waiting >= settings.wait.maxWaiting) return false;
  settings.waiting++;
  try {
    await settings.app.settled(snapshots, { timeoutMillis: settings.wait.timeoutMillis });
    return true;
  } catch (error) {
    if (error instanceof NotSettledError) return false;
    throw error;
  } finally {
    settings.waiting--;
  }
}

/** Adds the action route. */
export function actionRoutes(http: Hono, settings: Settings): void {
  http.post("/streams/:state/:id/:action", async (c) => {
    const actor = await identify(settings.authenticate, c.req.raw);
    const id = c.req.param("id");
    const served = actionOf(settings, c.req.param("state"), c.req.param("action"));
    const { stream } = locate(settings, served.state.name, id);
    const target = {
      stream,
      actor,
      expectedVersion: expectedVersion(c.req.header("if-match")),
      idempotencyKey: keyOf(c.req.header("idempotency-key")),
    };
    const wait = waitOf(c.req.query("wait"));
    const body = await readJson(c.req.raw, settings.limits);
    const parsed = served.schema.safeParse(body);
    if (!parsed.success) throw new ValidationError(`action "${served.name}"`, body, issues(parsed.error));

    let loaded: Promise<{ state: any; version: number }> | undefined;
    const load = () =>
      (loaded ??= settings.app
        .load(served.state, stream)
        .then((snapshot) => ({ state: snapshot.state, version: snapshot.event?.version ?? -1 })));
    const allowed = await served.route.authorize({ actor, id, stream, payload: parsed.data, load });
    if (!allowed) throw new HttpProblem(403, HttpErrors.Forbidden, `You may not ${served.name} on this stream`);

    try {
      // The body as sent: the core validates it again with the same schema, so a transform runs once.
      const snapshots = await settings.app.do(served.name, target, body as never);
      const last = snapshots.at(-1)!;
      let result: StreamAnswer = { stream, version: last.event?.version ?? -1, state: last.state };
      if (!wait) return answer(c, result);
      const settled = await settle(settings, snapshots);
      const now = await settings.app.load(served.state, stream);
      result = { stream, version: now.event?.version ?? -1, state: now.state };
      if (settled) return answer(c, result);
      // Not all of its reactions ran in time: the action committed; the stream's URL shows the rest as it lands.
      c.header("Location", c.req.path.slice(0, c.req.path.lastIndexOf("/")));
      return answer(c, result, 202);
    } catch (error) {
      const version = versionOf(error);
      if (version !== undefined && typeof error === "object" && error) errorVersions.set(error, version);
      throw error;
    }
  });
}
