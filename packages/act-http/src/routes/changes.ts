/**
 * `GET /reads/{name}/changes?…`: a read served live, for reads declared
 * with the projection their read model comes from. The client gets the
 * answer at once, then again each time the projection has applied new
 * events and the answer differs from the last one it got — a list that
 * stays current without polling. Each message's SSE `id` is the
 * projection's position (the last event it applied), so a client that
 * reconnects with `Last-Event-ID` gets an answer only once the projection
 * has moved past what it saw.
 *
 * The caller is authenticated again, and the read's rule asked again,
 * before every answer: a caller whose token was revoked or expired, or
 * whose access was taken away, gets no further answer, and the connection
 * ends.
 * The projection's moves are noticed at once when this process applies
 * them (its drains' acknowledgements, or its own commits for an inline
 * projection), and by polling when another process does.
 */
import type { Act, Projection } from "@act-root/act";
import type { Hono } from "hono";
import { stillCaller } from "../auth.js";
import { admit, eventStream, resumeAt, Waiters } from "../event-stream.js";
import type { Settings } from "../settings.js";
import { allowedRead, allows, answerOf } from "./reads.js";

/**
 * The last event the projection has applied (-1 before the first): its
 * position in the store, or for an inline projection — whose writes commit
 * with the events — the last event of the log it handles.
 */
export async function positionOf(app: Act<any, any, any>, projection: Projection<any, any>): Promise<number> {
  if (projection.options.inline) {
    const [last] = await app.queryArray({ names: [...projection.events], backward: true, limit: 1 });
    return last?.id ?? -1;
  }
  const [row] = (await app.store.reactions({ streams: [projection.stream] })).filter(
    (r) => r.stream === projection.stream
  );
  return row?.at ?? -1;
}

/** Adds the live read routes. */
export function changeRoutes(http: Hono, settings: Settings): void {
  const waiting = new Waiters();
  const inline = new Map<string, string>(); // event name → projection stream, for the inline projections served
  for (const { projection } of settings.reads.values())
    if (projection?.options.inline) for (const name of projection.events) inline.set(name, projection.stream);
  settings.app.on("acked", (leases) => {
    for (const lease of leases) waiting.wake(lease.stream);
  });
  if (inline.size)
    settings.app.on("committed", (snapshots) => {
      for (const { event } of snapshots) {
        const stream = event && inline.get(event.name);
        if (stream) waiting.wake(stream);
      }
    });

  http.get("/reads/:name/changes", async (c) => {
    const call = await allowedRead(settings, c.req.param("name"), c.req.raw, true);
    const projection = call.route.projection!;
    let seen = resumeAt(c.req.header("last-event-id"), "this read");
    // A client that resumes has an answer: the next one waits for the projection to move past it.
    let answered = seen >= 0;
    let last: string | undefined;
    admit(settings);
    return eventStream(settings, c.req.raw, {
      wakers: waiting.join(projection.stream),
      ended: () => waiting.leave(projection.stream),
      next: async () => {
        const at = await positionOf(settings.app, projection);
        if (answered && at <= seen) return undefined;
        // A token revoked since the connection opened, or a rule that no longer allows the call, ends it.
        if (!(await stillCaller(settings.authenticate, c.req.raw, call.actor))) return false;
        if (!(await allows(call))) return false;
        const text = JSON.stringify(await answerOf(call));
        seen = Math.max(seen, at);
        answered = true;
        if (text === last) return undefined;
        last = text;
        return `${at >= 0 ? `id: ${at}\n` : ""}event: answer\ndata: ${text}\n\n`;
      },
    });
  });
}
