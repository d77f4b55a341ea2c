/**
 * `GET /streams/{State}/{id}/events`: a stream's committed events as
 * server-sent events, for a caller its state's read rule allows. Each event
 * is sent with its global id as the SSE `id`, so a client that reconnects
 * sends `Last-Event-ID` and resumes right after the last event it got.
 *
 * Bounded per client: events are read from the store only when the client
 * has taken the previous batch (the stream is pulled, not pushed), so a slow
 * client holds at most one batch in memory. New events are noticed at once
 * when this process commits them, and by polling when another does. The
 * number of open streams is capped, and `close()` ends them all.
 */
import type { Actor, Committed } from "@act-root/act";
import type { Hono } from "hono";
import { identify } from "./auth.js";
import { HttpErrors, HttpProblem } from "./problem.js";
import { locate, readable } from "./routes/streams.js";
import type { Settings } from "./settings.js";

/** `Last-Event-ID` (or `?after=`): the global id of the last event the client has; -1 for the start. */
function resumeAt(header: string | undefined): number {
  if (header === undefined || header === "") return -1;
  if (!/^(0|[1-9]\d{0,14})$/.test(header))
    throw new HttpProblem(400, HttpErrors.BadRequest, "Last-Event-ID must be the id of an event this stream sent");
  return Number(header);
}

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

/** Resolves after `millis`, when `wake` is called, or when `signal` aborts, whichever is first. */
function pause(millis: number, signal: AbortSignal, wakers: Set<() => void>): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      wakers.delete(done);
      resolve();
    };
    const timer = setTimeout(done, millis);
    signal.addEventListener("abort", done);
    wakers.add(done);
  });
}

/** Adds the event stream route. */
export function eventRoutes(http: Hono, settings: Settings): void {
  /** Per stream name, the clients waiting for its next commit. */
  const waiting = new Map<string, Set<() => void>>();
  settings.app.on("committed", (snapshots) => {
    for (const snapshot of snapshots) {
      const wakers = snapshot.event ? waiting.get(snapshot.event.stream) : undefined;
      if (wakers) for (const wake of [...wakers]) wake();
    }
  });

  http.get("/streams/:state/:id/events", async (c) => {
    const actor: Actor = await identify(settings.authenticate, c.req.raw);
    const id = c.req.param("id");
    const { served, stream } = locate(settings, c.req.param("state"), id);
    await readable(settings, served, actor, id, stream);
    let after = resumeAt(c.req.header("last-event-id") ?? c.req.query("after"));
    const { lifecycle, events } = settings;
    if (lifecycle.streams.size >= events.maxClients)
      throw new HttpProblem(503, HttpErrors.Unavailable, "Too many event streams are open; retry later");

    const stop = new AbortController();
    lifecycle.streams.add(stop);
    c.req.raw.signal?.addEventListener("abort", () => stop.abort());
    const wakers = waiting.get(stream) ?? new Set();
    waiting.set(stream, wakers);
    const encoder = new TextEncoder();
    let quiet = 0;
    const end = () => {
      lifecycle.streams.delete(stop);
      if (wakers.size === 0) waiting.delete(stream);
    };

    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          try {
            while (!stop.signal.aborted) {
              const batch = await settings.app.queryArray({ stream, after, limit: events.batch });
              if (batch.length) {
                after = batch.at(-1)!.id;
                quiet = 0;
                controller.enqueue(encoder.encode(batch.map(message).join("")));
                return;
              }
              if (quiet >= events.heartbeatMillis) {
                quiet = 0;
                controller.enqueue(encoder.encode(": keep-alive\n\n"));
                return;
              }
              const wait = Math.min(events.pollMillis, events.heartbeatMillis - quiet);
              await pause(wait, stop.signal, wakers);
              quiet += wait;
            }
          } catch (error) {
            // A store failure ends this client's stream; it reconnects with Last-Event-ID.
            settings.log(error, c.req.raw);
          }
          end();
          controller.close();
        },
        cancel() {
          stop.abort();
          end();
        },
      },
      { highWaterMark: 0 }
    );
    return new Response(body, {
      headers: {
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-cache",
        "X-Accel-Buffering": "no",
      },
    });
  });
}
