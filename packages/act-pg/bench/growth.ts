/**
 * How PostgresStore's costs grow with the log (see `packages/act/bench/growth.ts`
 * for the figures and the `GROWTH_SIZES` knob). Uses `DATABASE_URL` when set;
 * otherwise a disposable server with the durable defaults. Bytes per event:
 * the events table with its indexes, after `VACUUM`.
 */
import { SNAP_EVENT, store } from "@act-root/act";
import { growth } from "../../act/bench/growth.js";
import type pg from "pg";
import { benchDatabase, emptyStore, withClient } from "./database.js";
import * as sql from "../src/sql.js";
import * as watermarks from "../src/watermark-sql.js";

const TABLE = "act_growth";

/**
 * The plans of the statements behind `blocked()`, `stats()`, a drain's poll,
 * a load and a time-travel load, on the largest log measured: each is one
 * statement, and each must find its rows through an index, not by reading
 * the log or the caught-up reaction streams.
 */
async function explain(client: pg.Client) {
  const n = sql.names("public", TABLE);
  const { rows: ends } = await client.query<{ last: string }>(`SELECT max(id) AS last FROM ${n.events}`);
  const last = Number(ends[0].last);
  const plans: Array<[string, string, unknown[]]> = [
    ["blocked()", watermarks.reactions(n, true), [null]],
    ["stats(): the reaction streams", watermarks.reactions(n), [null]],
    ["a drain's poll", watermarks.poll(n), [5, 5, null]],
  ];
  // As for streams whose backlog is the whole log: from its start, as far as stats() reads by default.
  const shared = sql.query(n, { after: -1, before: last + 1, limit: 1_000, names: ["Incremented"] });
  plans.push(["stats(): the shared read of the log", shared.text, shared.values]);
  // A load: from the stream's latest snapshot of the state's version, if any.
  const load = sql.query(n, { stream: "probe", from_snapshot: "Counter@bench.0" });
  plans.push(["a load of the 10-event stream", load.text, load.values]);
  const back = sql.query(n, { stream: "probe", names: [SNAP_EVENT], with_snaps: true, backward: true, limit: 8 });
  plans.push(["time travel: snapshots before the point", back.text, back.values]);
  const fold = sql.query(n, { stream: "probe", with_snaps: true });
  plans.push(["time travel: the events after it", fold.text, fold.values]);
  for (const [what, text, values] of plans) {
    const { rows } = await client.query(`EXPLAIN (ANALYZE, COSTS OFF) ${text}`, values);
    console.log(`\nEXPLAIN ${what}\n${rows.map((r) => `  ${r["QUERY PLAN"]}`).join("\n")}`);
  }
}

async function main() {
  const database = await benchDatabase();
  const url = database.url;
  try {
    await withClient(url, async (client) => {
      await growth({
        label: "PostgresStore",
        fresh: () => emptyStore(url, TABLE),
        async settle() {
          await client.query(`VACUUM ANALYZE public.${TABLE}_watermarks`);
        },
        async bytes() {
          await client.query(`VACUUM ANALYZE public.${TABLE}`);
          const { rows } = await client.query<{ bytes: string }>(
            `SELECT pg_total_relation_size('public.${TABLE}') AS bytes`
          );
          return Number(rows[0].bytes);
        },
      });
      await explain(client);
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
