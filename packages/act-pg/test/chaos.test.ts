/**
 * The short version of the chaos run (`tools/chaos.ts`, `npm run chaos` for
 * minutes): worker processes of two releases drain one table while events
 * arrive, workers are killed with SIGKILL, their connections terminated, and
 * a reaction stream is reset in the middle, on a log that already holds
 * 20,000 events, and a release adding a reaction and a projection is deployed
 * rolling (the new workers start while the running ones go on, then those
 * stop), the added reaction sharing streams the running ones keep moving.
 * Nothing may be lost — the added reaction runs for every event, the
 * projection applies every event once — no effect committed twice, and the
 * old release may never run on a stream that carries the reaction it lacks.
 */
import { expect, it } from "vitest";
import { chaos } from "../tools/chaos.js";
import { connectionString } from "./support.js";

it("loses nothing and commits no effect twice through kills, terminated connections, a reset, an old release and a rolling deploy that adds a reaction and a projection", async () => {
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
    backlog: 20_000,
    deploy: true,
  });
  console.log("chaos (short):", JSON.stringify(figures));
  expect(figures.kills).toBeGreaterThan(0);
  expect(figures.terminations).toBeGreaterThan(0);
  expect(figures.resets).toBe(1);
  expect(figures.restarts).toBeGreaterThan(0);
  expect(figures).toMatchObject({
    lost: 0,
    duplicated: 0,
    oldOnForeignStreams: 0,
    projectionMissing: 0,
    projectionDuplicated: 0,
    blocked: 0,
    caughtUp: true,
  });
}, 90_000);
