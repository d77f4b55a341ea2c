/**
 * Emmett on SQLite (`@event-driven-io/emmett-sqlite`), written the way its
 * documentation shows for the other stores: a `CommandHandler` decides and
 * appends, `aggregateStream` loads, a consumer's processor runs the reaction.
 *
 * Its driver, `sqlite3`, compiles from source on this platform for several
 * minutes, so the package is not a dependency of this workspace (every
 * `npm ci` would compile it): `npm run setup:sqlite -w @act-root/bench-peers`
 * installs it into `sqlite-peers/`, and this file loads it from there.
 * Without it the column says how to install it.
 *
 * Emmett's SQLite store fails about one command in a few hundred here with
 * `SQLITE_BUSY: cannot commit transaction - SQL statements in progress`,
 * even with one writer; with several writers, a `BEGIN IMMEDIATE` refused as
 * busy surfaces as `SQLITE_ERROR: cannot rollback - no transaction is active`
 * (its rollback of the transaction that never began). The subject retries a
 * command that failed either way, as an application would retry a transient
 * error, and a processor that stopped on one is started again from its
 * checkpoint; the time of the retries counts. With 8 concurrent writers in
 * one process it ends the process: the `PRAGMA journal_mode = WAL` each new
 * connection runs fails as busy with no callback to take the error, an
 * unhandled `error` event. That workload is left out.
 */
import type { CommandHandler as EmmettCommandHandler, EventStore } from "@event-driven-io/emmett";
import { existsSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type { CounterApp, Subject, Target } from "../workloads.js";
import { type Counter, counter, type Incremented, ledger, NO_SNAPSHOTS } from "./emmett-model.js";

const folder = fileURLToPath(new URL("../../sqlite-peers/", import.meta.url));
const fromFolder = createRequire(`${folder}package.json`);

/** Why Emmett's SQLite column is empty, or nothing when its package is installed. */
export function missing(): string | undefined {
  try {
    fromFolder.resolve("@event-driven-io/emmett-sqlite");
    fromFolder.resolve("sqlite3");
    return undefined;
  } catch {
    return "not installed: npm run setup:sqlite -w @act-root/bench-peers (compiles the sqlite3 driver, several minutes)";
  }
}

/** The part of a processor's message and context this subject reads. */
type Message = { type: string; data: { by: number }; metadata: { streamName: string } };
type Connection = object;
/** The part of `@event-driven-io/emmett-sqlite` this subject uses (it has no types here until installed). */
type EmmettSqlite = {
  getSQLiteEventStore(options: {
    fileName: string;
    schema?: { autoMigration?: "None" | "CreateOrUpdate" };
    connectionOptions?: { singleton: true; connection: Connection };
  }): EventStore & {
    consumer(): {
      processor(options: {
        processorId: string;
        startFrom?: "CURRENT";
        stopAfter?: (message: Message) => boolean;
        eachMessage: (message: Message, context: { connection: Connection }) => Promise<void>;
      }): unknown;
      start(): Promise<void>;
      close(): Promise<void>;
    };
  };
};

const busy = (error: unknown) =>
  (error as { code?: string }).code === "SQLITE_BUSY" ||
  /cannot rollback - no transaction is active/.test(String((error as Error).message));

/** Runs `command`, again after a busy failure (at most 5 times in all). */
async function retried<T>(command: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await command();
    } catch (error) {
      if (!busy(error) || attempt >= 5) throw error;
    }
  }
}

/** Emmett on a SQLite file (WAL, the driver's default synchronous mode: FULL). */
export async function subject(target: Target, version: string): Promise<Subject> {
  if (target.kind !== "sqlite") throw new Error("emmett-sqlite runs on SQLite only");
  const why = missing();
  if (why) throw new Error(why);
  const sqlite = fromFolder("@event-driven-io/emmett-sqlite") as EmmettSqlite;
  // The same copy of Emmett the SQLite package runs with.
  const { CommandHandler } = fromFolder("@event-driven-io/emmett") as { CommandHandler: typeof EmmettCommandHandler };
  const increment = CommandHandler(counter);
  const post = CommandHandler(ledger);
  const file = target.file;
  const open = () => sqlite.getSQLiteEventStore({ fileName: file, schema: { autoMigration: "CreateOrUpdate" } });
  const remove = () => {
    for (const suffix of ["", "-wal", "-shm"]) if (existsSync(file + suffix)) rmSync(file + suffix);
  };
  remove();
  let eventStore = open();
  let processors = 0;
  return {
    label: `Emmett ${version}`,
    cannot: {
      concurrent:
        "Emmett's SQLite store ends the process with 8 concurrent writers (an unhandled SQLITE_BUSY error event of a new connection)",
    },
    async reset() {
      // Each call of the store opens and closes its own connection: none is left open here.
      remove();
      eventStore = open();
    },
    async counter({ snapEvery }) {
      if (snapEvery) return { unsupported: NO_SNAPSHOTS };
      const app: CounterApp = {
        increment: async (stream) =>
          void (await retried(() => increment(eventStore, stream, () => ({ type: "Incremented", data: { by: 1 } })))),
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
      for (const stream of sources)
        await retried(() => increment(eventStore, stream, () => ({ type: "Incremented", data: { by: 1 } })));
      const ledgers = [...new Set(sources)].map((stream) => `ledger-${stream}`);
      /** Postings in the store: a batch that failed was rolled back, postings counted in it included. */
      const stored = async () => {
        let n = 0;
        for (const stream of ledgers) n += (await eventStore.readStream(stream)).events.length;
        return n;
      };
      const processorId = `ledger-${++processors}`;
      let posted = 0;
      let runs = 0;
      let seconds = 0;
      while (posted < sources.length) {
        if (++runs > 10) throw new Error(`reactions stopped ${runs - 1} times, at ${posted} of ${sources.length}`);
        const consumer = eventStore.consumer();
        consumer.processor({
          processorId,
          // From the processor's checkpoint (from the first message the first time).
          startFrom: "CURRENT",
          stopAfter: () => posted >= sources.length,
          // A processor handles its batch in a write transaction on its own
          // connection; a second connection would wait for it. Emmett's way:
          // an event store on the processor's connection.
          eachMessage: async (message, { connection }) => {
            if (message.type !== "Incremented") return;
            const onConnection = sqlite.getSQLiteEventStore({
              fileName: file,
              schema: { autoMigration: "None" },
              connectionOptions: { singleton: true, connection },
            });
            await post(onConnection, `ledger-${message.metadata.streamName}`, () => ({
              type: "Posted",
              data: { by: message.data.by },
            }));
            posted++;
          },
        });
        // Default pulling options; the processor stops after the last posting.
        const start = performance.now();
        await consumer.start();
        seconds += (performance.now() - start) / 1000;
        // Closing waits a fixed 250 ms: not counted.
        await consumer.close();
        eventStore = open();
        if (posted < sources.length) posted = await stored();
      }
      return { posted, cycles: runs, seconds };
    },
    async close() {
      remove();
    },
  };
}
