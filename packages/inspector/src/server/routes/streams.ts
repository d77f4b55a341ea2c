import type { Act, Committed, Schemas, State, Store } from "@act-root/act";
import { diff } from "../diff.js";
import { limitOf, optionalId, required } from "../requests.js";
import { HttpError } from "../responses.js";
import type { WireEvent } from "../wire-event.js";
import type { Routes, Served } from "./route.js";

/** Streams: the list, one stream's summary, its events a page at a time, and (app mode) its state at a version. */
export function streamRoutes({ store, catalog, app, cut }: Served): Routes {
  return {
    "GET /api/streams": async (url) => {
      const prefix = url.searchParams.get("prefix") ?? "";
      if (prefix.length > 200) throw new HttpError(400, "The prefix is too long (200 characters at most).");
      const after = url.searchParams.get("after") ?? undefined;
      return catalog.streams(prefix, after, limitOf(url, 50));
    },

    "GET /api/stream": async (url) => {
      const name = required(url, "name");
      const summary = await catalog.stream(name);
      if (!summary) throw new HttpError(404, `No stream named ${JSON.stringify(name)}: it has no events.`);
      return summary;
    },

    "GET /api/events": async (url) => {
      const stream = required(url, "stream");
      const after = optionalId(url, "after");
      const before = optionalId(url, "before");
      const order = url.searchParams.get("order") ?? "oldest";
      if (order !== "oldest" && order !== "newest")
        throw new HttpError(400, '"order" is "oldest" (the default) or "newest".');
      const newest = order === "newest";
      const names = url.searchParams.get("names")?.split(",").filter(Boolean);
      const limit = limitOf(url, 200);
      const events: WireEvent[] = [];
      // Newest first reads the stream backwards: the last event is on the first page, whatever the stream's length.
      await store.query((e) => void events.push(cut(e as Committed<Schemas, string>)), {
        stream,
        with_snaps: true,
        limit: limit + 1,
        ...(newest && { backward: true }),
        ...(after !== undefined && { after }),
        ...(before !== undefined && { before }),
        ...(names?.length && { names }),
      });
      const cursor = newest ? before : after;
      if (events.length === 0 && cursor === undefined && !names?.length && !(await catalog.stream(stream)))
        throw new HttpError(404, `No stream named ${JSON.stringify(stream)}: it has no events.`);
      const page = events.slice(0, limit);
      return { events: page, ...(events.length > limit && { next: page[page.length - 1].id }) };
    },

    "GET /api/state": async (url) => {
      if (!app) throw new HttpError(409, "State at a version needs app mode: start the inspector with inspect(app).");
      const stream = required(url, "stream");
      const version = optionalId(url, "version");
      if (version === undefined) throw new HttpError(400, "Give the version, a whole number.");
      const summary = await catalog.stream(stream);
      if (!summary) throw new HttpError(404, `No stream named ${JSON.stringify(stream)}: it has no events.`);
      if (version >= summary.events)
        throw new HttpError(
          404,
          `Stream ${JSON.stringify(stream)} has no version ${version} (last: ${summary.events - 1}).`
        );
      const state = await stateOf(app, store, stream);
      if (!state) throw new HttpError(404, `None of the app's states emits the events of ${JSON.stringify(stream)}.`);
      // A state folds its personal fields in clear: the inspector shows them sealed, or not at all.
      if (Object.keys(state.personal ?? {}).length)
        throw new HttpError(
          403,
          `State "${state.name}" marks personal fields, so the inspector does not show its state: the events show them sealed.`
        );
      const now = await app.load(state, stream, { at: { version } });
      const before = version > 0 ? await app.load(state, stream, { at: { version: version - 1 } }) : undefined;
      const previous = before?.state ?? state.init();
      return {
        state: state.name,
        version,
        event: now.event ?? null,
        after: now.state,
        before: previous,
        changes: diff(previous, now.state),
      };
    },
  };
}

/** The app's states, each once. */
export function statesOf(app: Act<any, any, any>): State<any, any, any>[] {
  return [...new Set(Object.values(app.registry.actions) as State<any, any, any>[])];
}

/** The state that emits the stream's first event (the first one that is not a snapshot). */
async function stateOf(app: Act<any, any, any>, store: Store, stream: string) {
  let first: string | undefined;
  await store.query(
    (e) => {
      first = e.name as string;
    },
    { stream, limit: 1 }
  );
  return first === undefined ? undefined : statesOf(app).find((s) => first! in s.events);
}
