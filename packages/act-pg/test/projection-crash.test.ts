/**
 * The short version of the projection crash run (`tools/projection-crash.ts`,
 * `npm run projection-crash` for minutes): two workers project into a
 * Postgres table while events arrive and workers are SIGKILLed at random
 * moments. The read model must equal a fold of the log exactly.
 */
import { expect, it } from "vitest";
import { projectionCrash } from "../tools/projection-crash.js";
import { connectionString } from "./support.js";

it.each([false, true])(
  "applies every event exactly once through SIGKILLs of two competing workers (batched: %s)",
  async (batch) => {
    const figures = await projectionCrash({
      connectionString: connectionString(),
      table: batch ? "projcrash_batched" : "projcrash",
      millis: 6_000,
      rate: 80,
      killMin: 150,
      killMax: 900,
      minKills: 4,
      batch,
      settleMillis: 40_000,
    });
    console.log(`projection crash (short, batched: ${batch}):`, JSON.stringify(figures));
    expect(figures.kills).toBeGreaterThanOrEqual(4);
    expect(figures.events).toBeGreaterThan(200);
    expect(figures).toMatchObject({ appliedTwice: 0, skipped: 0, wrongTotals: 0, caughtUp: true });
  },
  90_000
);
