import type { Act, ReactionStream, Store } from "@act-root/act";
import { limitOf, streamsBody } from "../requests.js";
import { HttpError } from "../responses.js";
import type { Routes, Served } from "./route.js";

/** The reaction states the reactions view filters by. */
const REACTION_STATES = ["all", "blocked", "leased", "lagging", "running"] as const;
type ReactionState = (typeof REACTION_STATES)[number];

/** Where a reaction stream sorts, and the cursor after it: blocked streams first, then by name. */
function reactionKey(r: ReactionStream): string {
  return `${r.blocked ? "0" : "1"}${r.stream}`;
}

/** Every reaction stream, with its lag in app mode (only the app knows which later events route to a stream). */
const reactionRows = async (
  store: Store,
  app?: Act<any, any, any>
): Promise<Array<ReactionStream & { lag?: number }>> =>
  app ? (await app.stats(1_000)).streams : await store.reactions();

/** Reaction streams: a filtered page of them with totals, and (with operations on) unblock and reset. */
export function reactionRoutes({ store, app, operations }: Served): Routes {
  return {
    "GET /api/reactions": async (url) => {
      const limit = limitOf(url, 50);
      const text = (url.searchParams.get("q") ?? "").toLowerCase();
      if (text.length > 200) throw new HttpError(400, "The name filter is too long (200 characters at most).");
      // `blocked=true` is the older way to ask for the blocked streams.
      const state = (url.searchParams.get("state") ??
        (url.searchParams.get("blocked") === "true" ? "blocked" : "all")) as ReactionState;
      if (!REACTION_STATES.includes(state))
        throw new HttpError(400, `"state" is one of ${REACTION_STATES.join(", ")}.`);
      const after = url.searchParams.get("after") ?? "";
      if (after.length > 1_100) throw new HttpError(400, "The cursor is too long.");
      // The store lists reaction streams by name only: the order (blocked
      // first), the totals, the filter and the pages are made here, from one
      // read of every stream; only the page is sent.
      const rows = await reactionRows(store, app);
      const now = Date.now();
      const leased = (r: ReactionStream) =>
        r.leasedBy !== undefined && (r.leasedUntil === undefined || r.leasedUntil.getTime() > now);
      const lagging = (r: ReactionStream & { lag?: number }) => (r.lag ?? r.head - r.at) > 0;
      const states: Record<ReactionState, (r: ReactionStream & { lag?: number }) => boolean> = {
        all: () => true,
        blocked: (r) => r.blocked,
        leased,
        lagging,
        running: (r) => !r.blocked,
      };
      const totals = { streams: rows.length, blocked: 0, leased: 0, lagging: 0 };
      const matched: Array<ReactionStream & { lag?: number }> = [];
      for (const r of rows) {
        if (r.blocked) totals.blocked++;
        if (leased(r)) totals.leased++;
        if (lagging(r)) totals.lagging++;
        if (states[state](r) && (!text || r.stream.toLowerCase().includes(text))) matched.push(r);
      }
      const page = matched
        .filter((r) => reactionKey(r) > after)
        .sort((a, b) => (reactionKey(a) < reactionKey(b) ? -1 : 1))
        .slice(0, limit + 1);
      const more = page.length > limit;
      const streams = page.slice(0, limit);
      return {
        operations,
        totals,
        matched: matched.length,
        streams,
        ...(more && { next: reactionKey(streams[streams.length - 1]) }),
      };
    },

    "POST /api/reactions/unblock": async (_url, req) => {
      const streams = await streamsBody(req);
      const done = app ? await app.unblock(...streams) : await store.unblock(streams);
      return { unblocked: done };
    },

    "POST /api/reactions/reset": async (_url, req) => {
      const streams = await streamsBody(req);
      const done = app ? await app.reset(...streams) : await store.reset(streams);
      return { reset: done };
    },
  };
}
