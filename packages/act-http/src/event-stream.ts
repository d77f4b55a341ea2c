/**
 * What the two kinds of server-sent events (a stream's events, a read's
 * changes) share: the resume position a client sends back, a pause that a
 * commit or an acknowledgement cuts short, the cap on open connections, and
 * a pulled body — the next message is produced only once the client has
 * taken the previous one, so a slow client holds at most one message in
 * memory. `close()` of the API ends every open one.
 */
import { HttpErrors, HttpProblem } from "./problem.js";
import type { Settings } from "./settings.js";

/**
 * `Last-Event-ID` (or `?after=`): the position of the last message the
 * client has; -1 for the start.
 */
export function resumeAt(header: string | undefined, what: string): number {
  if (header === undefined || header === "") return -1;
  if (!/^(0|[1-9]\d{0,14})$/.test(header))
    throw new HttpProblem(400, HttpErrors.BadRequest, `Last-Event-ID must be the id of a message ${what} sent`);
  return Number(header);
}

/** Resolves after `millis`, when a waker in `wakers` is called, or when `signal` aborts, whichever is first. */
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

/**
 * Per key (a stream's name, a projection's), the connections waiting for it
 * to move. A key is kept while a connection on it is open — not only while
 * one is pausing — so a connection never holds wakers nobody calls.
 */
export class Waiters {
  private readonly byKey = new Map<string, { wakers: Set<() => void>; open: number }>();

  /** Joins the connections on `key`; answers the wakers a commit or acknowledgement on it calls. */
  join(key: string): Set<() => void> {
    const entry = this.byKey.get(key) ?? { wakers: new Set<() => void>(), open: 0 };
    this.byKey.set(key, entry);
    entry.open++;
    return entry.wakers;
  }

  /** Wakes every connection waiting on `key`. */
  wake(key: string): void {
    const entry = this.byKey.get(key);
    if (entry) for (const wake of [...entry.wakers]) wake();
  }

  /** Leaves `key` when a connection ends; the key is forgotten with its last connection. */
  leave(key: string): void {
    const entry = this.byKey.get(key);
    if (entry && --entry.open <= 0) this.byKey.delete(key);
  }
}

/**
 * What feeds one connection: `next` answers the text of the next messages,
 * or nothing when there is nothing new yet (the connection then waits for a
 * waker of `wakers`, or `pollMillis`, and asks again); throwing or
 * answering `false` ends the connection.
 */
export type Feed = {
  next: () => Promise<string | undefined | false>;
  wakers: Set<() => void>;
  /** Called once when the connection ends, however it ends. */
  ended: () => void;
};

/** Refuses a new connection once as many are open as the settings allow. */
export function admit(settings: Settings): void {
  if (settings.lifecycle.streams.size >= settings.events.maxClients)
    throw new HttpProblem(503, HttpErrors.Unavailable, "Too many event streams are open; retry later");
}

/** The response of one connection: an event stream pulled from `feed`, with keep-alive comments when idle. */
export function eventStream(settings: Settings, request: Request, feed: Feed): Response {
  const { lifecycle, events } = settings;
  const stop = new AbortController();
  lifecycle.streams.add(stop);
  request.signal?.addEventListener("abort", () => stop.abort());
  const encoder = new TextEncoder();
  let quiet = 0;
  let open = true;
  const end = () => {
    if (!open) return;
    open = false;
    lifecycle.streams.delete(stop);
    feed.ended();
  };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          while (!stop.signal.aborted) {
            // Listening before looking: a move while `next` reads would otherwise wake
            // nobody, and the client would wait a whole poll for it.
            let moved = false;
            const mark = () => {
              moved = true;
            };
            feed.wakers.add(mark);
            const text = await feed.next().finally(() => feed.wakers.delete(mark));
            if (text === false) break;
            if (text) {
              quiet = 0;
              controller.enqueue(encoder.encode(text));
              return;
            }
            if (quiet >= events.heartbeatMillis) {
              quiet = 0;
              controller.enqueue(encoder.encode(": keep-alive\n\n"));
              return;
            }
            if (moved) continue;
            const wait = Math.min(events.pollMillis, events.heartbeatMillis - quiet);
            await pause(wait, stop.signal, feed.wakers);
            quiet += wait;
          }
        } catch (error) {
          // A store failure ends this client's connection; it reconnects with Last-Event-ID.
          settings.log(error, request);
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
}
