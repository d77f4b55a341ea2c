/**
 * The reference library at 0.5.6 with its PostgreSQL store 0.4.6
 * (`@rotorsoft/act`, `@rotorsoft/act-pg`): the newest pair the registry
 * serves that runs on PostgreSQL (act-pg 0.4.6 implements the store port of
 * act 0.5.x). Its API is the one Act keeps: `state(name, schema)`,
 * `.on(action, schema)`, `act().with(...)`; a reaction's `.to()` returns the
 * target stream's name, and `build(drainLimit)` sets the events per drain.
 */
import { act, SNAP_EVENT, state, store, type Store } from "@rotorsoft/act";
import { PostgresStore } from "@rotorsoft/act-pg";
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

/** Host, port, user, password and database of a `postgres://` URL: this store takes them one by one. */
function connection(url: string) {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: u.pathname.slice(1) || "postgres",
  };
}

/** The reference library on the in-memory store or on PostgreSQL (durable server settings come from the caller). */
export async function subject(target: Target, version: string): Promise<Subject> {
  if (target.kind === "sqlite") throw new Error("the reference library has no SQLite store on the registry");
  const adapter: Store =
    target.kind === "memory" ? store() : new PostgresStore({ ...connection(target.url), table: "ref0_bench" });
  if (target.kind === "postgres") store(adapter);
  await adapter.drop();
  await adapter.seed();
  return {
    label: `reference ${version}`,
    coldReactions: "a second app on the emptied store posts some events twice (1,004–1,007 postings for 1,000 events)",
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
        await adapter.commit(
          stream,
          Array.from({ length: Math.min(500, count - done) }, () => ({ name: "Incremented", data: { by: 1 } })),
          meta
        );
    },
    // Its snapshot write is not awaited by the action, so on PostgreSQL the
    // next action on the stream races it and fails on the (stream, version)
    // index. The stream is written here the way that write writes it: the
    // state as a snapshot event after every `every` increments.
    async snapped(stream, count, every) {
      for (let done = 0; done < count; done += every)
        await adapter.commit(
          stream,
          [
            ...Array.from({ length: every }, () => ({ name: "Incremented", data: { by: 1 } })),
            { name: SNAP_EVENT, data: { count: done + every } },
          ],
          meta
        );
    },
    async reactions(sources) {
      let posted = 0;
      // The handler gets the event and the target stream; the app it acts on is this one.
      const app = act()
        .with(counter())
        .with(Ledger)
        .on("Incremented")
        .do(async function post(event, stream): Promise<void> {
          await app.do("post", { stream, actor }, { by: event.data.by }, event);
          posted++;
        })
        .to((event) => `ledger-${event.stream}`)
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
