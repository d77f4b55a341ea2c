/**
 * `GET /streams/{State}/{id}/events`: a stream's committed events as
 * server-sent events, for a caller its state's read rule allows. Each event
 * is sent with its global id as the SSE `id`, so a client that reconnects
 * sends `Last-Event-ID` and resumes right after the last event it got.
 *
 * The caller is authenticated again, and the state's read rule asked again,
 * before each batch is sent (on the stream's state as it is then): a caller
 * whose credentials were revoked or expired, or whom the rule no longer
 * allows, gets no further event, and the connection ends.
 *
 * Bounded per client: events are read from the store only when the client
 * has taken the previous batch (see `eventStream`). New events are noticed
 * at once when this process commits them, and by polling when another does.
 */
import type { Actor, Committed } from "@act-root/act";
import type { Hono } from "hono";
import { identify, stillCaller } from "../auth.js";
import { admit, eventStream, resumeAt, Waiters } from "../event-stream.js";
import { allowed, locate, readable } from "./streams.js";
import type { Settings } from "../settings.js";

/** One event as an SSE message: the id to resume from, the event name, and its data as JSON. */
function message(event: Committed<any, any>): string {
  const data = JSON.stringify({
    id: event.id,
    name: event.name,
    version: event.version,
    created: event.created,
    data: event.data,
  });
  return `id: ${event.id}\nevent: ${String(event.name)}\ndata: ${data}\n\n`;
}

/** Adds the event stream route. */
export function eventRoutes(http: Hono, settings: Settings): void {
  const waiting = new Waiters();
  settings.app.on("committed", (snapshots) => {
    for (const snapshot of snapshots) if (snapshot.event) waiting.wake(snapshot.event.stream);
  });

  http.get("/streams/:state/:id/events", async (c) => {
    const actor: Actor = await identify(settings.authenticate, c.req.raw);
    const id = c.req.param("id");
    const { served, stream } = locate(settings, c.req.param("state"), id);
    await readable(settings, served, actor, id, stream);
    let after = resumeAt(c.req.header("last-event-id") ?? c.req.query("after"), "this stream");
    admit(settings);
    return eventStream(settings, c.req.raw, {
      wakers: waiting.join(stream),
      ended: () => waiting.leave(stream),
      next: async () => {
        const batch = await settings.app.queryArray({ stream, after, limit: settings.events.batch });
        if (!batch.length) return undefined;
        // Asked again before each batch: a caller whose token was revoked, or whom the
        // rule no longer allows (a ticket handed to someone else), gets nothing more.
        if (!(await stillCaller(settings.authenticate, c.req.raw, actor))) return false;
        if (!(await allowed(settings, served, actor, id, stream))) return false;
        after = batch.at(-1)!.id;
        return batch.map(message).join("");
      },
    });
  });
}
