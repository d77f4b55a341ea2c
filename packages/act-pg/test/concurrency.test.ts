/**
 * Concurrency is decided by the database: 16 writers on one stream, each
 * reading the stream then committing with the version it read, 20 rounds.
 * The writers use four separate stores (four pools), like four app processes.
 */
import { act, ConcurrencyError, type EventMeta, state, store } from "@act-root/act";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { PostgresStore } from "../src/index.js";
import { makeStore } from "./support.js";

const WRITERS = 16;
const ROUNDS = 20;
const meta = (correlation: string): EventMeta => ({ correlation, causation: {} });

let stores: PostgresStore[];

beforeAll(async () => {
  stores = Array.from({ length: 4 }, () => makeStore({ table: "concurrency", max: 8 }));
  await stores[0].drop();
  await stores[0].seed();
  store(stores[0]);
});

afterAll(async () => {
  await stores[0].drop();
  await Promise.all(stores.map((s) => s.dispose()));
});

/** The stream's last version as a writer would read it. */
async function lastVersion(s: PostgresStore, stream: string) {
  let version = -1;
  await s.query((e) => (version = e.version), { stream, backward: true, limit: 1, with_snaps: true });
  return version;
}

describe("16 concurrent writers on one stream, 20 rounds", () => {
  it("every success is in the log, every failure is a ConcurrencyError, versions are dense", async () => {
    const stream = "contended";
    const won: Array<{ writer: number; round: number; ids: number[] }> = [];
    const failures: unknown[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await Promise.all(
        Array.from({ length: WRITERS }, async (_, writer) => {
          const s = stores[writer % stores.length];
          const version = await lastVersion(s, stream);
          // Some writers commit several events, so collisions also happen mid-batch.
          const messages = Array.from({ length: 1 + (writer % 3) }, (_, i) => ({
            name: "Wrote",
            data: { writer, round, i },
          }));
          try {
            const events = await s.commit({
              stream,
              messages,
              meta: meta(`${round}-${writer}`),
              expectedVersion: version,
            });
            won.push({ writer, round, ids: events.map((e) => e.id) });
          } catch (error) {
            failures.push(error);
          }
        })
      );
    }
    expect(won.length + failures.length).toBe(WRITERS * ROUNDS);
    expect(won.length).toBeGreaterThanOrEqual(ROUNDS); // at least one winner per round
    expect(failures.length).toBeGreaterThan(0);
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(ConcurrencyError);
      const { stream: s, expectedVersion, lastVersion: last } = failure as ConcurrencyError;
      expect(s).toBe(stream);
      expect(last).not.toBe(expectedVersion);
    }
    const log: any[] = [];
    await stores[1].query((e) => log.push(e), { stream });
    expect(log.map((e) => e.version)).toEqual(log.map((_, i) => i));
    const logged = new Set(log.map((e) => e.id));
    for (const w of won) for (const id of w.ids) expect(logged.has(id)).toBe(true);
    // Nothing but the winners' events: each commit is all or nothing.
    expect(log.length).toBe(won.reduce((n, w) => n + w.ids.length, 0));
    const byCommit = new Map<string, number>();
    for (const e of log) byCommit.set(e.meta.correlation, (byCommit.get(e.meta.correlation) ?? 0) + 1);
    for (const w of won) expect(byCommit.get(`${w.round}-${w.writer}`)).toBe(1 + (w.writer % 3));
  });

  it("through the app: conflicting actions fail with ConcurrencyError, snapshots never cause one", async () => {
    const Tally = state("Tally", z.object({ n: z.number() }))
      .init(() => ({ n: 0 }))
      .emits({ Added: z.object({ by: z.number() }) })
      .patch({ Added: (e, s) => ({ n: s.n + e.data.by }) })
      .on("add", z.object({ by: z.number() }))
      .emit(({ by }) => ["Added", { by }])
      .snap((s) => s.patches >= 5)
      .build();
    const app = act().with(Tally).build();
    const actor = { id: "u", name: "U" };
    let ok = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const results = await Promise.allSettled(
        Array.from({ length: WRITERS }, () => app.do("add", { stream: "tally", actor }, { by: 1 }))
      );
      for (const r of results) {
        if (r.status === "fulfilled") ok++;
        else expect(r.reason).toBeInstanceOf(ConcurrencyError);
      }
      // The caller whose action wrote a snapshot acts again at once: no conflict.
      await app.do("add", { stream: "tally", actor }, { by: 1 });
      ok++;
    }
    expect((await app.load(Tally, "tally")).state.n).toBe(ok);
  });
});
