/**
 * The reference library at its newest release the registry serves
 * (`@rotorsoft/act` 1.x, installed under the alias `reference-act-1`).
 * Its API differs from Act's: `state({ Name: schema })`, `.on({ action:
 * schema })`, `act().withState(...)`, and `settle()` runs reactions
 * (correlate, then drain, until a pass makes no progress). Its only
 * PostgreSQL store on the registry (act-pg 0.4.6) implements the older 0.5
 * store port, so on PostgreSQL it is "n/a".
 */
import { act, state, store } from "reference-act-1";
import { z } from "zod";
import { type CounterApp, type Subject, type Target, untilPosted } from "../workloads.js";

const actor = { id: "bench", name: "bench" };

const counter = (snapEvery?: number) => {
  const builder = state({ Counter: z.object({ count: z.number() }) })
    .init(() => ({ count: 0 }))
    .emits({ Incremented: z.object({ by: z.number() }) })
    .patch({ Incremented: (e, s) => ({ count: s.count + e.data.by }) })
    .on({ increment: z.object({ by: z.number() }) })
    .emit(({ by }) => ["Incremented", { by }]);
  return snapEvery ? builder.snap((s) => s.patches >= snapEvery).build() : builder.build();
};

const Ledger = state({ Ledger: z.object({ total: z.number() }) })
  .init(() => ({ total: 0 }))
  .emits({ Posted: z.object({ by: z.number() }) })
  .patch({ Posted: (e, s) => ({ total: s.total + e.data.by }) })
  .on({ post: z.object({ by: z.number() }) })
  .emit(({ by }) => ["Posted", { by }])
  .build();

/** The reference library 1.x on its default in-memory store (and cache). */
export async function subject(target: Target, version: string): Promise<Subject> {
  if (target.kind !== "memory") throw new Error(`reference 1.x has no ${target.kind} store on the registry`);
  // A fresh app per workload; the in-memory store is the process-wide default, emptied by reset().
  return {
    label: `reference ${version}`,
    coldReactions: "a second app on the emptied store stalls: its settle() handles nothing",
    async reset() {
      await store().drop();
      await store().seed();
    },
    async counter({ snapEvery }): Promise<CounterApp> {
      const Counter = counter(snapEvery);
      const app = act().withState(Counter).build();
      return {
        increment: async (stream) => void (await app.do("increment", { stream, actor }, { by: 1 })),
        load: async (stream) => (await app.load(Counter, stream)).state.count,
      };
    },
    async append(stream, count) {
      const meta = { correlation: "bench", causation: {} };
      for (let done = 0; done < count; done += 500)
        await store().commit(
          stream,
          Array.from({ length: Math.min(500, count - done) }, () => ({ name: "Incremented", data: { by: 1 } })),
          meta
        );
    },
    async reactions(sources) {
      let posted = 0;
      const app = act()
        .withState(counter())
        .withState(Ledger)
        .on("Incremented")
        .do(async function post(event, stream, app) {
          await app.do("post", { stream, actor }, { by: event.data.by }, { reactingTo: event });
          posted++;
        })
        .to((event) => ({ target: `ledger-${event.stream}` }))
        .build();
      for (const stream of sources) await app.do("increment", { stream, actor }, { by: 1 });
      // settle(): the library's own correlate→drain loop with default options,
      // which runs until a pass makes no progress and then emits "settled".
      return untilPosted(
        sources.length,
        () => posted,
        () =>
          new Promise<void>((resolve) => {
            const settled = () => {
              app.off("settled", settled);
              resolve();
            };
            app.on("settled", settled);
            app.settle();
          })
      );
    },
    async close() {
      await store().drop();
    },
  };
}
