/**
 * WolfDesk's actions over HTTP, with Hono. The HTTP layer only translates:
 * who is asking (the Authorization header), which version the client saw
 * (If-Match / ETag), a retry of the same request (Idempotency-Key), and the
 * library's errors into statuses. Every rule stays in the states.
 */
import {
  type Actor,
  ConcurrencyError,
  IdempotencyKeyReusedError,
  InvariantError,
  NotSettledError,
  type Snapshot,
  StoreError,
  ValidationError,
} from "@act-root/act";
import { app, Ticket } from "@act-root/wolfdesk";
import { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** Finds the actor behind a request's Authorization header, or undefined (401). */
export type Authenticate = (authorization: string | undefined) => Actor | undefined;

type Action = keyof typeof app.registry.actions & string;
const actions = new Set<string>(Object.keys(app.registry.actions));

/** A client error with its status, for what the HTTP layer itself refuses. */
class HttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string
  ) {
    super(message);
  }
}

/** The ETag of a stream at a version: the version, quoted (a strong validator). */
export const etag = (version: number) => `"${version}"`;

/** `If-Match: "7"` → 7; no header → undefined (no precondition); anything else is a 400. */
function expectedVersion(ifMatch: string | undefined): number | undefined {
  if (ifMatch === undefined) return undefined;
  const match = /^"(-1|\d+)"$/.exec(ifMatch.trim());
  if (!match) throw new HttpError(400, `If-Match must be one ETag this API returned, like "3"; got ${ifMatch}`);
  return Number(match[1]);
}

/**
 * Maps an error to a status and a body the client can act on.
 * Validation problems list each field's path and message.
 */
export function problem(error: unknown): { status: ContentfulStatusCode; body: Record<string, unknown> } {
  if (error instanceof HttpError) return { status: error.status, body: { error: error.message } };
  if (error instanceof ValidationError)
    return { status: 400, body: { error: "invalid input", details: error.details } };
  if (error instanceof InvariantError)
    // The request was understood, and the ticket's rules refuse it now.
    return { status: 422, body: { error: error.description } };
  if (error instanceof IdempotencyKeyReusedError)
    // The key came with another request than the one it was first used for: a client bug, not a retry.
    return { status: 422, body: { error: "this Idempotency-Key was already used for another request" } };
  if (error instanceof ConcurrencyError)
    // The client's If-Match (or the version loaded for it) is stale: reload, decide again.
    return {
      status: 412,
      body: { error: "the ticket changed since it was read", version: error.lastVersion },
    };
  if (error instanceof StoreError && error.retryable)
    return { status: 503, body: { error: "the store is unavailable; retry later" } };
  return { status: 500, body: { error: "internal error" } };
}

/**
 * The Hono app: `GET /tickets/:id` reads a ticket, `POST /tickets/:id/:action`
 * runs an action on it. Both answer with the ticket and its ETag.
 * `?wait=reactions` on a POST waits for the reactions the action caused —
 * and those their actions caused in turn — before answering
 * (`app.settled`), so the answer and the client's next read include their
 * effects; 202 when they did not all run in time (a consumer runs them:
 * `app.start()` in this process or another).
 *
 * @param authenticate - turns the Authorization header into an actor
 */
export function api(authenticate: Authenticate): Hono {
  const http = new Hono();

  const reply = (snapshot: Snapshot<any, any>) => ({
    body: { version: snapshot.event?.version ?? -1, ticket: snapshot.state },
    etag: etag(snapshot.event?.version ?? -1),
  });

  http.get("/tickets/:id", async (c) => {
    const snapshot = await app.load(Ticket, `ticket-${c.req.param("id")}`);
    if (!snapshot.event) return c.json({ error: "no such ticket" }, 404);
    const { body, etag } = reply(snapshot);
    c.header("ETag", etag);
    return c.json(body);
  });

  http.post("/tickets/:id/:action", async (c) => {
    const actor = authenticate(c.req.header("Authorization"));
    if (!actor) return c.json({ error: "who is asking? send Authorization: Bearer <token>" }, 401);
    const action = c.req.param("action");
    if (!actions.has(action)) return c.json({ error: `no action ${action}` }, 404);
    const payload = await c.req.json().catch(() => {
      throw new HttpError(400, "the body must be a JSON object");
    });
    const stream = `ticket-${c.req.param("id")}`;
    const target = {
      stream,
      actor,
      expectedVersion: expectedVersion(c.req.header("If-Match")),
      idempotencyKey: c.req.header("Idempotency-Key"),
    };
    const snapshots = await app.do(action as Action, target, payload);
    let last = snapshots.at(-1)!;
    let done = true;
    if (c.req.query("wait") === "reactions") {
      // Only this request's chain is waited for: other tickets' backlogs do not delay it.
      done = await app.settled(snapshots).then(
        () => true,
        (error: unknown) => {
          // Still running, or blocked until an operator unblocks it: the action itself committed.
          if (error instanceof NotSettledError) return false;
          throw error;
        }
      );
      last = await app.load(Ticket, stream);
    }
    const { body, etag } = reply(last);
    c.header("ETag", etag);
    return c.json(body, done ? 200 : 202);
  });

  http.onError((error, c) => {
    const { status, body } = problem(error);
    if (status === 500) console.error(error);
    return c.json(body, status);
  });
  return http;
}
