/** The ledger state of the reaction benchmarks: each reaction posts the increment it handled. */
import { state } from "@act-root/act";
import { z } from "zod";

export const Ledger = state("Ledger", z.object({ total: z.number() }))
  .init(() => ({ total: 0 }))
  .emits({ Posted: z.object({ by: z.number() }) })
  .patch({ Posted: (e, s) => ({ total: s.total + e.data.by }) })
  .on("post", z.object({ by: z.number() }))
  .emit(({ by }) => ["Posted", { by }])
  .build();
