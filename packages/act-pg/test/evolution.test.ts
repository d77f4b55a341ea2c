import { disposeAndExit, store } from "@act-root/act";
import { afterAll } from "vitest";
import { evolutionSuite } from "../../act/test/evolution.suite.js";
import type { PostgresStore } from "../src/index.js";
import { makeStore } from "./support.js";

let current: PostgresStore | undefined;

evolutionSuite("PostgresStore", async () => {
  await disposeAndExit();
  current = makeStore({ table: "evolution" });
  store(current);
  await current.drop();
  await current.seed();
  return current;
});

afterAll(async () => {
  await current?.drop();
  await disposeAndExit();
});
