/**
 * Where a sequential action's time goes on PostgreSQL, layer by layer, and
 * what an inline projection's round trips cost (`npx tsx bench/commit-layers.ts
 * [slices]`, default 10; part of `npm run bench`).
 *
 * Commits, each one durable transaction on its own, over 200 streams:
 * - the floor: a bare single-row `INSERT` (prepared) on a dedicated client;
 * - the store's checked commit statement (what an app's action sends) on a
 *   dedicated client, then through a `pg.Pool` like the store's;
 * - `PostgresStore.commit` with the stream's last version and event id;
 * - `app.do`, an action on a cached stream.
 * Each row adds one layer to the one above it, so the differences say what
 * each layer costs; the Node.js CPU per commit (`process.cpuUsage()`) says
 * how much of that is this process's work. The statement's own server cost
 * shows between the floor and the second row.
 *
 * Inline projections, an action's commit plus one upsert in one transaction,
 * against the commit alone, by how many network flights the four statements
 * (`BEGIN`, commit, upsert, `COMMIT`) take. All on one connection with
 * node-postgres's `pipeline` client option, which sends a statement without
 * waiting for the reply to the one before it when the caller does not wait
 * either (each connection has its own server process, scheduled its own way
 * on a small machine: one connection keeps that out of the comparison):
 * - 4: one statement at a time — what `PostgresStore` sends;
 * - 3: `BEGIN` sent with the commit — the fewest possible when the handler
 *   writes after it has the committed events and waits for its statement's
 *   reply, as inline handlers do;
 * - 2: the upsert sent with `COMMIT` as well — a handler that does not wait;
 * - 1: all four at once — the handler's statement written before the
 *   commit's reply, so without the ids the database gives the events.
 *
 * Slices alternate between the rows (in reverse order every other slice),
 * so load from other processes hits them alike; figures are per operation.
 */
import { act, type Store } from "@act-root/act";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { commitChecked, names } from "../src/sql.js";
import { Counter } from "../test/fixtures/states.js";
import { benchDatabase, emptyStore } from "./database.js";

const TABLE = "bench_layers";
const STREAMS = 200;
const PER_SLICE = 300;
const WARM_UP = 400;

type Row = { label: string; run: (i: number) => Promise<unknown> };
type Timed = { label: string; micros: number; cpuMicros: number };

/** Times each row over `slices` alternating slices of `PER_SLICE` operations, after `WARM_UP` of each. */
async function time(rows: Row[], slices: number): Promise<Timed[]> {
  for (const { run } of rows) for (let i = 0; i < WARM_UP; i++) await run(i);
  const wall = new Map<string, number>();
  const cpu = new Map<string, number>();
  for (let slice = 0; slice < slices; slice++) {
    for (const { label, run } of slice % 2 ? [...rows].reverse() : rows) {
      const before = process.cpuUsage();
      const started = performance.now();
      for (let i = 0; i < PER_SLICE; i++) await run(WARM_UP + slice * PER_SLICE + i);
      wall.set(label, (wall.get(label) ?? 0) + performance.now() - started);
      const used = process.cpuUsage(before);
      cpu.set(label, (cpu.get(label) ?? 0) + (used.user + used.system) / 1000);
    }
  }
  const per = (ms: number) => (ms * 1000) / (slices * PER_SLICE);
  return rows.map(({ label }) => ({ label, micros: per(wall.get(label)!), cpuMicros: per(cpu.get(label)!) }));
}

/** A row's streams, with the last version and event id of each: what the checked statement is given. */
class Streams {
  readonly #last = new Map<string, { version: number; id: number | string | null }>();
  constructor(private readonly prefix: string) {}
  stream(i: number) {
    return `${this.prefix}-${i % STREAMS}`;
  }
  last(stream: string) {
    return this.#last.get(stream) ?? { version: -1, id: null };
  }
  committed(stream: string, row: { version: number; id: number | string } | undefined) {
    if (!row) throw new Error(`the commit to "${stream}" was refused: the benchmark lost track of its last version`);
    this.#last.set(stream, { version: row.version, id: row.id });
  }
}

async function main() {
  const slices = Number(process.argv[2] ?? 10);
  const database = await benchDatabase();
  const { url } = database;
  const client = new pg.Client({ connectionString: url });
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const piped = new pg.Client({ connectionString: url, pipeline: true } as pg.ClientConfig);
  let log: Store | undefined;
  try {
    const adapter = await emptyStore(url, TABLE);
    log = adapter;
    await client.connect();
    await piped.connect();
    await client.query(
      `DROP TABLE IF EXISTS ${TABLE}_bare, ${TABLE}_totals;
       CREATE TABLE ${TABLE}_bare (id bigserial PRIMARY KEY, v integer);
       CREATE TABLE ${TABLE}_totals (stream text PRIMARY KEY, total bigint)`
    );
    const checked = commitChecked(names("public", TABLE));
    const meta = JSON.stringify({
      correlation: "c8a7b5e2-1b1d-4a43-9a7e-1c3c2c6d9f00",
      causation: { action: { name: "increment", stream: "s", actor: { id: "bench", name: "Bench" } } },
    });
    const messages = JSON.stringify([{ name: "Incremented", data: { by: 1 } }]);
    /**
     * A row of commits on streams of its own: `send` is given the `i`th
     * commit's checked statement (for where its stream ends) and an upsert
     * for the same stream, sends what the row times, and returns the
     * commit's result.
     */
    const row = (prefix: string, send: (commit: pg.QueryConfig, upsert: pg.QueryConfig) => Promise<pg.QueryResult>) => {
      const streams = new Streams(prefix);
      return async (i: number) => {
        const stream = streams.stream(i);
        const { version, id } = streams.last(stream);
        const { rows } = await send(
          { name: "checked", text: checked, values: [stream, messages, meta, version, id] },
          {
            name: "upsert",
            text: `INSERT INTO ${TABLE}_totals AS t (stream, total) VALUES ($1, 1)
                   ON CONFLICT (stream) DO UPDATE SET total = t.total + 1`,
            values: [stream],
          }
        );
        streams.committed(stream, rows[0]);
      };
    };

    const storeStreams = new Streams("store");
    const app = act().with(Counter).build();
    const actor = { id: "bench", name: "Bench" };
    const layers = await time(
      [
        {
          label: "floor: bare INSERT, dedicated client",
          run: (i) => client.query({ name: "bare", text: `INSERT INTO ${TABLE}_bare (v) VALUES ($1)`, values: [i] }),
        },
        { label: "checked commit statement, dedicated client", run: row("client", (commit) => client.query(commit)) },
        { label: "the same through a pg.Pool", run: row("pool", (commit) => pool.query(commit)) },
        {
          label: "PostgresStore.commit",
          run: async (i) => {
            const stream = storeStreams.stream(i);
            const { version, id } = storeStreams.last(stream);
            const [event] = await adapter.commit({
              stream,
              messages: [{ name: "Incremented", data: { by: 1 } }],
              meta: JSON.parse(meta),
              expectedVersion: version,
              ...(id !== null && { lastId: Number(id) }),
            });
            storeStreams.committed(stream, event);
          },
        },
        {
          label: "app.do (a cached stream)",
          run: (i) => app.do("increment", { stream: `app-${i % STREAMS}`, actor }, { by: 1 }),
        },
      ],
      slices
    );

    const inline = await time(
      [
        { label: "the commit alone (1 flight)", run: row("alone", (commit) => piped.query(commit)) },
        {
          label: "4 flights: one statement at a time",
          run: row("f4", async (commit, upsert) => {
            await piped.query("BEGIN");
            const committed = await piped.query(commit);
            await piped.query(upsert);
            await piped.query("COMMIT");
            return committed;
          }),
        },
        {
          label: "3 flights: BEGIN with the commit",
          run: row("f3", async (commit, upsert) => {
            const [, committed] = await Promise.all([piped.query("BEGIN"), piped.query(commit)]);
            await piped.query(upsert);
            await piped.query("COMMIT");
            return committed;
          }),
        },
        {
          label: "2 flights: the upsert with COMMIT",
          run: row("f2", async (commit, upsert) => {
            const [, committed] = await Promise.all([piped.query("BEGIN"), piped.query(commit)]);
            await Promise.all([piped.query(upsert), piped.query("COMMIT")]);
            return committed;
          }),
        },
        {
          label: "1 flight: all four at once",
          run: row("f1", async (commit, upsert) => {
            const sent = [piped.query("BEGIN"), piped.query(commit), piped.query(upsert), piped.query("COMMIT")];
            return (await Promise.all(sent))[1];
          }),
        },
      ],
      slices
    );

    const print = (title: string, rows: Timed[], base: Timed, baseName: string) => {
      console.log(`\n${title}`);
      console.log(`| row | µs per commit | Node.js CPU µs | ÷ ${baseName} |`);
      console.log("|---|---:|---:|---:|");
      for (const row of rows)
        console.log(
          `| ${row.label} | ${row.micros.toFixed(0)} | ${row.cpuMicros.toFixed(0)} | ${(base.micros / row.micros).toFixed(2)} |`
        );
    };
    print("Commits, layer by layer (ratio: the floor's time ÷ the row's)", layers, layers[0], "floor");
    print("An inline upsert, by network flights (ratio: the commit alone ÷ the row)", inline, inline[0], "alone");
    console.log(JSON.stringify({ slices, per_slice: PER_SLICE, layers, inline }));
  } finally {
    await client.query(`DROP TABLE IF EXISTS ${TABLE}_bare, ${TABLE}_totals`).catch(() => {});
    await Promise.allSettled([client.end(), piped.end(), pool.end()]);
    await log?.drop().catch(() => {});
    await log?.dispose().catch(() => {});
    await database.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
