/** The ledger state of the reaction benchmarks: each reaction posts the increment it handled. */
import { act, state } from "@act-root/act";
import { z } from "zod";
import { Counter } from "../test/fixtures/states.js";

export const Ledger = state("Ledger", z.object({ total: z.number() }))
  .init(() => ({ total: 0 }))
  .emits({ Posted: z.object({ by: z.number() }) })
  .patch({ Posted: (e, s) => ({ total: s.total + e.data.by }) })
  .on("post", z.object({ by: z.number() }))
  .emit(({ by }) => ["Posted", { by }])
  .build();

const actor = { id: "bench", name: "Bench" };

/** An app whose reaction posts each increment to `ledger-<stream>`: the resolver names only a target. */
export const ledgerApp = () =>
  act()
    .with(Counter)
    .with(Ledger)
    .on("Incremented")
    .do(async (event, stream, app) => {
      await app.do("post", { stream, actor }, { by: event.data.by }, { reactingTo: event });
    })
    .to((event) => ({ target: `ledger-${event.stream}` }))
    .build();
