/** States of the benchmarks (growth here, SQLite's own): a counter, and a ledger each reaction posts to. */
import { state } from "@act-root/act";
import { z } from "zod";

/** A counter: `increment` emits `Incremented`. */
export const Counter = state("Counter", z.object({ count: z.number() }))
  .init(() => ({ count: 0 }))
  .emits({ Incremented: z.object({ by: z.number() }) })
  .patch({ Incremented: (e, s) => ({ count: s.count + e.data.by }) })
  .on("increment", z.object({ by: z.number() }))
  .emit(({ by }) => ["Incremented", { by }])
  .build();

/** The ledger of the reaction benchmark: each reaction posts the increment it handled. */
export const Ledger = state("Ledger", z.object({ total: z.number() }))
  .init(() => ({ total: 0 }))
  .emits({ Posted: z.object({ by: z.number() }) })
  .patch({ Posted: (e, s) => ({ total: s.total + e.data.by }) })
  .on("post", z.object({ by: z.number() }))
  .emit(({ by }) => ["Posted", { by }])
  .build();
