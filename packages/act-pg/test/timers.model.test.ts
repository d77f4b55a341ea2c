import { disposeAndExit, store } from "@act-root/act";
import { afterAll } from "vitest";
import { timersModelSuite } from "../../act/test/timers.model.js";
import type { PostgresStore } from "../src/index.js";
import { makeStore } from "./support.js";

let current: PostgresStore | undefined;

timersModelSuite("PostgreSQL", async () => {
  await disposeAndExit();
  current = makeStore({ table: "timers_model" });
  store(current);
  await current.drop();
  await current.seed();
  return current;
});

afterAll(async () => {
  await current?.drop();
  await disposeAndExit();
});
