/**
 * Copy benchmark (part of `npm run bench`): `copyStore` from a SQLite file
 * into PostgreSQL, the move a team makes when it outgrows one file.
 *
 * Fills a SQLite file with `COPY_EVENTS` events (100,000 by default; set
 * 1000000 for a million) over 1,000 streams, each with ~150 bytes of data —
 * the events of the first `COPY_ARCHIVED_STREAMS` streams (100 by default:
 * a tenth) in the archive, as if those streams were closed and archived —
 * then copies it into a PostgreSQL table — `DATABASE_URL` when set,
 * otherwise a disposable server with the durable defaults — in batches of
 * `COPY_BATCH` events (1,000 by default). Prints the archived events and
 * the events copied per second, the time of the records and of the final
 * check (both logs and both archives read and hashed), and the whole
 * copy's rate, as a table and as JSON.
 */
import { copyStore } from "@act-root/act";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { SqliteStore } from "../../act-sqlite/src/index.js";
import { PostgresStore } from "../src/index.js";
import { type PgServer, startServer } from "../tools/pg-server.js";

const EVENTS = Number(process.env.COPY_EVENTS ?? 100_000);
const BATCH = Number(process.env.COPY_BATCH ?? 1000);
const ARCHIVED_STREAMS = Number(process.env.COPY_ARCHIVED_STREAMS ?? 100);
const round = (n: number) => Math.round(n);

async function main() {
  let server: PgServer | undefined;
  let url = process.env.DATABASE_URL;
  if (!url) {
    process.stderr.write("starting a disposable PostgreSQL (durable settings)…\n");
    server = await startServer({ durable: true });
    url = server.url;
  }
  const dir = mkdtempSync(join(tmpdir(), "act-copy-bench-"));
  const source = new SqliteStore({ filename: join(dir, "source.db") });
  const target = new PostgresStore({ connectionString: url, table: "copy_bench" });
  try {
    await source.seed();
    await target.drop();
    await target.seed();

    // The source, written through the transfer port (a commit per event would take minutes).
    const created = Date.now() - EVENTS;
    const versions = new Map<string, number>();
    let [lastLogged, lastArchived] = [-1, -1];
    for (let id = 0; id < EVENTS; ) {
      const page = [];
      const archived = [];
      for (const end = Math.min(EVENTS, id + 5000); id < end; id++) {
        const stream = `account-${id % 1000}`;
        const version = versions.get(stream) ?? 0;
        versions.set(stream, version + 1);
        const event = {
          id,
          stream,
          version,
          name: "Deposited",
          data: { amount: id % 997, currency: "EUR", reference: `transfer ${id} from the old system`, by: "u-42" },
          meta: { correlation: `c-${id}`, causation: {} },
          created: new Date(created + id),
        };
        if (id % 1000 < ARCHIVED_STREAMS) archived.push({ event, archived: created + EVENTS });
        else page.push(event);
      }
      await source.transfer.append(page, lastLogged);
      await source.transfer.archive(archived, lastArchived);
      lastLogged = page.at(-1)?.id ?? lastLogged;
      lastArchived = archived.at(-1)?.event.id ?? lastArchived;
    }

    const marks: Record<string, number> = {};
    const t0 = performance.now();
    const report = await copyStore(source, target, {
      batch: BATCH,
      onProgress: ({ phase }) => {
        marks[phase] ??= performance.now();
      },
    });
    const end = performance.now();
    const archiveMs = marks.events - (marks.archive ?? marks.events);
    const eventsMs = marks.records - marks.events;
    const results = {
      events: report.log.events,
      archived: report.archived,
      batch: BATCH,
      archived_per_s_copying: report.archived ? round(report.archived / (archiveMs / 1000)) : 0,
      events_per_s_copying: round(report.log.events / (eventsMs / 1000)),
      records_ms: round(marks.verify - marks.records),
      verify_ms: round(end - marks.verify),
      events_per_s_whole_copy: round(EVENTS / ((end - t0) / 1000)),
    };
    console.log(`\ncopyStore, SQLite → PostgreSQL (${EVENTS.toLocaleString("en-US")} events, batches of ${BATCH}):`);
    console.table(results);
    console.log(JSON.stringify({ copy: results }));
  } finally {
    await target.drop().catch(() => {});
    await target.dispose();
    await source.dispose();
    rmSync(dir, { recursive: true, force: true });
    await server?.stop();
  }
}

await main();
