import { limitOf, optionalId, required } from "../requests.js";
import { HttpError } from "../responses.js";
import type { Routes, Served } from "./route.js";

/** Events: one by id with its cause and what it caused, the rest of what it caused, and a correlation. */
export function eventRoutes({ search, cut }: Served): Routes {
  return {
    "GET /api/event": async (url) => {
      const id = optionalId(url, "id");
      if (id === undefined) throw new HttpError(400, "Give the event's id, a whole number.");
      const event = await search.eventById(id);
      if (!event) throw new HttpError(404, `No event with id ${id}.`);
      const cause = event.meta.causation.event ? await search.eventById(event.meta.causation.event.id) : undefined;
      const { events: caused, ...rest } = await search.causedBy(event, event.id, 100);
      return { event, cause: cause ?? null, caused, ...rest };
    },

    "GET /api/caused": async (url) => {
      const id = optionalId(url, "id");
      if (id === undefined) throw new HttpError(400, "Give the event's id, a whole number.");
      const event = await search.eventById(id);
      if (!event) throw new HttpError(404, `No event with id ${id}.`);
      const after = optionalId(url, "after") ?? id;
      const { events: caused, ...rest } = await search.causedBy(event, Math.max(after, id), limitOf(url, 100));
      return { caused, ...rest };
    },

    "GET /api/correlation": async (url) => {
      const correlation = required(url, "id");
      const after = optionalId(url, "after") ?? -1;
      const { events, ...rest } = await search.search(correlation, after, limitOf(url, 100));
      return { events: events.map(cut), ...rest };
    },
  };
}
