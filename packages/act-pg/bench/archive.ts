/**
 * Archiving a large log on PostgreSQL (see `packages/act/bench/archive.ts`
 * for the figures and the `ARCHIVE_EVENTS` knob). Uses `DATABASE_URL` when
 * set, otherwise starts a throwaway server with the durable defaults. Sizes:
 * `pg_total_relation_size` of the events table and of its archive;
 * compacting is `VACUUM FULL` of both.
 */
import { store } from "@act-root/act";
import { archiveBench } from "../../act/bench/archive.js";
import { benchDatabase, emptyStore, withClient } from "./database.js";

const TABLE = "archive_bench";

async function main() {
  const database = await benchDatabase();
  const url = database.url;
  try {
    await withClient(url, async (client) => {
      await archiveBench({
        label: "PostgresStore",
        fresh: () => emptyStore(url, TABLE),
        async compact() {
          await client.query(`VACUUM FULL public.${TABLE}`);
          await client.query(`VACUUM FULL public.${TABLE}_archive`);
        },
        async sizes() {
          const { rows } = await client.query<{ log: string; archive: string }>(
            `SELECT pg_total_relation_size('public.${TABLE}') AS log, pg_total_relation_size('public.${TABLE}_archive') AS archive`
          );
          return { log: Number(rows[0].log), archive: Number(rows[0].archive) };
        },
      });
      await store().drop();
      await store().dispose();
    });
  } finally {
    await database.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
