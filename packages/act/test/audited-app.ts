/**
 * The app the stores' store-per-app tests bind to each store: a counter
 * whose every increment is audited by a reaction on `audit-<stream>` and
 * summed by a projection into a map — a commit, a reaction's commit and a
 * projection's write, each of which must land in the app's own store.
 *
 * Imported from the package, not its sources, as the store packages'
 * tests import it: one declaration of each type on both sides.
 */
import { z } from "zod";
import { act, projection, type Store, state } from "@act-root/act";

const actor = { id: "u", name: "U" };

/** A counter: `increment` emits `Incremented`. */
export const Counter = state("Counter", z.object({ count: z.number() }))
  .init(() => ({ count: 0 }))
  .emits({ Incremented: z.object({ by: z.number() }) })
  .patch({ Incremented: (e, s) => ({ count: s.count + e.data.by }) })
  .on("increment", z.object({ by: z.number() }))
  .emit(({ by }) => ["Incremented", { by }])
  .build();

/** The app bound to `log`: each increment audited on `audit-<stream>`, the totals per stream projected into `totals`. */
export function auditedApp(log: Store, totals: Map<string, number>) {
  const Totals = projection("Totals")
    .with(Counter)
    .on("Incremented", (event) => void totals.set(event.stream, (totals.get(event.stream) ?? 0) + event.data.by))
    .build();
  const app = act()
    .with(Counter)
    .with(Totals)
    .on("Incremented")
    .do(async (event, _stream, app) => {
      if (!event.stream.startsWith("audit-"))
        await app.do(
          "increment",
          { stream: `audit-${event.stream}`, actor },
          { by: event.data.by },
          { reactingTo: event }
        );
    })
    .build({ store: log });
  return { app, Totals };
}

/** The names of the streams `log` holds events of, sorted. */
export async function streamsOf(log: Store): Promise<string[]> {
  const names = new Set<string>();
  await log.query((e) => void names.add(e.stream));
  return [...names].sort();
}
