/**
 * How PostgresStore's costs grow with the log (see `packages/act/bench/growth.ts`
 * for the figures and the `GROWTH_SIZES` knob). Uses `DATABASE_URL` when set;
 * otherwise a disposable server with the durable defaults. Bytes per event:
 * the events table with its indexes, after `VACUUM`.
 */
import { store } from "@act-root/act";
import pg from "pg";
import { growth } from "../../act/bench/growth.js";
import { PostgresStore } from "../src/index.js";
import { type PgServer, startServer } from "../tools/pg-server.js";

const TABLE = "act_growth";

async function main() {
  let server: PgServer | undefined;
  let url = process.env.DATABASE_URL;
  if (!url) {
    server = await startServer({ durable: true });
    url = server.url;
  }
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  try {
    await growth({
      label: "PostgresStore",
      async fresh() {
        const adapter = new PostgresStore({ connectionString: url, table: TABLE });
        await adapter.drop();
        await adapter.seed();
        return store(adapter);
      },
      async bytes() {
        await client.query(`VACUUM ANALYZE public.${TABLE}`);
        const { rows } = await client.query<{ bytes: string }>(
          `SELECT pg_total_relation_size('public.${TABLE}') AS bytes`
        );
        return Number(rows[0].bytes);
      },
    });
    await store().drop();
    await store().dispose();
  } finally {
    await client.end();
    await server?.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
