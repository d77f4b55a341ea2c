/**
 * Where a benchmark runs: the server `DATABASE_URL` names when it is set,
 * otherwise a disposable server with PostgreSQL's durable defaults, started
 * here — the figures then measure what a production server's settings cost.
 */
import { type Store, store } from "@act-root/act";
import pg from "pg";
import { PostgresStore } from "../src/index.js";
import { type PgServer, startServer } from "../tools/pg-server.js";

/** A benchmark's database, and how to let it go. */
export type BenchDatabase = {
  /** Its connection string (a superuser on a disposable server). */
  readonly url: string;
  /** Stops the disposable server, if one was started; a `DATABASE_URL` server is left running. */
  stop(): Promise<void>;
};

/** The benchmark's database (see the file's comment). */
export async function benchDatabase(): Promise<BenchDatabase> {
  const given = process.env.DATABASE_URL;
  if (given) return { url: given, stop: async () => {} };
  process.stderr.write("starting a disposable PostgreSQL (durable settings)…\n");
  const server: PgServer = await startServer({ durable: true });
  return { url: server.url, stop: () => server.stop() };
}

/** Runs `work` on a client of its own connected to `url`, ended after. */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  // A connection the server drops shows in the next query's error; without a listener it would crash the process.
  client.on("error", () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A store on `table` of `url`, dropped and seeded empty, and made the process's store for the run. */
export async function emptyStore(url: string, table: string): Promise<Store> {
  const adapter = new PostgresStore({ connectionString: url, table });
  await adapter.drop();
  await adapter.seed();
  return store(adapter);
}
