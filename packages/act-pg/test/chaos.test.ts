/**
 * The short version of the chaos run (`tools/chaos.ts`, `npm run chaos` for
 * minutes): worker processes of two releases drain one table while events
 * arrive, workers are killed with SIGKILL, their connections terminated, and
 * a reaction stream is reset in the middle. Nothing may be lost, no effect
 * committed twice, and the old release may never run on a stream that
 * carries the reaction it lacks.
 */
import { expect, it } from "vitest";
import { chaos } from "../tools/chaos.js";
import { connectionString } from "./support.js";

it("loses nothing and commits no effect twice through kills, terminated connections, a reset and an old release", async () => {
  const figures = await chaos({
    connectionString: connectionString(),
    table: "chaos",
    millis: 8_000,
    workers: 2,
    streams: 6,
    rate: 30,
    killEvery: 2_500,
    terminateEvery: 1_500,
    settleMillis: 45_000,
  });
  console.log("chaos (short):", JSON.stringify(figures));
  expect(figures.kills).toBeGreaterThan(0);
  expect(figures.terminations).toBeGreaterThan(0);
  expect(figures.resets).toBe(1);
  expect(figures).toMatchObject({ lost: 0, duplicated: 0, oldOnForeignStreams: 0, blocked: 0, caughtUp: true });
}, 90_000);
