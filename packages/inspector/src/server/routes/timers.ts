import type { Act, State, StoredTimer } from "@act-root/act";
import { limitOf, required } from "../requests.js";
import { HttpError } from "../responses.js";
import type { Routes, Served } from "./route.js";

/**
 * How many pending timers a listing reads, the earliest due first: the
 * store lists timers by status and due time only, so the filters by action
 * and stream are applied here, to these. A store with more pending timers
 * shows the earliest of them, and says so (`scanned`).
 */
const TIMER_SCAN = 5_000;

/** A timer as the page receives it: no payload, and how late it is by the server's clock. */
type WireTimer = Omit<StoredTimer, "payload"> & {
  /** Ms past its due time while it is pending, or from due to fired once it fired. */
  readonly lateness?: number;
};

/** Why a timer's payload is not shown, or undefined when it may be. */
function payloadHidden(app: Act<any, any, any> | undefined, action: string): string | undefined {
  // A timer's payload is kept in clear (only events' personal fields are sealed): shown only where the app
  // says the action's state marks no personal fields.
  if (!app)
    return "Store mode does not show timer payloads: only the app knows whether an action's payload holds personal data, and the store keeps it in clear.";
  const actions = app.registry.actions as Record<string, State<any, any, any>>;
  const state = Object.hasOwn(actions, action) ? actions[action] : undefined;
  if (!state) return `The app has no action "${action}", so the inspector cannot tell what its payload holds.`;
  if (Object.keys(state.personal ?? {}).length)
    return `State "${state.name}" marks personal fields, so the inspector does not show the payloads of its actions' timers.`;
  return undefined;
}

/** A stored timer without its payload, with its lateness at `now`. */
function wire({ payload: _payload, ...timer }: StoredTimer, now: number): WireTimer {
  const due = timer.due.getTime();
  let lateness: number | undefined;
  if (timer.status === "pending" && now > due) lateness = now - due;
  if (timer.status === "fired" && timer.fired) lateness = Math.max(0, timer.fired.getTime() - due);
  return { ...timer, ...(lateness !== undefined && { lateness }) };
}

/** A text filter from the query: at most 200 characters, compared in any case. */
function filterOf(url: URL, name: string): string {
  const value = (url.searchParams.get(name) ?? "").toLowerCase();
  if (value.length > 200) throw new HttpError(400, `The "${name}" filter is too long (200 characters at most).`);
  return value;
}

/** Timers: a filtered page of the pending ones with the store's counts, and one timer with its payload where shown. */
export function timerRoutes({ store, app, cut }: Served): Routes {
  const timersOf = () => {
    if (!store.timers) throw new HttpError(409, "This store keeps no timers.");
    return store.timers;
  };
  return {
    "GET /api/timers": async (url) => {
      const timers = timersOf();
      const limit = limitOf(url, 50);
      const action = filterOf(url, "action");
      const stream = filterOf(url, "stream");
      // Pending timers sort by due time, then id; the cursor is the last one sent.
      const after = url.searchParams.get("after") ?? "";
      if (after.length > 1_100) throw new HttpError(400, "The cursor is too long.");
      const now = Date.now();
      const [counts, pending] = await Promise.all([
        timers.count(new Date(now)),
        timers.list({ status: "pending", limit: TIMER_SCAN }),
      ]);
      const key = (t: StoredTimer) => `${String(t.due.getTime()).padStart(16, "0")} ${t.id}`;
      const matched = pending.filter(
        (t) =>
          (!action || t.action.toLowerCase().includes(action)) && (!stream || t.stream.toLowerCase().includes(stream))
      );
      const page = matched.filter((t) => key(t) > after).slice(0, limit + 1);
      const more = page.length > limit;
      const shown = page.slice(0, limit);
      return {
        totals: counts,
        scanned: pending.length,
        matched: matched.length,
        timers: shown.map((t) => wire(t, now)),
        ...(more && { next: key(shown[shown.length - 1]) }),
      };
    },

    "GET /api/timer": async (url) => {
      const id = required(url, "id");
      const [timer] = await timersOf().list({ ids: [id] });
      if (!timer) throw new HttpError(404, `No timer with id ${JSON.stringify(id)}.`);
      const hidden = payloadHidden(app, timer.action);
      // The payload is cut as an event's data is, through an event-shaped wrapper.
      const payload = hidden
        ? undefined
        : cut({
            id: 0,
            stream: timer.stream,
            version: 0,
            created: timer.due,
            name: timer.action,
            data: timer.payload as never,
            meta: { correlation: "", causation: {} },
          });
      return {
        timer: wire(timer, Date.now()),
        ...(hidden ? { payloadHidden: hidden } : { payload: payload!.data, truncated: payload!.truncated?.data }),
      };
    },
  };
}
