/**
 * Signing in as the page does: the printed link's one-use token traded for
 * a session (`POST /api/session`), which every API call then sends as
 * `Authorization: Bearer …`.
 */

/** Trades the link's token for a session; throws with the server's answer when it is refused. */
export async function signIn(link: string): Promise<string> {
  const url = new URL(link);
  const res = await fetch(`${url.origin}/api/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token: url.searchParams.get("token") }),
  });
  const body = (await res.json()) as { session?: string; error?: string };
  if (res.status !== 200 || !body.session) throw new Error(`${res.status} ${body.error}`);
  return body.session;
}

/** The header that carries a session. */
export const bearer = (session: string) => ({ authorization: `Bearer ${session}` });
