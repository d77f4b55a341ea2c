/** Act, this repository's library (`@act-root/act`, `@act-root/act-pg`, `@act-root/act-sqlite`), as a benchmark subject. */
import { act, InMemoryStore, state, store, type Store } from "@act-root/act";
import { PostgresStore } from "@act-root/act-pg";
import { SqliteStore } from "@act-root/act-sqlite";
import { z } from "zod";
import { type CounterApp, type Subject, type Target, untilPosted } from "../workloads.js";

const actor = { id: "bench", name: "bench" };
const meta = { correlation: "bench", causation: {} };

const counter = (snapEvery?: number) => {
  const builder = state("Counter", z.object({ count: z.number() }))
    .init(() => ({ count: 0 }))
    .emits({ Incremented: z.object({ by: z.number() }) })
    .patch({ Incremented: (e, s) => ({ count: s.count + e.data.by }) })
    .on("increment", z.object({ by: z.number() }))
    .emit(({ by }) => ["Incremented", { by }]);
  return snapEvery ? builder.snap((s) => s.patches >= snapEvery).build() : builder.build();
};

const Ledger = state("Ledger", z.object({ total: z.number() }))
  .init(() => ({ total: 0 }))
  .emits({ Posted: z.object({ by: z.number() }) })
  .patch({ Posted: (e, s) => ({ total: s.total + e.data.by }) })
  .on("post", z.object({ by: z.number() }))
  .emit(({ by }) => ["Posted", { by }])
  .build();

/** Act on the in-memory store, on PostgreSQL (durable server settings come from the caller) or on a SQLite file (the store's defaults: WAL, synchronous FULL). */
export async function subject(target: Target, version: string): Promise<Subject> {
  const adapter: Store =
    target.kind === "memory"
      ? new InMemoryStore()
      : target.kind === "sqlite"
        ? new SqliteStore({ filename: target.file })
        : new PostgresStore({ connectionString: target.url, table: "act_bench" });
  store(adapter);
  await adapter.drop();
  await adapter.seed();
  return {
    label: `Act ${version}`,
    async reset() {
      await adapter.drop();
      await adapter.seed();
    },
    async counter({ snapEvery }): Promise<CounterApp> {
      const Counter = counter(snapEvery);
      const app = act().with(Counter).build();
      return {
        increment: async (stream) => void (await app.do("increment", { stream, actor }, { by: 1 })),
        load: async (stream) => (await app.load(Counter, stream)).state.count,
      };
    },
    async append(stream, count) {
      for (let done = 0; done < count; done += 500)
        await adapter.commit({
          stream,
          messages: Array.from({ length: Math.min(500, count - done) }, () => ({
            name: "Incremented",
            data: { by: 1 },
          })),
          meta,
        });
    },
    async reactions(sources) {
      let posted = 0;
      const app = act()
        .with(counter())
        .with(Ledger)
        .on("Incremented")
        .do(async (event, stream, app) => {
          await app.do("post", { stream, actor }, { by: event.data.by }, { reactingTo: event });
          posted++;
        })
        .to((event) => ({ target: `ledger-${event.stream}` }))
        .build();
      for (const stream of sources) await app.do("increment", { stream, actor }, { by: 1 });
      return untilPosted(
        sources.length,
        () => posted,
        async () => void (await app.drain())
      );
    },
    async close() {
      await adapter.drop();
      await adapter.dispose();
    },
  };
}
