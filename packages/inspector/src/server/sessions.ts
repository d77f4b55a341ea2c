import { randomBytes, timingSafeEqual } from "node:crypto";
import { HttpError } from "./responses.js";

/** How many links may wait unused (`link()` called in a loop must not grow memory without bound). */
const MAX_LINKS = 100;

const INVALID_LINK = "This link's token is not valid: open the URL the inspector printed when it started.";
const USED_LINK =
  "This link was already used. Each link the inspector prints opens one session, so that a copy of it (in the shell history, a log or another browser) cannot open a second one. Go back to the browser tab it opened, or restart the inspector for a new link.";
export const SIGNED_OUT =
  "Not signed in: this tab has no inspector session, or its session ended when the inspector stopped. Open the URL the inspector printed (each one works once), or restart the inspector for a new one.";

/** A new random secret: a link's token or a session's credential. */
const secret = () => randomBytes(24).toString("base64url");

/** Whether two secrets are the same, compared whole and in constant time. */
function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The sign-in of one server. The printed URL carries a one-use token. The
 * page trades it once (`POST /api/session`) for a session credential, keeps
 * that in the tab (sessionStorage, which belongs to this origin, port
 * included) and sends it as `Authorization: Bearer …` on every API call. No
 * cookie is set: browsers send a cookie for 127.0.0.1 to every port of that
 * host, so any other local server the browser visits would receive it and
 * could replay it.
 */
export class Sessions {
  // Links not used yet, links used (kept to tell a replay from a wrong
  // token), and the sessions they opened. Each comparison is of whole
  // values, in constant time (see same()).
  private readonly unused: string[];
  private readonly used: string[] = [];
  private readonly sessions: string[] = [];

  /** @param token - the printed URL's one-use token; random when omitted (tests pass their own) */
  constructor(token?: string) {
    this.unused = [token ?? secret()];
  }

  /** The token of the first link, the one the server prints. */
  get first(): string {
    return this.unused[0];
  }

  /** Trades a link's token for a session's credential; each token works once. */
  open(given: string): string {
    const at = this.unused.findIndex((t) => same(given, t));
    if (at < 0) throw this.refusal(given);
    this.used.push(...this.unused.splice(at, 1));
    const session = secret();
    this.sessions.push(session);
    return session;
  }

  /** Whether a credential is one of the sessions opened. */
  signedIn(credential: string): boolean {
    return this.sessions.some((s) => same(credential, s));
  }

  /** Whether a token is a link's that was not used yet. */
  waiting(given: string): boolean {
    return this.unused.some((t) => same(given, t));
  }

  /** Why a link's token is refused: already used (403), or not one of ours (401). */
  refusal(given: string): HttpError {
    return this.used.some((t) => same(given, t)) ? new HttpError(403, USED_LINK) : new HttpError(401, INVALID_LINK);
  }

  /** The token of another one-use link. */
  link(): string {
    if (this.unused.length >= MAX_LINKS)
      throw new Error(`${MAX_LINKS} links are waiting unused: open one of them before making more.`);
    const token = secret();
    this.unused.push(token);
    return token;
  }
}
