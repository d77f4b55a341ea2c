/**
 * Who is asking. The actor of every action comes from the request's
 * credentials through the app's `authenticate` hook — never from the body —
 * and the package refuses to build an API without one. `bearerTokens` is a
 * small, safe hook for fixed tokens (services, demos); real apps verify a
 * session or a JWT in their own hook.
 */
import { type Actor, ActorSchema } from "@act-root/act";
import { HttpErrors, HttpProblem } from "./problem.js";

/**
 * Finds the actor behind a request — from its `Authorization` header, a
 * cookie, a client certificate header your proxy sets — or `undefined` when
 * the request carries no credentials the app accepts (the answer is then
 * 401). Runs before anything else on every route but `GET /openapi.json`.
 *
 * @param request - the request, with its headers
 * @returns the caller, or undefined for a 401
 * @experimental
 * @example
 * ```ts
 * const authenticate: Authenticate = async (request) =>
 *   request.headers.get("authorization") === "Bearer s3cret" ? { id: "svc:billing", name: "Billing" } : undefined;
 * ```
 */
export type Authenticate = (request: Request) => Actor | undefined | Promise<Actor | undefined>;

/** The SHA-256 digest of a string: a fixed length, so comparing two takes the same time whatever they hold. */
async function digest(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

/** Compares two equal-length digests without stopping at the first difference. */
function same(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ (b[i] ?? 0);
  return diff === 0;
}

/**
 * An {@link Authenticate} hook for fixed bearer tokens: `Authorization:
 * Bearer <token>` → the token's actor. Each presented token is hashed and
 * compared with every known token's hash in constant time, so the answer's
 * timing does not tell how much of a token was right; tokens live in a
 * `Map`, so `constructor` or `__proto__` are tokens like any other (unknown).
 *
 * @param tokens - each token and the actor it stands for (a token shorter than 16 characters is refused)
 * @returns the hook
 * @throws TypeError when a token is shorter than 16 characters or an actor is not `{ id, name }`
 * @experimental
 * @example
 * ```ts
 * const authenticate = bearerTokens([["a-long-random-service-token", { id: "svc:billing", name: "Billing" }]]);
 * ```
 */
export function bearerTokens(tokens: Iterable<readonly [string, Actor]>): Authenticate {
  const known = [...tokens].map(([token, actor]) => {
    if (typeof token !== "string" || token.length < 16)
      throw new TypeError("act-http: bearerTokens needs tokens of at least 16 characters");
    const parsed = ActorSchema.safeParse(actor);
    if (!parsed.success) throw new TypeError("act-http: bearerTokens needs each actor as { id, name }");
    return { hash: digest(token), actor: parsed.data };
  });
  return async (request) => {
    const token = /^Bearer ([\x21-\x7e]{1,512})$/.exec(request.headers.get("authorization") ?? "")?.[1];
    if (!token) return undefined;
    const presented = await digest(token);
    let found: Actor | undefined;
    // Every entry is compared, a match or not, so the time does not depend on which one matched.
    for (const { hash, actor } of known) if (same(presented, await hash)) found = actor;
    return found;
  };
}

/**
 * Runs the app's hook and checks what it returned: an actor with a string
 * `id` and `name`, or undefined (401). A hook that throws or returns
 * something else is a server bug: the error handler logs it and answers 500.
 */
export async function identify(authenticate: Authenticate, request: Request): Promise<Actor> {
  const actor = await authenticate(request);
  if (actor === undefined || actor === null)
    throw new HttpProblem(
      401,
      HttpErrors.Unauthorized,
      "Send credentials the API accepts, e.g. Authorization: Bearer <token>"
    );
  const parsed = ActorSchema.safeParse(actor);
  if (!parsed.success)
    throw new TypeError("act-http: authenticate returned something that is not an actor { id, name }");
  return { id: parsed.data.id, name: parsed.data.name };
}

/**
 * Whether a long-lived connection's request still stands for `actor`: the
 * hook is asked again with the same request, so a token revoked or expired
 * since the connection opened (a hook that checks a revocation list or a
 * JWT's expiry) ends the connection at its next message instead of keeping
 * it open for as long as the client likes.
 */
export async function stillCaller(authenticate: Authenticate, request: Request, actor: Actor): Promise<boolean> {
  const now = await authenticate(request);
  return now?.id === actor.id;
}
