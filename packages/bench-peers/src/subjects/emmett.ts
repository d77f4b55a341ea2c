/**
 * Emmett (`@event-driven-io/emmett`, `@event-driven-io/emmett-postgresql`),
 * written the way its documentation shows: a `CommandHandler` with `evolve`
 * and `initialState` decides and appends; `aggregateStream` loads; on
 * PostgreSQL a consumer runs a reactor. In memory the same reactor runs as
 * Emmett's in-memory processor (`inMemoryReactor`, its checkpoints in
 * Emmett's in-memory database); that store has no consumer to pull events
 * for it, so the events the store publishes after each commit
 * (`hooks.onAfterCommit`) are what it is handed, all at once, as a consumer
 * would. Emmett's event stores keep no snapshots (a state is always folded
 * from the whole stream), so that workload is "n/a".
 */
import {
  CommandHandler,
  type EventStore,
  getInMemoryEventStore,
  inMemoryReactor,
  type InMemoryReadEvent,
} from "@event-driven-io/emmett";
import { getPostgreSQLEventStore, type PostgresEventStore } from "@event-driven-io/emmett-postgresql";
import { performance } from "node:perf_hooks";
import type { CounterApp, Subject, Target } from "../workloads.js";
import { type Counter, counter, type Incremented, ledger, NO_SNAPSHOTS, type Posted } from "./emmett-model.js";

const increment = CommandHandler(counter);
const post = CommandHandler(ledger);

/** Emmett on its in-memory event store or on PostgreSQL. */
export async function subject(target: Target, version: string): Promise<Subject> {
  if (target.kind === "sqlite") throw new Error("Emmett on SQLite is subjects/emmett-sqlite.ts");
  const open = (): EventStore =>
    target.kind === "memory" ? getInMemoryEventStore() : getPostgreSQLEventStore(target.url);
  let eventStore = open();
  const postgres = () => eventStore as PostgresEventStore;
  if (target.kind === "postgres") {
    await postgres().schema.migrate();
    await postgres().schema.dangerous.truncate({ resetSequences: true, truncateProjections: true });
  }
  let processors = 0;
  /**
   * The ledger reaction, the same in memory and on PostgreSQL: each
   * `Incremented` posts to `ledger-<stream>` on `store`, counted by `onPosted`.
   */
  const ledgerReaction = (store: EventStore, onPosted: () => void) => ({
    processorId: `ledger-${++processors}`,
    canHandle: ["Incremented" as const],
    eachMessage: async (event: (Incremented | Posted) & { metadata: { streamName: string } }) => {
      if (event.type !== "Incremented") return;
      await post(store, `ledger-${event.metadata.streamName}`, () => ({
        type: "Posted",
        data: { by: event.data.by },
      }));
      onPosted();
    },
  });
  /** The reaction workload in memory: a store that keeps what it publishes, and the reactor handed that. */
  const memoryReactions = async (sources: string[]) => {
    const published: InMemoryReadEvent<Incremented | Posted>[] = [];
    const store = getInMemoryEventStore({
      hooks: {
        onAfterCommit: (events) => void published.push(...(events as InMemoryReadEvent<Incremented | Posted>[])),
      },
    });
    eventStore = store;
    for (const stream of sources) await increment(store, stream, () => ({ type: "Incremented", data: { by: 1 } }));
    let posted = 0;
    const reactor = inMemoryReactor<Incremented | Posted>(ledgerReaction(store, () => posted++));
    const start = performance.now();
    await reactor.start({});
    // What the source increments published; the postings the reactor makes are published after.
    await reactor.handle(published.splice(0), {});
    const seconds = (performance.now() - start) / 1000;
    await reactor.close({});
    return { posted, cycles: 1, seconds };
  };
  return {
    label: `Emmett ${version}`,
    async reset() {
      if (target.kind === "memory") eventStore = open();
      else await postgres().schema.dangerous.truncate({ resetSequences: true, truncateProjections: true });
    },
    async counter({ snapEvery }) {
      if (snapEvery) return { unsupported: NO_SNAPSHOTS };
      const app: CounterApp = {
        increment: async (stream) =>
          void (await increment(eventStore, stream, () => ({ type: "Incremented", data: { by: 1 } }))),
        load: async (stream) => (await eventStore.aggregateStream<Counter, Incremented>(stream, counter)).state.count,
      };
      return app;
    },
    async append(stream, count) {
      for (let done = 0; done < count; done += 500)
        await eventStore.appendToStream<Incremented>(
          stream,
          Array.from({ length: Math.min(500, count - done) }, () => ({ type: "Incremented", data: { by: 1 } }))
        );
    },
    async reactions(sources) {
      if (target.kind === "memory") return memoryReactions(sources);
      for (const stream of sources)
        await increment(eventStore, stream, () => ({ type: "Incremented", data: { by: 1 } }));
      let posted = 0;
      let batches = 0;
      // Default pulling options; the consumer stops once it has caught up with the log.
      const consumer = postgres().consumer<Incremented | Posted>({ stopWhen: { noMessagesLeft: true } });
      consumer.reactor<Incremented | Posted>(ledgerReaction(eventStore, () => posted++));
      const start = performance.now();
      while (posted < sources.length) {
        batches++;
        const before = posted;
        await consumer.start();
        if (posted === before) throw new Error(`reactions stalled at ${posted} of ${sources.length}`);
      }
      const seconds = (performance.now() - start) / 1000;
      await consumer.close();
      // Closing the consumer ends the connection pool it shares with the
      // event store: open a new one for what follows (the truncate in close).
      eventStore = open();
      return { posted, cycles: batches, seconds };
    },
    async close() {
      if (target.kind !== "postgres") return;
      // Emmett's schema stays (it has no drop), but empty.
      await postgres().schema.dangerous.truncate({ resetSequences: true, truncateProjections: true });
      await postgres().close();
    },
  };
}
