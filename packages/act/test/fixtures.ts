import { z } from "zod";
import { disposeAndExit, InMemoryStore, state, store, ZodEmpty } from "../src/index.js";

export const actor = { id: "u-1", name: "Ada" };

/** A small counter used across the tests. */
export const Counter = state("Counter", z.object({ count: z.number(), tags: z.array(z.string()) }))
  .init(() => ({ count: 0, tags: [] }))
  .emits({
    Incremented: z.object({ by: z.number().int() }),
    Tagged: z.object({ tag: z.string().min(1) }),
    Reset: ZodEmpty,
  })
  .patch({
    Incremented: (event, state) => ({ count: state.count + event.data.by }),
    Tagged: (event, state) => ({ tags: [...state.tags, event.data.tag] }),
    Reset: () => ({ count: 0 }),
  })
  .on("increment", z.object({ by: z.number().int().positive() }))
  .emit(({ by }) => ["Incremented", { by }])
  .on("tag", z.object({ tags: z.array(z.string()) }))
  .emit(({ tags }) => tags.map((tag) => ["Tagged", { tag }] as const))
  .on("reset", ZodEmpty)
  .given([{ description: "Counter must not be zero", valid: (s) => s.count !== 0 }])
  .emit(() => ["Reset", {}])
  .build();

/** An account whose deposits and postings the reaction tests route to other streams. */
export const Account = state("Account", z.object({ n: z.number() }))
  .init(() => ({ n: 0 }))
  .emits({ Deposited: z.object({ amount: z.number() }), Posted: z.object({ amount: z.number() }) })
  .patch({ Deposited: (_, s) => ({ n: s.n + 1 }), Posted: (_, s) => ({ n: s.n + 1 }) })
  .on("deposit", z.object({ amount: z.number() }))
  .emit(({ amount }) => ["Deposited", { amount }])
  .on("post", z.object({ amount: z.number() }))
  .emit(({ amount }) => ["Posted", { amount }])
  .build();

/**
 * A fresh in-memory store for the next test, as a new process would have:
 * disposes the previous one (NODE_ENV=test: no exit) and passes a new one to
 * the store port, the explicit way back after disposal.
 */
export async function freshStore() {
  await disposeAndExit();
  return store(new InMemoryStore());
}
