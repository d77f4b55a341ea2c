/**
 * The tab's session with the inspector's server.
 *
 * The printed URL carries a one-use token. The page trades it once for a
 * session credential, which it keeps in sessionStorage and sends as
 * `Authorization: Bearer …` on every API call. There is no cookie on
 * purpose: a browser sends a cookie for 127.0.0.1 to every port of that
 * host, so any other local server the browser visits would get it, while
 * sessionStorage and the header stay with this origin (port included).
 */

const KEY = "act-inspector-session";
/**
 * A tab opened from the page (a link opened in a new tab) starts with empty
 * sessionStorage; it asks the inspector's other tabs for their session on
 * this channel, which only pages of the same origin can join.
 */
const CHANNEL = "act-inspector-session";
/** How long a new tab waits for another tab's answer before it says it is not signed in. */
const ASK_MILLIS = 1_000;

let current: string | null = null;

/** The credential to send, or null when the tab is not signed in. */
export const credential = () => current;

function stored(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null; // storage turned off: the session lives in this page only
  }
}

function keep(session: string) {
  current = session;
  try {
    sessionStorage.setItem(KEY, session);
  } catch {
    // storage turned off: a reload will need a new link
  }
}

async function exchange(token: string): Promise<string> {
  let res: Response;
  try {
    res = await fetch("/api/session", {
      method: "POST",
      credentials: "omit",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token }),
    });
  } catch {
    throw new Error("The inspector's server is not answering. Is it still running?");
  }
  const body = (await res.json().catch(() => ({}))) as { session?: string; error?: string };
  if (!res.ok || !body.session) throw new Error(body.error ?? `The inspector answered ${res.status}.`);
  return body.session;
}

/** Asks the inspector's other open tabs for their session; null when none answers. */
function askOtherTabs(): Promise<string | null> {
  if (typeof BroadcastChannel === "undefined") return Promise.resolve(null);
  const channel = new BroadcastChannel(CHANNEL);
  return new Promise((resolve) => {
    const done = (session: string | null) => {
      clearTimeout(timer);
      channel.close();
      resolve(session);
    };
    const timer = setTimeout(() => done(null), ASK_MILLIS);
    channel.onmessage = (e: MessageEvent<{ session?: unknown }>) => {
      if (typeof e.data?.session === "string") done(e.data.session);
    };
    channel.postMessage({ ask: true });
  });
}

/** Answers other tabs that ask for the session (see askOtherTabs). */
function answerOtherTabs() {
  if (typeof BroadcastChannel === "undefined") return;
  const channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (e: MessageEvent<{ ask?: unknown }>) => {
    if (e.data?.ask === true && current) channel.postMessage({ session: current });
  };
}

/**
 * Signs the tab in: with the token of the URL it was opened with, else with
 * the session it already holds (a reload), else with another tab's. Resolves
 * with the message to show instead of the inspector when none works.
 */
export async function signIn(): Promise<string | undefined> {
  const url = new URL(location.href);
  const token = url.searchParams.get("token");
  const held = stored();
  if (token !== null) {
    // Out of the address bar and the history at once: the token works once,
    // and a reload must use the session, not the spent link.
    // The whole URL, not its path: a path that starts with `//` would read
    // as another host, which replaceState refuses.
    url.searchParams.delete("token");
    history.replaceState(history.state, "", url.href);
    try {
      keep(await exchange(token));
    } catch (error) {
      // The link opened again in a tab that is already signed in: keep going.
      if (!held) return (error as Error).message;
      current = held;
    }
  } else if (held) {
    current = held;
  } else {
    const shared = await askOtherTabs();
    if (!shared)
      return "Not signed in: this tab has no inspector session. Open the URL the inspector printed (each one works once), or go back to the tab you opened it in.";
    keep(shared);
  }
  answerOtherTabs();
  return undefined;
}
